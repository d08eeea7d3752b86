"""MCP clients that do and do not declare the MCP Apps extension."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastmcp import Client
from mcp.client.extension import ClientExtension

from github_mcp.runtime import Runtime
from github_mcp.server import build_mcp

UI_EXTENSION = "io.modelcontextprotocol/ui"
UI_MIME = "text/html;profile=mcp-app"


class McpAppsHost(ClientExtension):
    """What a host that renders cards declares at initialize (MCP Apps spec)."""

    identifier = UI_EXTENSION

    def __init__(self, mime_types: list[str] | None = None) -> None:
        self.mime_types = [UI_MIME] if mime_types is None else mime_types

    def settings(self) -> dict[str, Any]:
        return {"mimeTypes": self.mime_types}


@asynccontextmanager
async def ui_client(rt: Runtime, mime_types: list[str] | None = None) -> AsyncIterator[Client]:
    async with Client(build_mcp(rt), extensions=[McpAppsHost(mime_types)]) as client:
        yield client
