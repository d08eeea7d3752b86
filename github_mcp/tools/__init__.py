"""MCP tool handlers, grouped by toolset. Importing this package registers them.

Every module in the package is imported by discovery, so a new tools module cannot be left
out by forgetting to list it; a module that is not a tools module starts with an underscore.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

TOOL_MODULES: tuple[str, ...] = tuple(
    sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))
)

for _name in TOOL_MODULES:
    importlib.import_module(f"{__name__}.{_name}")

EXTENSION_MODULE = "extra_tools"


def import_extension_tools(module: str = EXTENSION_MODULE) -> None:
    """Register the operator's tools. Only an absent module is skipped: an import error
    inside it (a typo, a missing dependency, an unknown toolset) stops the server."""
    from github_mcp.monitoring.observability import log_event

    if importlib.util.find_spec(module) is None:
        log_event("extension_tools_absent", module=module)
        return
    importlib.import_module(module)
