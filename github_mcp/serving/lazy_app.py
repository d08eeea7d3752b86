"""An ASGI app built on first use, so importing `main` stays cheap."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing `main` must not import starlette (see cli/entry.py)
    from starlette.types import ASGIApp, Receive, Scope, Send


class LazyApp:
    def __init__(self) -> None:
        self._app: ASGIApp | None = None

    def _build(self) -> ASGIApp:
        from github_mcp.config import Settings
        from github_mcp.monitoring.observability import configure_logging
        from github_mcp.pipeline.runtime import Runtime
        from github_mcp.serving.server import build_http_app

        settings = Settings()
        configure_logging(settings.log_level)
        host = os.environ.get("HOST", "0.0.0.0")  # noqa: S104 - PaaS binds all interfaces
        return build_http_app(
            Runtime.create(settings),
            host=host,
            stateless=os.environ.get("GITHUB_MCP_STATELESS") == "true",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._app is None:
            self._app = self._build()
        await self._app(scope, receive, send)
