"""Pure decisions about writes: whether a write may go ahead, needs a human, or is refused
(the gate), the grants a human gave and what a refusal says, the private-to-public flow
guard, and the ledger of what a session has read."""
