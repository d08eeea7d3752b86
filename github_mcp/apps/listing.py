"""tools/list as one client sees it, the same over every transport: its view of the served
tools (catalog/tool_catalog.py), each as MCP puts it on the wire, and for a client that
renders MCP Apps the cards that show them.

Only a client that declared the UI extension (with the mcp-app MIME type) sees a tool's
`_meta.ui` and the app-only tools; the spec asks servers to check the client's capability
before offering UI. Every other client gets exactly what it got before the cards existed,
tool-list bytes included. Free of the MCP framework: the stdio server lists with it before
any framework could load, and the HTTP server's provider lists the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from github_mcp.apps.approval_card import DECIDE_TOOL, PROPOSED_WRITE_URI
from github_mcp.apps.catalog import card_calls, view_of_tool
from github_mcp.catalog.tool_catalog import listed
from github_mcp.kernel.params import without_repo_headers

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.views import View

UI_EXTENSION_ID = "io.modelcontextprotocol/ui"
UI_MIME_TYPE = "text/html;profile=mcp-app"


def declares_ui(capabilities: Any) -> bool:
    """Whether client capabilities (as on the wire) declare the MCP Apps extension with
    the card MIME type (its `mimeTypes` setting is required by the spec)."""
    extensions = capabilities.get("extensions") if isinstance(capabilities, Mapping) else None
    settings = extensions.get(UI_EXTENSION_ID) if isinstance(extensions, Mapping) else None
    mime_types = settings.get("mimeTypes") if isinstance(settings, Mapping) else None
    return isinstance(mime_types, list) and UI_MIME_TYPE in mime_types


def untrusted_host(settings: Settings, ui: bool) -> str | None:
    """Why the proposed-write card may not approve for this client (None: it may); see
    apps/approval_tool.py for the trust boundary."""
    if settings.approval_mode != "auto":
        return "this server does not ask humans itself (GITHUB_MCP_APPROVAL_MODE is not auto)"
    if settings.auth_mode == "oauth":
        return "a hosted deployment (GITHUB_MCP_AUTH=oauth) decides on its approval page"
    if len(settings.bearer_tokens) > 1:
        return "a server with several principals decides on its approval page"
    if not ui:
        return "this client did not declare the MCP Apps extension"
    return None


def tool_ui_meta(name: str, *, for_cards_only: bool = False) -> dict[str, Any] | None:
    """The `_meta` a UI client sees on tool `name` (None: no card shows it or calls it).
    `for_cards_only`: listed for the cards alone, not to the model (visibility app)."""
    view = view_of_tool().get(name)
    ui: dict[str, Any] = {"resourceUri": view.uri} if view is not None else {}
    if (view is not None and name in view.app_tools) or for_cards_only:
        ui["visibility"] = ["app"]
    if not ui:
        return None
    meta: dict[str, Any] = {"ui": ui}
    if view is not None and view.invoking and "visibility" not in ui:
        meta["openai/toolInvocation/invoking"] = view.invoking
        meta["openai/toolInvocation/invoked"] = view.invoked
    return meta


def callable_here(rt: Runtime, view: View, name: str) -> bool:
    """Whether a call of `name` can go through for this client: it is served, and it is
    not a write on a read-only connection (the write gate still decides each write)."""
    entry = rt.bound_specs.entries.get(name)
    return entry is not None and not (entry.write and view.read_only)


# On the result of a tool a card renders: which of the card's calls this session can make
# (a name -> bool map), so the card offers only the buttons that work here.
CALLABLE_META = "io.github.github-mcp-controller/card-calls"


def card_result_meta(rt: Runtime, view: View, tool: str) -> dict[str, Any] | None:
    """For a client that renders cards: the `_meta` a card's result carries about the
    calls its buttons make (None: no card renders this tool's result, or calls nothing)."""
    card = view_of_tool().get(tool)
    if card is None or not card.calls:
        return None
    return {CALLABLE_META: {name: callable_here(rt, view, name) for name in card.calls}}


def tool_list(
    rt: Runtime, view: View, enabled: set[str], *, ui: bool, headers: bool = True
) -> list[dict[str, Any]]:
    """The tools/list `tools` array for one client (see the module docstring). `headers`:
    keep the repository arguments' `x-mcp-header` declarations (HTTP, where a client
    mirrors them into headers); stdio has no headers, so it lists the schemas without."""
    served = rt.bound_specs
    trusted = untrusted_host(rt.settings, ui) is None
    cards = view_of_tool()
    model_sees = set(listed(served.entries, view, enabled))
    # a client that shows cards also lists the tools the cards call, for the cards alone
    for_cards = (card_calls() - model_sees) if ui else set()
    shown = []
    for name in [n for n in served.entries if n in model_sees or n in for_cards]:
        entry = served.entries[name]
        if (entry.app_only and not ui) or (name == DECIDE_TOOL and not trusted):
            continue
        if name in for_cards and entry.write and view.read_only:
            continue
        schema = served.listed_input(name)
        tool: dict[str, Any] = {
            "name": name,
            "description": entry.description,
            "inputSchema": schema if headers else without_repo_headers(schema),
        }
        if rt.settings.output_schemas and entry.output_schema is not None:
            tool["outputSchema"] = entry.output_schema
        tool["annotations"] = entry.annotations
        meta = tool_ui_meta(name, for_cards_only=name in for_cards) if ui else None
        if ui and meta is None and entry.write and name not in cards:
            meta = {"ui": {"resourceUri": PROPOSED_WRITE_URI}}  # the proposed-write card
        if meta is not None:
            tool["_meta"] = meta
        shown.append(tool)
    return shown
