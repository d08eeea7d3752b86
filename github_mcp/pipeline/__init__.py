"""The call path of one tool call, in named steps: parse and validate the arguments, scope
the call, ask the policy, run the handler, and turn the outcome into a tool result."""
