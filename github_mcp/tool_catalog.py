"""Tools found on demand (GITHUB_MCP_TOOLS=core).

Every tool's name, description and input schema are context a model pays for on every
turn. In core mode a session whose client follows tool list changes (it declares
`experimental.tools.listChanged` in `initialize`) first lists a small core set plus
`find_tools` and `enable_toolset`; enabling a toolset adds it to that session's list and
sends `notifications/tools/list_changed`. A client that does not declare it could never
learn of the change, so it gets the full list, as does every client in `all` mode.

Every registered tool stays callable by name in every mode: the list is what a model is
shown, not what the server allows (the write gate decides that, as always).
"""

from __future__ import annotations

import contextlib
import re
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fastmcp.server.middleware import Middleware, MiddlewareContext

from .config import Toolset
from .errors import ErrorCode, GitHubMCPError

if TYPE_CHECKING:
    from .registry import ToolSpec
    from .runtime import Runtime

# Read a repository, batch and slice files, search, see a PR, make the common edit and
# open a PR: what most sessions need before they would look for anything else.
CORE_TOOLS = frozenset(
    {
        "get_me",
        "get_repository",
        "list_branches",
        "list_repository_tree",
        "get_file_contents",
        "get_file_slice",
        "fetch_files",
        "search",
        "get_issue",
        "list_pull_requests",
        "get_pr_overview",
        "create_branch",
        "apply_patch_and_commit",
        "create_pull_request",
    }
)
CATALOG_TOOLS = frozenset({"find_tools", "enable_toolset"})

# id of a connection -> toolsets its session enabled
_ENABLED: dict[int, set[str]] = {}


def follows_list_changes(session: Any) -> bool:
    """Whether the client said it re-reads tools/list on notifications/tools/list_changed."""
    capabilities = getattr(session, "client_capabilities", None)
    experimental = getattr(capabilities, "experimental", None) or {}
    tools = experimental.get("tools") if isinstance(experimental, dict) else None
    return isinstance(tools, dict) and tools.get("listChanged") is True


def deferred(rt: Runtime, session: Any) -> bool:
    return rt.settings.tools == "core" and session is not None and follows_list_changes(session)


def enabled_toolsets(session: Any) -> set[str]:
    # The MCP library hands each request its own session object over one connection
    # (unhashable): what a session enabled is kept by the connection's identity, and
    # dropped when the connection is collected.
    connection = getattr(session, "_connection", session)
    key = id(connection)
    found = _ENABLED.get(key)
    if found is None:
        found = _ENABLED[key] = set()
        with contextlib.suppress(TypeError):
            weakref.finalize(connection, _ENABLED.pop, key, None)
    return found


def listed(spec: ToolSpec, enabled: set[str]) -> bool:
    return spec.name in CORE_TOOLS or spec.name in CATALOG_TOOLS or spec.toolset.value in enabled


class ToolCatalogMiddleware(Middleware):
    """Shapes tools/list per session: the core set plus what it enabled, or every tool
    (find_tools and enable_toolset only where they can do something)."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    async def on_list_tools(self, context: MiddlewareContext, call_next: Any) -> Sequence[Any]:
        tools = await call_next(context)
        session = _session_of(context)
        specs = self.rt.bound_specs
        if not deferred(self.rt, session):
            return [t for t in tools if t.name not in CATALOG_TOOLS]
        enabled = enabled_toolsets(session)
        return [t for t in tools if t.name not in specs or listed(specs[t.name], enabled)]


def _session_of(context: MiddlewareContext) -> Any:
    ctx = context.fastmcp_context
    if ctx is None:
        return None
    try:
        return ctx.session
    except (RuntimeError, AttributeError):
        return None


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", text.lower()) if w}


def find(rt: Runtime, query: str, limit: int, session: Any) -> list[dict[str, Any]]:
    """Registered tools ranked by the query's words found in their name (counted twice),
    toolset and description; an empty query lists them all."""
    wanted = _words(query)
    enabled = enabled_toolsets(session) if deferred(rt, session) else None
    ranked: list[tuple[int, str, dict[str, Any]]] = []
    for spec in rt.bound_specs.values():
        if spec.name in CATALOG_TOOLS:
            continue
        name_words = _words(spec.name)
        score = 2 * len(wanted & name_words) + len(wanted & _words(spec.description))
        score += len(wanted & {spec.toolset.value})
        if wanted and not score:
            continue
        entry = {
            "name": spec.name,
            "toolset": spec.toolset.value,
            "description": spec.description,
            "write": spec.write,
            "listed": True if enabled is None else listed(spec, enabled),
        }
        ranked.append((-score, spec.name, entry))
    return [entry for _, _, entry in sorted(ranked)[:limit]]


async def enable(rt: Runtime, session: Any, name: str) -> tuple[list[str], bool]:
    """Add a toolset to the session's list; (its tools, whether the list changed)."""
    try:
        toolset = Toolset.parse(name)
    except ValueError as exc:
        raise GitHubMCPError(ErrorCode.INVALID_INPUT, str(exc)) from None
    tools = sorted(s.name for s in rt.bound_specs.values() if s.toolset == toolset)
    if not tools:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"Toolset {toolset.value!r} is not served here (GITHUB_MCP_TOOLSETS, read-only).",
        )
    if not deferred(rt, session):
        return tools, False  # every tool is listed already
    enabled = enabled_toolsets(session)
    if toolset.value in enabled:
        return tools, False
    enabled.add(toolset.value)
    await session.send_tool_list_changed()
    return tools, True
