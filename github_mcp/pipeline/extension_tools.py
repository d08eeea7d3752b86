"""The operator's own tools: `extra_tools.py`, when importable, registers them beside the
built-in ones (see that file in a checkout). Importing it loads only what it imports."""

from __future__ import annotations

import importlib
import importlib.util

EXTENSION_MODULE = "extra_tools"


def import_extension_tools(module: str = EXTENSION_MODULE) -> None:
    """Register the operator's tools. Only an absent module is skipped: an import error
    inside it (a typo, a missing dependency, an unknown toolset) stops the server."""
    from github_mcp.monitoring.observability import log_event

    if importlib.util.find_spec(module) is None:
        log_event("extension_tools_absent", module=module)
        return
    importlib.import_module(module)
