"""An HTTP server that listens from the first moment of its start.

Importing the MCP stack and building the server takes most of a start (over a second of
CPU on a small machine), and a restarted replica is dead to its orchestrator until its
port answers. So `serve --transport http` opens the port first and builds the app in a
thread. Meanwhile `/healthz` (liveness: this process serves) answers 200 and `/readyz`
503 "starting", so no load balancer sends work yet; both say no more than a probe needs,
as the app's Host and Origin checks do not exist yet. Every other request waits for the
app and is then served as usual. If the build fails, the server stops with the build's
message, as a start that failed before listening would.

The app's own lifespan (the MCP session manager) runs inside one task from the moment
the app is built until shutdown.

Behind a proxy that has no readiness probes (nginx), a request the proxy sends to a
restarting replica would wait for that build; with GITHUB_MCP_LISTEN_WHEN_READY the app
is built first (`build_now`) and the port opens after it, so the proxy's connection is
refused and it passes the request to another replica.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from github_mcp.monitoring.observability import log_event

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.types import Receive, Scope, Send

LIVENESS = ("/healthz", "/health")
PROBES = (*LIVENESS, "/readyz")
_log = logging.getLogger(__name__)


class StartingApp:
    def __init__(self, build: Callable[[], Starlette]) -> None:
        self._build = build
        self._app: Starlette | None = None
        self._ready = asyncio.Event()
        self._stopping = asyncio.Event()
        self._failure: BaseException | None = None
        self._task: asyncio.Task[None] | None = None
        # Called when the build fails, to stop the server (set by serve_http).
        self.on_failure: Callable[[], None] = lambda: None
        # Called once the app is built, before it serves (the collector's tuning).
        self.on_built: Callable[[], None] = lambda: None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(scope, receive, send)
            return
        app = self._app
        if app is None:
            if scope["type"] == "http" and scope["path"] in PROBES:
                await self._starting(scope["path"], send)
                return
            await self._ready.wait()
            if self._app is None:  # the build failed: the server is stopping
                await _send_json(send, 503, {"status": "stopping"})
                return
            app = self._app
        await app(scope, receive, send)

    async def _starting(self, path: str, send: Send) -> None:
        # Before the app (and its Host/Origin guard) exists, say only what a probe needs.
        if path == "/readyz":
            body = {"status": "not_ready", "checks": {"server": "starting"}}
            await _send_json(send, 503, body)
            return
        await _send_json(send, 200, {"status": "ok", "starting": True})

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        await receive()  # lifespan.startup
        self._task = asyncio.create_task(self._serve(scope.get("state")))
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        self._stopping.set()
        await self._task
        await send({"type": "lifespan.shutdown.complete"})

    async def _serve(self, state: dict[str, Any] | None) -> None:
        """Build the app off the event loop, then hold its lifespan open until shutdown."""
        try:
            app = await asyncio.to_thread(self._build)
        except BaseException as exc:  # SystemExit carries a configuration message
            self._fail(exc)
            return
        self.on_built()
        async with app.router.lifespan_context(app) as app_state:
            if state is not None and app_state:
                state.update(app_state)  # each request's scope copies this dict
            self._app = app
            self._ready.set()
            log_event("http_app_ready")
            await self._stopping.wait()

    def _fail(self, exc: BaseException) -> None:
        self._failure = exc
        message = str(exc) if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {exc}"
        print(f"github-mcp-controller: {message}", file=sys.stderr)
        _log.error("http_app_build_failed", exc_info=not isinstance(exc, SystemExit))
        self._ready.set()
        self.on_failure()

    def build_now(self) -> Starlette:
        """The app, built before the port opens (GITHUB_MCP_LISTEN_WHEN_READY): the
        server then runs its lifespan itself. A failed build raises, as any start that
        fails before listening does."""
        app = self._build()
        self.on_built()
        return app

    @property
    def failed(self) -> bool:
        return self._failure is not None


async def _send_json(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body, separators=(",", ":")).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        (b"cache-control", b"no-store"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
