"""The server's own tools, toolset meta (service: github_mcp.services.meta).

- meta: who you are, rate limits, whether the server can work as configured;
- catalog: find and enable toolsets and tools;
- introspection: what a tool does and what it would need;
- write_approval: a session's grant for write actions.
Discovery (github_mcp/tools/__init__.py) imports each public module of the package.
"""
