"""Serves the cards as ui:// resources and links them from tools/list, per session.

Only a client that declared the UI extension (with the mcp-app MIME type) sees a tool's
`_meta.ui`, the ui:// resources in resources/list, and app-only tools; the spec asks
servers to check the client's capability before offering UI. Every other client gets
exactly what it got before the cards existed, tool-list bytes included.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from fastmcp import Context, FastMCP
from fastmcp.apps import UI_EXTENSION_ID, UI_MIME_TYPE, AppConfig, ResourceCSP
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from mcp.types import TextContent

from github_mcp.apps.catalog import VIEWS, View, app_only_tools, view_of_tool
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError

# The cards load nothing and connect nowhere: every network list is empty.
NO_NETWORK = ResourceCSP(connect_domains=[], resource_domains=[], frame_domains=[])


def install_apps(mcp: FastMCP) -> None:
    """Register every card as a ui:// resource and the middleware that links them."""
    for view in VIEWS:
        _register(mcp, view)
    mcp.add_middleware(AppsMiddleware())


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


def tool_ui_meta(name: str) -> dict[str, Any] | None:
    """The `_meta` a UI client sees on tool `name` (None: no card shows it)."""
    view = view_of_tool().get(name)
    if view is None:
        return None
    ui: dict[str, Any] = {"resourceUri": view.uri}
    if name in view.app_tools:
        ui["visibility"] = ["app"]
    meta: dict[str, Any] = {"ui": ui}
    if view.invoking and name not in view.app_tools:
        meta["openai/toolInvocation/invoking"] = view.invoking
        meta["openai/toolInvocation/invoked"] = view.invoked
    return meta


class AppsMiddleware(Middleware):
    async def on_list_tools(self, context: MiddlewareContext, call_next: Any) -> Sequence[Any]:
        tools = await call_next(context)
        if not supports_ui(context):
            hidden = app_only_tools()
            return [t for t in tools if t.name not in hidden]
        linked = []
        for t in tools:
            meta = tool_ui_meta(t.name)
            linked.append(t if meta is None else t.model_copy(update={"meta": meta}))
        return linked

    async def on_list_resources(self, context: MiddlewareContext, call_next: Any) -> Sequence[Any]:
        listed = await call_next(context)
        if supports_ui(context):
            return listed
        return [r for r in listed if not str(r.uri).startswith("ui://")]

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
        name = getattr(context.message, "name", "")
        if name in app_only_tools() and not supports_ui(context):
            return _app_only_refusal(name)
        return await call_next(context)


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
