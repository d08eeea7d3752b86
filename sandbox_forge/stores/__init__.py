"""What the forge knows beyond git: `state.ForgeState` (users, tokens, repositories, apps,
the request log, extension stores, snapshots; the records themselves are in `records`) and
the collaboration records kept per repository (`collab`: issues, pull requests, reviews and
threads, checks and statuses, Actions runs and their logs; `lookups` finds them), with the
rules for creating and changing them (GitHub's 422s); where a pull request's head and base
are now (`pull_heads`); the fault rules and rate-limit counters the middleware applies
(`faults`, `ratelimit`). The REST routes, the GraphQL resolvers and the admin helpers all
change state through here.
"""
