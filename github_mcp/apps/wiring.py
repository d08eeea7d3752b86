"""Serves the cards as ui:// resources and links them from tools/list, per session.

Only a client that declared the UI extension (with the mcp-app MIME type) sees a tool's
`_meta.ui`, the ui:// resources in resources/list, and app-only tools; the spec asks
servers to check the client's capability before offering UI. Every other client gets
exactly what it got before the cards existed, tool-list bytes included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastmcp import Context, FastMCP
from fastmcp.apps import AppConfig, ResourceCSP
from fastmcp.server.middleware import Middleware, MiddlewareContext

from github_mcp.apps.catalog import VIEWS, View
from github_mcp.apps.listing import CALLABLE_META as CALLABLE_META
from github_mcp.apps.listing import UI_EXTENSION_ID, UI_MIME_TYPE, declares_ui

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
    """`supports_ui` for a request's context."""
    if ctx is None:
        return False
    settings = ctx.client_extension_settings(UI_EXTENSION_ID)
    if settings is not None:
        return declares_ui({"extensions": {UI_EXTENSION_ID: settings}})
    try:
        caps = ctx.session.client_capabilities
    except (RuntimeError, AttributeError):
        return False
    if caps is None:
        return False
    return declares_ui(caps.model_dump(by_alias=True, exclude_none=True, mode="json"))


class AppsMiddleware(Middleware):
    """resources/list: the ui:// cards only for a client that renders them (tools/list
    is apps/listing.py's, on every transport)."""

    async def on_list_resources(self, context: MiddlewareContext, call_next: Any) -> Sequence[Any]:
        listed: Sequence[Any] = await call_next(context)
        if supports_ui(context):
            return listed
        return [r for r in listed if not str(r.uri).startswith("ui://")]
