"""Hosted sign-in fixtures: the server in OAuth mode on a loopback port known before it
is built (the port names the OAuth resource and GitHub's callback), the forge as GitHub,
and a headless Chromium that signs users in on the forge's real login pages."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from github_mcp.config import Settings
from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.server import build_http_app


@dataclass
class Exchange:
    """One HTTP exchange the server saw, secrets elided (for the flow transcript)."""

    method: str
    path: str
    status: int | None
    query_keys: list[str] = field(default_factory=list)
    location: str | None = None


class Recorder:
    """ASGI wrapper recording each request line, its status and redirect target."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.exchanges: list[Exchange] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = scope.get("query_string", b"").decode("latin-1")
        keys = sorted({part.split("=", 1)[0] for part in query.split("&") if part})
        exchange = Exchange(scope["method"], scope["path"], None, keys)
        self.exchanges.append(exchange)

        async def recording_send(message: Any) -> None:
            if message["type"] == "http.response.start":
                exchange.status = message["status"]
                for name, value in message.get("headers", []):
                    if name.lower() == b"location":
                        exchange.location = value.decode("latin-1").split("?", 1)[0]
            await send(message)

        await self.app(scope, receive, recording_send)


@dataclass
class OAuthServer:
    base_url: str
    rt: Runtime
    settings: Settings
    client_id: str
    client_secret: str
    recorder: Recorder
    app: Any

    @property
    def mcp_url(self) -> str:
        return self.base_url + "/mcp"


def _bound_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


@contextlib.contextmanager
def serve_on(sock: socket.socket, app: Any) -> Iterator[None]:
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="oauth-uvicorn", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def register_forge_app(
    forge: Any, callback_url: str, *, expiring: bool = True, **lifetimes: int
) -> tuple[str, str]:
    """An OAuth app on the forge, registered through its admin API as the server does."""
    app = forge.register_oauth_app(
        name="GitHub MCP Controller (tests)",
        callback_urls=[callback_url],
        expiring=expiring,
        **lifetimes,
    )
    return app["client_id"], app["client_secret"]


@pytest.fixture
def oauth_server(forge, tmp_path: Path):
    """A factory: start the server in OAuth mode; returns an OAuthServer."""
    started: list[tuple[contextlib.ExitStack, Runtime]] = []

    def start(
        *, expiring_app: bool = True, github_token_ttl: int = 28800, **overrides: Any
    ) -> OAuthServer:
        """expiring_app: a GitHub App (user tokens living github_token_ttl seconds, with
        refresh tokens) or, False, an OAuth App (tokens that never expire, no refresh)."""
        sock = _bound_socket()
        port = sock.getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        if "oauth_client_id" in overrides:
            client_id = overrides["oauth_client_id"]
            client_secret = overrides["oauth_client_secret"]
        else:
            lifetimes = {"access_token_ttl_seconds": github_token_ttl} if expiring_app else {}
            client_id, client_secret = register_forge_app(
                forge, base + "/auth/callback", expiring=expiring_app, **lifetimes
            )
        values: dict[str, Any] = {
            "github_api_url": forge.base_url,
            "auth_mode": "oauth",
            "oauth_client_id": client_id,
            "oauth_client_secret": client_secret,
            "allowed_users": "alice,bob",
            "state_dir": tmp_path / f"state-{port}",
            "audit_log": tmp_path / f"audit-{port}.jsonl",
            "workspace_dir": tmp_path / f"workspaces-{port}",
        }
        values.update(overrides)
        settings = Settings(**values)
        rt = Runtime.create(settings, retry_base_delay=0.01)
        app = build_http_app(rt, host="127.0.0.1", port=port)
        recorder = Recorder(app)
        stack = contextlib.ExitStack()
        stack.enter_context(serve_on(sock, recorder))
        started.append((stack, rt))
        return OAuthServer(base, rt, settings, client_id, client_secret, recorder, app)

    yield start
    for stack, _ in started:
        stack.close()
