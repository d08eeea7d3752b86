"""MCP tool handlers, grouped by toolset. Importing this package registers them."""

from . import (  # noqa: F401
    actions,
    automation,
    files,
    issues,
    meta,
    pulls,
    repos,
    search,
    workspace,
    writes,
)
