"""Streamable HTTP sessions end cleanly: an abandoned session is reaped after the idle
timeout (its approval with it), and past the session cap a new session gets HTTP 503
with a JSON-RPC error while the open ones keep working. Over real HTTP (uvicorn on
loopback), with the handshake-era protocol, which is the one that has sessions."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2 as httpx
import pytest
from pydantic import ValidationError

from github_mcp.config import Settings
from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.conftest import DEMO_REPO
from tests.security.test_principals import RawClient

TOKEN = "sessions-token-0123456789"
PROTOCOL = "2025-06-18"
READ = ("get_file_contents", {"full_name": DEMO_REPO, "path": "README.md", "ref": "main"})


@pytest.fixture
def http_server(make_runtime):
    @contextmanager
    def start(stateless: bool = False, **settings: Any) -> Iterator[tuple[str, Runtime]]:
        settings.setdefault("approval_mode", "tool")  # approval scoping via the model's toggle
        rt = make_runtime(auth_tokens=TOKEN, **settings)
        with serve_in_thread(build_http_app(rt, stateless=stateless)) as url:
            yield url, rt

    return start


def status_figures(url: str) -> dict[str, str]:
    """The sessions figures shown on /status, by element id."""
    page = httpx.get(url + "/status", headers={"Authorization": f"Bearer {TOKEN}"})
    assert page.status_code == 200
    return dict(re.findall(r'id="(sessions-[a-z-]+)"[^>]*>([^<]*)<', page.text))


def wait_for_open_sessions(url: str, expected: int, deadline_s: float = 120) -> None:
    """Poll /status (which never touches a session) until `expected` are open."""
    deadline = time.monotonic() + deadline_s
    while True:
        seen = status_figures(url)["sessions-open"]
        if seen == str(expected):
            return
        assert time.monotonic() < deadline, f"{seen} sessions still open, expected {expected}"
        time.sleep(0.05)


def test_abandoned_session_is_reaped_after_idle_timeout_and_its_approval_goes(http_server):
    # long enough that a loaded machine's pause between the first calls does not reap it
    with http_server(session_idle_timeout_seconds=3) as (url, rt):
        client = RawClient(url, TOKEN, PROTOCOL)
        session = client.initialize()
        status, granted = client.call("authorize_write_actions", {"approved": True}, session)
        assert status == 200 and granted["structuredContent"]["scope"] == "session"
        status, read = client.call(*READ, session)
        assert status == 200 and not read["isError"]
        assert rt.gate.active_approvals() == 1
        figures = status_figures(url)
        assert figures["sessions-idle-timeout"] == "3"
        assert figures["sessions-open"] in ("0", "1")  # 0 once it has already been reaped

        # The client goes away without DELETE; the server closes the session itself.
        wait_for_open_sessions(url, 0)
        status, _ = client.call(*READ, session)
        assert status == 404  # the reaped session is gone for good
        assert rt.gate.active_approvals() == 0

        fresh = client.initialize()  # a client starts over as the protocol says
        status, read = client.call(*READ, fresh)
        assert status == 200 and not read["isError"]


def test_new_session_past_the_cap_gets_503_and_open_sessions_keep_working(http_server):
    with http_server(max_sessions=2) as (url, _rt):
        clients = [RawClient(url, TOKEN, PROTOCOL) for _ in range(3)]
        sessions = [clients[0].initialize(), clients[1].initialize()]
        assert status_figures(url) == {
            "sessions-open": "2",
            "sessions-max": "2",
            "sessions-idle-timeout": "600",
            "sessions-asleep": "0",
        }

        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "third", "version": "1"},
            },
        }
        refused = httpx.post(clients[2].url, json=init, headers=clients[2].headers(None))
        assert refused.status_code == 503
        assert "mcp-session-id" not in refused.headers
        body = refused.json()
        assert body["jsonrpc"] == "2.0" and body["error"]["code"] == -32603
        assert "Too many open sessions" in body["error"]["message"]
        page = httpx.get(url + "/status", headers={"Authorization": f"Bearer {TOKEN}"}).text
        assert "new sessions are refused" in page

        for client, session in zip(clients, sessions, strict=False):
            status, read = client.call(*READ, session)
            assert status == 200 and not read["isError"], read

        # One client ends its session; the room it frees takes a new one.
        ended = httpx.delete(clients[0].url, headers=clients[0].headers(sessions[0]))
        assert ended.status_code == 200
        wait_for_open_sessions(url, 1)
        third = clients[2].initialize()
        status, read = clients[2].call(*READ, third)
        assert status == 200 and not read["isError"]
        status, read = clients[1].call(*READ, sessions[1])
        assert status == 200 and not read["isError"]


def test_stateless_server_keeps_no_sessions(http_server):
    with http_server(stateless=True, max_sessions=1) as (url, _rt):
        client = RawClient(url, TOKEN, PROTOCOL)
        for _ in range(3):  # more calls than the cap: no session is held for any of them
            status, read = client.call(*READ, None)
            assert status == 200 and not read["isError"]
        page = httpx.get(url + "/status", headers={"Authorization": f"Bearer {TOKEN}"}).text
        assert "stateless HTTP: no sessions are kept" in page


@pytest.mark.parametrize(
    "bad",
    [
        {"max_sessions": 0},
        {"session_idle_timeout_seconds": 0},
        {"session_idle_timeout_seconds": -5},
        {"session_idle_timeout_seconds": float("inf")},
    ],
)
def test_session_limits_must_be_positive(bad):
    with pytest.raises(ValidationError):
        Settings(**bad)


def test_session_limits_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("GITHUB_MCP_SESSION_IDLE_TIMEOUT_SECONDS", "45")
    monkeypatch.setenv("GITHUB_MCP_MAX_SESSIONS", "7")
    settings = Settings()
    assert (settings.session_idle_timeout_seconds, settings.max_sessions) == (45.0, 7)
