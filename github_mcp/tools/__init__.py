"""MCP tool handlers, grouped by toolset. Importing this package registers them.

Every module in the package is imported by discovery, so a new tools module cannot be left
out by forgetting to list it; a module that is not a tools module starts with an underscore.
"""

from __future__ import annotations

import importlib
import pkgutil

TOOL_MODULES: tuple[str, ...] = tuple(
    sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))
)

for _name in TOOL_MODULES:
    importlib.import_module(f"{__name__}.{_name}")
