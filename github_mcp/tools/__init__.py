"""MCP tool handlers, grouped by toolset. Importing this package registers them.

Every module in the package is imported by discovery, so a new tools module cannot be left
out by forgetting to list it; a module that is not a tools module starts with an underscore.
The stdio start defers this (registry.defer_tool_imports) to import a first call's module
before the others, then calls `import_all`.
"""

from __future__ import annotations

import importlib
import pkgutil

from github_mcp.pipeline import registry

TOOL_MODULES: tuple[str, ...] = tuple(
    sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))
)


def import_all() -> None:
    """Import (so register) every tools module not imported yet."""
    for name in TOOL_MODULES:
        importlib.import_module(f"{__name__}.{name}")


if not registry.tool_imports_deferred():
    import_all()
