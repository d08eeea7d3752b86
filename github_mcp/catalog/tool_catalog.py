"""Which tools a session lists, and the tools that find and list the rest.

Every tool's name, description and input schema are context a model pays for on every
turn. A session lists a view of the registered tools:

- GITHUB_MCP_TOOLSETS=`default` (the default) lists the default toolsets (`default = true`
  in catalog/toolsets.toml; a toolset not marked there is never listed by default) and
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

The list is what a model is shown, not what the server allows: every served tool stays
callable by name (the write gate decides writes, as always), except that a read-only view
refuses write tools (the call seam, pipeline/seam.py). Free of the MCP framework: each
transport applies it with the view and enabled toolsets of its own client.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from github_mcp.catalog.tool_search import rank
from github_mcp.config import Settings, Toolset, listed_tools, listed_toolsets
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.pipeline.views import CATALOG_TOOLS, FALSE_WORDS, View, settings_view

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import Peer
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.tool_index import ToolEntry


def view_of(settings: Settings, headers: Mapping[str, str]) -> View:
    """The view of one request: the settings', or an HTTP client's own choice."""
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


def listed(entries: Mapping[str, ToolEntry], view: View, enabled: set[str]) -> list[str]:
    """The names a session lists, in the served order: its view, and the catalog tools
    only while enabling a toolset could list something more."""

    def shows(entry: ToolEntry) -> bool:
        return view.shows_tool(entry.name, entry.toolset, entry.write, enabled)

    hidden = any(
        not shows(entry) and not (view.read_only and entry.write)
        for name, entry in entries.items()
        if name not in CATALOG_TOOLS
    )
    return [
        name
        for name, entry in entries.items()
        if (hidden if name in CATALOG_TOOLS else shows(entry))
    ]


def find(rt: Runtime, query: str, limit: int, peer: Peer) -> list[dict[str, Any]]:
    """Served tools ranked for the query (tool_search.py); an empty query lists them
    all. Each says whether this session lists it."""
    view, enabled = peer.view, peer.enabled_toolsets
    specs = [s for s in rt.bound_specs.values() if s.name not in CATALOG_TOOLS]
    params = {s.name: rt.bound_specs.listed_input(s.name) for s in specs}
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


async def find_and_enable(
    rt: Runtime, query: str, limit: int, peer: Peer, *, enable_found: bool
) -> tuple[list[dict[str, Any]], list[str]]:
    """find(), then (when asked and the client keeps a session) the toolsets of the best
    ENABLE_TOP matches that are not listed yet are listed for this session; (the matches,
    each saying whether it is listed now, and the toolsets listed by this call)."""
    found = find(rt, query, limit, peer)
    if not (enable_found and peer.keeps_session):
        return found, []
    enabled = []
    for toolset in dict.fromkeys(f["toolset"] for f in found[:ENABLE_TOP] if not f["listed"]):
        if (await enable(rt, peer, toolset))[1]:
            enabled.append(toolset)
    view, listed = peer.view, peer.enabled_toolsets
    entries = rt.bound_specs.entries
    for match in found:
        entry = entries[match["name"]]
        match["listed"] = view.shows_tool(entry.name, entry.toolset, entry.write, listed)
    return found, enabled


async def enable(rt: Runtime, peer: Peer, name: str) -> tuple[list[str], bool]:
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
    view, enabled = peer.view, peer.enabled_toolsets
    tools = sorted(s.name for s in specs if not (view.read_only and s.write))
    if all(view.shows(s, enabled) for s in specs if s.name in tools):
        return tools, False  # listed already
    return tools, await peer.enable_toolset(toolset.value)
