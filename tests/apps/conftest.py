"""MCP clients that do and do not declare the MCP Apps extension."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from mcp.client.extension import ClientExtension

from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.server import build_mcp
from tests.apps.host import serve_with_host

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


HOST_TOKEN = "card-host-token-0123456789"


@pytest.fixture
def card_server(make_runtime):
    """A factory: the server over loopback HTTP (bearer HOST_TOKEN) with the local card
    host under /host/; yields (base url, runtime). The tool list is the default one, as a
    user's `make run` lists it: a card's button must work there."""

    @contextlib.contextmanager
    def start(**settings: Any) -> Iterator[tuple[str, Runtime]]:
        settings.setdefault("toolsets", "default")
        rt = make_runtime(auth_tokens=HOST_TOKEN, **settings)
        with serve_with_host(rt) as url:
            yield url, rt

    return start


@pytest.fixture
def screenshots(tmp_path) -> Path:
    """Where the cards' pictures go: APPS_SCREENSHOTS=docs saves them where the README
    shows them; otherwise a temporary folder."""
    return Path(os.environ.get("APPS_SCREENSHOTS") or tmp_path)
