"""MCP tool handlers, one home per domain: `tools/<domain>.py`, or a `tools/<domain>/`
package where one module would pass 400 lines (pulls, repos, meta). A domain's service is
`services/<domain>` (github_mcp/services/__init__.py has the map). Importing this package
registers every tool.

Every module in the package and its domain packages is imported by discovery, so a new
tools module cannot be left out by forgetting to list it; a module that is not a tools
module (`_bindings`, `pulls/_pull_targets`) starts with an underscore. The stdio start
defers this (registry.defer_tool_imports) to import a first call's module before the
others, then calls `import_all`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator

from github_mcp.pipeline import registry


def _public(path: Iterable[str], prefix: str = "") -> Iterator[str]:
    for info in pkgutil.iter_modules(path):
        if info.name.startswith("_"):
            continue
        if info.ispkg:
            yield from _public([f"{p}/{info.name}" for p in path], f"{prefix}{info.name}.")
        else:
            yield prefix + info.name


# dotted below github_mcp.tools, e.g. "issues", "pulls.automation"
TOOL_MODULES: tuple[str, ...] = tuple(sorted(_public(__path__)))


def import_all() -> None:
    """Import (so register) every tools module not imported yet."""
    for name in TOOL_MODULES:
        importlib.import_module(f"{__name__}.{name}")


if not registry.tool_imports_deferred():
    import_all()
