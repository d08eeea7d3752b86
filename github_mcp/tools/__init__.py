"""MCP tool handlers, grouped by toolset. Importing this package registers them."""

from . import files, issues, meta, pulls, repos, search, workspace, writes  # noqa: F401
