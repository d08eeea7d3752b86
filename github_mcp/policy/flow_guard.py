"""The toxic agent flow guard, as one pure decision.

The attack: text in a public issue steers the model into reading a private repository and
publishing what it read on a public one (a branch, a commit, a pull request, a comment).
The rule: once a session has read from a repository that is not public, a write whose
destination is public needs a human's approval (`approve`), is refused (`deny`), or passes
as any other write (`allow`), per GITHUB_MCP_CROSS_VISIBILITY.

Plain values in (the mode, the write's destination, what the session read and each of
those repositories' visibility), a decision out. The pipeline gathers the facts
(flows.py) and the gate enforces the answer through the approval path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Mode = Literal["approve", "deny", "allow"]
Action = Literal["allow", "ask", "deny"]

# Visibility as GitHub reports it (`public`, `private`, `internal`), a gist's `public` or
# `secret`, `absent` for a repository GitHub says does not exist (nothing was read from
# it), and `unknown` when it could not be learnt. An unknown destination counts as
# public and an unknown read as private: the guard fails closed.
PUBLISHING = frozenset({"public", "unknown"})
NOT_SENSITIVE = frozenset({"public", "absent"})
UNTRACKED = "(more repositories than this session's record holds)"


@dataclass(frozen=True)
class Destination:
    """Where a write publishes: its repository (None for a write outside repositories,
    a gist say) and that place's visibility."""

    repo: str | None
    visibility: str


@dataclass(frozen=True)
class FlowDecision:
    action: Action
    # guard_off | not_publishing | nothing_private_read | cross_visibility
    reason: str
    private_read: tuple[str, ...] = ()
    destination: Destination | None = None

    def explain(self) -> str:
        """What the human is told: where the write publishes and what was read."""
        if self.reason != "cross_visibility" or self.destination is None:
            return self.reason
        where = self.destination.repo or "a place outside any repository"
        what = "public" if self.destination.visibility == "public" else "possibly public"
        return (
            f"it publishes to {where} ({what}) after this session read from "
            f"non-public repositories: {', '.join(self.private_read)}"
        )


def decide(
    mode: Mode,
    destination: Destination,
    reads: Mapping[str, str],
    *,
    overflow: bool = False,
) -> FlowDecision:
    """Decide one write. `reads` maps each repository the session read to its visibility;
    `overflow` says the session read more repositories than were recorded."""
    if mode == "allow":
        return FlowDecision("allow", "guard_off")
    if destination.visibility not in PUBLISHING:
        return FlowDecision("allow", "not_publishing", destination=destination)
    target = (destination.repo or "").lower()
    sensitive = sorted(
        repo for repo, seen in reads.items() if seen not in NOT_SENSITIVE and repo.lower() != target
    )
    if overflow:
        sensitive.append(UNTRACKED)
    if not sensitive:
        return FlowDecision("allow", "nothing_private_read", destination=destination)
    action: Action = "deny" if mode == "deny" else "ask"
    return FlowDecision(action, "cross_visibility", tuple(sensitive), destination)
