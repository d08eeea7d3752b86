"""Serves the cards as ui:// resources and links them from tools/list, per session.

Only a client that declared the UI extension (with the mcp-app MIME type) sees a tool's
`_meta.ui`, the ui:// resources in resources/list, and app-only tools; the spec asks
servers to check the client's capability before offering UI. Every other client gets
exactly what it got before the cards existed, tool-list bytes included.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fastmcp import Context, FastMCP
from fastmcp.apps import UI_EXTENSION_ID, UI_MIME_TYPE, AppConfig, ResourceCSP
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from mcp.types import TextContent

from github_mcp.apps.catalog import VIEWS, View, app_only_tools, card_calls, view_of_tool
from github_mcp.catalog.tool_catalog import ToolCatalogMiddleware, callable_here, model_sees
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

# The cards load nothing and connect nowhere: every network list is empty.
NO_NETWORK = ResourceCSP(connect_domains=[], resource_domains=[], frame_domains=[])


def install_apps(mcp: FastMCP) -> None:
    """Register every card as a ui:// resource and the middleware that links them. The
    tools the cards call are listed to a client that shows cards (tool_catalog's
    `also_listed`), for the cards where the session's list leaves them out."""
    for view in VIEWS:
        _register(mcp, view)
    catalog = next((m for m in mcp.middleware if isinstance(m, ToolCatalogMiddleware)), None)
    if catalog is not None:
        calls = card_calls()
        catalog.also_listed = lambda context: calls if supports_ui(context) else frozenset()
    mcp.add_middleware(AppsMiddleware(catalog.rt if catalog is not None else None))


def _register(mcp: FastMCP, view: View) -> None:
    html = view.html()  # read once: a missing build fails at start, not on first use

    @mcp.resource(
        view.uri,
        name=view.name,
        title=view.title,
        description=view.description,
        mime_type=UI_MIME_TYPE,
        app=AppConfig(csp=NO_NETWORK, prefers_border=True),
    )
    def card() -> str:
        return html


def supports_ui(context: MiddlewareContext[Any]) -> bool:
    """Whether this request's client declared io.modelcontextprotocol/ui with the
    mcp-app MIME type (its `mimeTypes` setting is required by the spec)."""
    return client_shows_cards(context.fastmcp_context)


def client_shows_cards(ctx: Context | None) -> bool:
    """`supports_ui` for a tool's own context."""
    if ctx is None:
        return False
    settings = ctx.client_extension_settings(UI_EXTENSION_ID)
    if settings is None:
        try:
            caps = ctx.session.client_capabilities
        except (RuntimeError, AttributeError):
            return False
        declared = getattr(caps, "extensions", None) if caps is not None else None
        if declared is None and caps is not None:
            declared = (caps.model_extra or {}).get("extensions")
        settings = (declared or {}).get(UI_EXTENSION_ID)
    if not isinstance(settings, dict):
        return False
    mime_types = settings.get("mimeTypes")
    return isinstance(mime_types, list) and UI_MIME_TYPE in mime_types


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


# On the result of a tool a card renders: which of the card's calls this session can make
# (a name -> bool map), so the card offers only the buttons that work here.
CALLABLE_META = "io.github.github-mcp-controller/card-calls"


class AppsMiddleware(Middleware):
    def __init__(self, rt: Runtime | None = None) -> None:
        self.rt = rt

    async def on_list_tools(self, context: MiddlewareContext, call_next: Any) -> Sequence[Any]:
        tools = await call_next(context)
        if not supports_ui(context):
            hidden = app_only_tools()
            return [t for t in tools if t.name not in hidden]
        calls, linked = card_calls(), []
        for t in tools:
            only_cards = (
                t.name in calls and self.rt is not None and not model_sees(self.rt, context, t.name)
            )
            meta = tool_ui_meta(t.name, for_cards_only=only_cards)
            linked.append(t if meta is None else t.model_copy(update={"meta": meta}))
        return linked

    async def on_list_resources(self, context: MiddlewareContext, call_next: Any) -> Sequence[Any]:
        listed = await call_next(context)
        if supports_ui(context):
            return listed
        return [r for r in listed if not str(r.uri).startswith("ui://")]

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
        name = getattr(context.message, "name", "")
        ui = supports_ui(context)
        if name in app_only_tools() and not ui:
            return _app_only_refusal(name)
        result = await call_next(context)
        view = view_of_tool().get(name)
        if not ui or view is None or not view.calls or self.rt is None:
            return result
        rt = self.rt
        can = {tool: callable_here(rt, tool) for tool in view.calls}
        if isinstance(result, ToolResult):
            result.meta = {**(result.meta or {}), CALLABLE_META: can}
        return result


def _app_only_refusal(name: str) -> ToolResult:
    error = GitHubMCPError(
        ErrorCode.NOT_FOUND,
        "Unknown tool.",
        hint=f"{name} is for the interactive card of a client with MCP Apps.",
    )
    envelope = error.envelope(None)
    text = json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)
    return ToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=envelope,
        is_error=True,
    )
