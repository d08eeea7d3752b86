"""MCP tool handlers, grouped by toolset. Importing this package registers them."""

from . import files, meta, repos, writes  # noqa: F401
