"""Pull-request tools (services: github_mcp.services.pulls).

- pulls: list, read, open, update, merge and comment on pull requests (toolset pull_requests);
- pull_endings: close and retarget; pull_reopen: reopen a closed one;
- automation: failing tests, merge conflicts, readiness, stacked PRs (toolset automation);
- copilot: assign Copilot's coding agent to an issue, request its review on a PR;
Discovery (github_mcp/tools/__init__.py) imports each public module of the package.
"""
