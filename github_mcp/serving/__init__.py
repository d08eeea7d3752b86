"""The MCP application around the pipeline: the runtime that holds the GitHub client and
state, the fastmcp server, the stdio and HTTP transports, sessions, and shutdown."""
