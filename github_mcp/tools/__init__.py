"""MCP tool handlers, grouped by toolset. Importing this package registers them."""

from . import files, issues, meta, pulls, repos, search, workspace, writes  # noqa: F401

from . import actions, automation  # noqa: F401  # isort: skip
