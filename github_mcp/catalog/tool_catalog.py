"""Which tools a session lists, and the tools that find and list the rest.

Every tool's name, description and input schema are context a model pays for on every
turn. A session lists a view of the registered tools:

- GITHUB_MCP_TOOLSETS=`default` (the default) lists the default toolsets (DEFAULT_TOOLSETS
  in config/fields/_access.py; a toolset not named there is never listed by default) and
  the few most used tools of some others (DEFAULT_TOOLS);
  `all` lists every toolset; names list those.
- GITHUB_MCP_TOOLS=core lists CORE_TOOLS only.
- Over HTTP a client may choose its own view, as the official GitHub server's hosted
  endpoint does: `/mcp/readonly`, `/mcp/x/<toolset>[/readonly]`, and the headers
  `X-MCP-Toolsets`, `X-MCP-Tools` (tool names) and `X-MCP-Readonly`.

When some registered tool is not listed, `find_tools` and `enable_toolset` are: enabling a
toolset lists it for that session and sends `notifications/tools/list_changed` (the server
declares `tools.listChanged`, so any client that follows the standard capability re-lists).
`find_tools` enables the toolsets of its best matches itself unless told not to, so a new
area costs one call.

The list is what a model is shown, not what the server allows: every registered tool stays
callable by name (the write gate decides writes, as always), except that a read-only view
(`/readonly`, `X-MCP-Readonly`) refuses write tools.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from fastmcp.server.dependencies import get_http_headers
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from mcp.types import TextContent

from github_mcp.catalog.tool_search import rank
from github_mcp.catalog.views import CATALOG_TOOLS, FALSE_WORDS, View, settings_view
from github_mcp.config import Toolset, listed_tools, listed_toolsets
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.pipeline.tool_binding import listing_only

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

# id of a connection -> toolsets its session enabled
_ENABLED: dict[int, set[str]] = {}


def request_view(rt: Runtime) -> View:
    """The view of the current request: the settings', or the HTTP client's own choice."""
    settings = rt.settings
    headers = get_http_headers(include_all=True)
    chosen = headers.get("x-mcp-toolsets", "").strip()
    tools = frozenset(t.strip() for t in headers.get("x-mcp-tools", "").split(",") if t.strip())
    read_only = settings.read_only or (
        "x-mcp-readonly" in headers and headers["x-mcp-readonly"].strip().lower() not in FALSE_WORDS
    )
    if chosen:
        toolsets = listed_toolsets(chosen, settings.toolset_list)  # unknown names: ignored
        return View(toolsets, tools | listed_tools(chosen), read_only=read_only)
    if tools:
        return View(frozenset(), tools, read_only=read_only)  # those tools alone
    return dataclasses.replace(settings_view(settings), read_only=read_only)


def enabled_toolsets(session: Any) -> set[str]:
    # The MCP library hands each request its own session object over one connection
    # (unhashable): what a session enabled is kept by the connection's identity, and
    # dropped when the connection is collected.
    if session is None:
        return set()
    connection = getattr(session, "_connection", session)
    key = id(connection)
    found = _ENABLED.get(key)
    if found is None:
        found = _ENABLED[key] = set()
        with contextlib.suppress(TypeError):
            weakref.finalize(connection, _ENABLED.pop, key, None)
    return found


def _hidden(rt: Runtime, view: View, enabled: set[str]) -> bool:
    """Whether enable_toolset could list anything more for this session."""
    return any(
        not view.shows(spec, enabled) and not (view.read_only and spec.write)
        for name, spec in rt.bound_specs.items()
        if name not in CATALOG_TOOLS
    )


class ToolCatalogMiddleware(Middleware):
    """Shapes tools/list per session (see the module docstring); refuses write calls in a
    read-only view."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        # Tools listed to this request's client beyond its view, for something other than
        # the model (the cards of an MCP Apps host, apps/wiring.py, which marks them so).
        self.also_listed: Callable[[MiddlewareContext], frozenset[str]] | None = None

    async def on_list_tools(self, context: MiddlewareContext, call_next: Any) -> Sequence[Any]:
        view = request_view(self.rt)
        enabled = enabled_toolsets(_session_of(context))
        specs = self.rt.bound_specs
        catalog = _hidden(self.rt, view, enabled)
        extra = self.also_listed(context) if self.also_listed else frozenset()

        def shows(name: str) -> bool:
            if name not in specs:
                return True
            if name in extra and not (view.read_only and specs[name].write):
                return True
            return catalog if name in CATALOG_TOOLS else view.shows(specs[name], enabled)

        with listing_only(shows):  # tools are built when first shown: build only these
            tools = await call_next(context)
        order = {name: i for i, name in enumerate(specs)}
        listed = [t for t in tools if shows(t.name)]
        return sorted(listed, key=lambda t: order.get(t.name, len(order)))

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
        spec = self.rt.bound_specs.get(getattr(context.message, "name", ""))
        if spec is not None and spec.write and request_view(self.rt).read_only:
            return _refusal(spec.name)
        return await call_next(context)


def _refusal(name: str) -> ToolResult:
    error = GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        f"{name} writes, and this connection is read-only (/readonly or X-MCP-Readonly).",
        hint="Connect without /readonly and X-MCP-Readonly to write.",
    )
    envelope = error.envelope(None)
    text = json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)
    return ToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=envelope,
        is_error=True,
    )


def model_sees(rt: Runtime, context: MiddlewareContext, name: str) -> bool:
    """Whether this request's session lists `name` to its model (its view and what it
    enabled), as on_list_tools decides it."""
    spec = rt.bound_specs.get(name)
    if spec is None:
        return False
    return request_view(rt).shows(spec, enabled_toolsets(_session_of(context)))


def callable_here(rt: Runtime, name: str) -> bool:
    """Whether a call of `name` can go through on this request: it is served, and it is not
    a write on a read-only connection (the write gate still decides each write)."""
    spec = rt.bound_specs.get(name)
    return spec is not None and not (spec.write and request_view(rt).read_only)


def _session_of(context: MiddlewareContext) -> Any:
    ctx = context.fastmcp_context
    if ctx is None:
        return None
    try:
        return ctx.session
    except (RuntimeError, AttributeError):
        return None


def find(rt: Runtime, query: str, limit: int, session: Any) -> list[dict[str, Any]]:
    """Registered tools ranked for the query (tool_search.py); an empty query lists them
    all. Each says whether this session lists it."""
    view = request_view(rt)
    enabled = enabled_toolsets(session)
    specs = [s for s in rt.bound_specs.values() if s.name not in CATALOG_TOOLS]
    params = {s.name: rt.tool_schemas[s.name][0] for s in specs}
    return [
        {
            "name": spec.name,
            "toolset": spec.toolset.value,
            "description": spec.description,
            "write": spec.write,
            "listed": view.shows(spec, enabled),
        }
        for spec in rank(specs, params, query)[:limit]
    ]


# find_tools lists the toolsets of its best few matches (enable=true, the default), so a new
# area costs one call, not find_tools and then enable_toolset.
ENABLE_TOP = 3


def keeps_session(session: Any) -> bool:
    """Whether this client keeps a session the server can list more tools for (and tell with
    tools/list_changed): stdio, or HTTP on a handshake-era protocol. The 2026 revision's
    requests each stand alone, with no session to remember what was enabled."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    connection = getattr(session, "_connection", None)
    version = getattr(connection, "protocol_version", None)
    return connection is not None and version in HANDSHAKE_PROTOCOL_VERSIONS


async def find_and_enable(
    rt: Runtime, query: str, limit: int, session: Any, *, enable_found: bool
) -> tuple[list[dict[str, Any]], list[str]]:
    """find(), then (when asked and the client keeps a session) the toolsets of the best
    ENABLE_TOP matches that are not listed yet are listed for this session; (the matches,
    each saying whether it is listed now, and the toolsets listed by this call)."""
    found = find(rt, query, limit, session)
    if not (enable_found and keeps_session(session)):
        return found, []
    enabled = []
    for toolset in dict.fromkeys(f["toolset"] for f in found[:ENABLE_TOP] if not f["listed"]):
        if (await enable(rt, session, toolset))[1]:
            enabled.append(toolset)
    view, listed = request_view(rt), enabled_toolsets(session)
    for match in found:
        match["listed"] = view.shows(rt.bound_specs[match["name"]], listed)
    return found, enabled


async def enable(rt: Runtime, session: Any, name: str) -> tuple[list[str], bool]:
    """Add a toolset to the session's list; (its tools, whether the list changed)."""
    try:
        toolset = Toolset.parse(name)
    except ValueError as exc:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            str(exc),
            hint=("find_tools lists the toolsets and their tools; give one of those names."),
        ) from None
    specs = [s for s in rt.bound_specs.values() if s.toolset == toolset]
    if not specs:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"Toolset {toolset.value!r} is not served here (GITHUB_MCP_TOOLSETS, read-only).",
            hint=(
                "The operator must add it to GITHUB_MCP_TOOLSETS (and turn off read- "
                "only for write toolsets); get_server_config shows what is served."
            ),
        )
    view = request_view(rt)
    tools = sorted(s.name for s in specs if not (view.read_only and s.write))
    enabled = enabled_toolsets(session)
    if session is None or all(view.shows(s, enabled) for s in specs if s.name in tools):
        return tools, False  # listed already
    enabled.add(toolset.value)
    await session.send_tool_list_changed()
    return tools, True
