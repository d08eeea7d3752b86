"""Which input schema the SDK checks a 2026-07-28 call's `Mcp-Param-*` headers against
(SEP-2243: a header must match the body's argument, and a declared argument in the body
needs its header; a failure is HTTP 400 with -32020 HeaderMismatch, before the call runs).

A client learns a tool's declarations from its listing. So a tool this client is shown
is checked in full; one it is not shown (a read-only view's write, a tool found with
find_tools and called by name) could not have been mirrored, and is checked only when
the request carries such a header: a gateway may act on a header, so none may disagree
with the body it travels with. Without this lookup the SDK lists every tool for each
call to find the schema.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastmcp.server.dependencies import get_http_headers

from github_mcp.catalog.tool_catalog import view_of

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

PARAM_HEADER_PREFIX = "mcp-param-"


def declared_input(rt: Runtime, name: str) -> dict[str, Any] | None:
    """The input schema to check tool `name`'s call against (None: nothing to check)."""
    entry = rt.bound_specs.entries.get(name)
    if entry is None:
        return None  # the call is refused as an unknown tool
    headers = get_http_headers(include_all=True)
    shown = view_of(rt.settings, headers).shows_tool(name, entry.toolset, entry.write, set())
    if shown or any(key.lower().startswith(PARAM_HEADER_PREFIX) for key in headers):
        return entry.input_schema
    return None
