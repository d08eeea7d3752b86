"""Abandoned sessions leave nothing behind once reaped: after several clients initialize,
enable a toolset, approve writes, read, and disappear without DELETE, the idle timeout
closes their sessions and every per-session record our server keeps is gone (the library's
session table, the toolsets each session enabled, the read ledger, the approvals). A
regression here is memory that grows with every abandoned session. Over real HTTP."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import itertools
import time
import tracemalloc
from typing import Any

import httpx2 as httpx
import pytest
from mcp.server.auth.middleware.auth_context import auth_context_var

from github_mcp.hosted.bearer_tokens import BearerTokens
from github_mcp.serving.framework_tools import SESSIONS as RECORDS
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.ops.test_sessions import (
    PROTOCOL,
    READ,
    TOKEN,
    status_figures,
    wait_for_open_sessions,
)
from tests.security.test_principals import RawClient

SESSIONS = 6


@pytest.mark.timeout(240)
def test_reaped_sessions_leave_no_per_session_records(make_runtime):
    rt = make_runtime(auth_tokens=TOKEN, approval_mode="tool", session_idle_timeout_seconds=1.0)
    gc.collect()
    enabled_before = len(RECORDS)
    with serve_in_thread(build_http_app(rt)) as url:
        client = RawClient(url, TOKEN, PROTOCOL)
        for _ in range(SESSIONS):
            session = client.initialize()
            status, enabled = client.call("enable_toolset", {"name": "actions"}, session)
            assert status == 200 and not enabled["isError"], enabled
            status, granted = client.call("authorize_write_actions", {"approved": True}, session)
            assert status == 200 and granted["structuredContent"]["scope"] == "session"
            status, read = client.call(*READ, session)
            assert status == 200 and not read["isError"]
        assert len(rt.gate.reads) >= 1  # the reads were recorded per session...
        assert len(RECORDS) > enabled_before

        wait_for_open_sessions(url, 0)  # ...and every client went away without DELETE
        assert len(rt.gate.reads) == 0
        assert rt.gate.active_approvals() == 0
        # a reaped session's task may still be unwinding for a moment; then it is collected
        deadline = time.monotonic() + 90  # bounds a hang only, so the failure names them
        while len(RECORDS) > enabled_before and time.monotonic() < deadline:
            time.sleep(0.1)
            gc.collect()
        assert len(RECORDS) == enabled_before, _holders()


def _holders() -> list[str]:
    """The records left (for the failure message)."""
    return sorted(RECORDS)[:20]


@pytest.mark.timeout(240)
def test_an_idle_session_holds_none_of_its_requests(make_runtime):
    """A session that is open but idle keeps nothing of the requests that reached it: no
    contextvars snapshot with their authenticated user, and none of the HTTP server's
    per-request objects. Before, its idle timer, its server task, its read stream and
    the dispatcher's loop each kept one (~3 per session, 10-15 KB), until it expired."""
    rt = make_runtime(auth_tokens=TOKEN, session_idle_timeout_seconds=3600)
    # tracemalloc is stopped only once the server's thread has ended: Python 3.11's stop()
    # frees its tables while another thread's allocation may still be recording into them
    # (a SIGSEGV, seen on a loaded machine).
    try:
        with serve_in_thread(build_http_app(rt)) as url, httpx.Client() as http:
            client = KeptAliveClient(http, url)  # one connection: not one per session
            tracemalloc.start(1)  # before the warm-up, so what it leaves is in both snapshots
            _abandon_sessions(client, 3)  # warm-up: imports, caches, pools
            held_before = _contexts_holding_a_user()
            before = tracemalloc.take_snapshot()
            _abandon_sessions(client, IDLE_SESSIONS)
            gc.collect()
            after = tracemalloc.take_snapshot()
            held_after = _contexts_holding_a_user()
            assert status_figures(url)["sessions-open"] == str(3 + IDLE_SESSIONS)
    finally:
        tracemalloc.stop()
    # the server's own tasks in flight hold a few, never one per session
    assert held_after - held_before < IDLE_SESSIONS // 2, (held_before, held_after)
    per_session = _growth(after, before) / IDLE_SESSIONS
    print(f"traced: {per_session:.0f} bytes per idle session")
    assert per_session < 40 * 1024, f"{per_session:.0f} bytes per idle session"


def test_a_bearer_token_is_verified_into_one_shared_access_token():
    """Each request presenting a token gets the same AccessToken (it never changes), so a
    request costs no new one; a wrong token still gets none."""
    tokens = BearerTokens(("first-token-0123456789", "second-token-0123456789"))
    first = asyncio.run(tokens.verify_token("first-token-0123456789"))
    again = asyncio.run(tokens.verify_token("first-token-0123456789"))
    second = asyncio.run(tokens.verify_token("second-token-0123456789"))
    assert first is not None and second is not None
    assert again is first and second is not first
    assert first.client_id == tokens.principal_for("first-token-0123456789")
    assert first.client_id != second.client_id
    assert asyncio.run(tokens.verify_token("first-token-012345678")) is None
    assert len(tokens._verified) == 2


IDLE_SESSIONS = 12


class KeptAliveClient:
    """Sessions over one kept-alive connection, each opened and then abandoned."""

    def __init__(self, http: httpx.Client, url: str) -> None:
        self.http, self.url, self.ids = http, url + "/mcp", itertools.count(1)

    def post(self, body: dict[str, Any], session: str | None) -> httpx.Response:
        headers = RawClient(self.url, TOKEN, PROTOCOL).headers(session)
        answer = self.http.post(self.url, json=body, headers=headers, timeout=30)
        assert answer.status_code < 300, answer.text
        return answer

    def open_and_read(self) -> None:
        params = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "t"}}
        opened = self.post(self._request("initialize", params), None)
        session = opened.headers["mcp-session-id"]
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        tool, args = READ
        read = self.post(self._request("tools/call", {"name": tool, "arguments": args}), session)
        assert '"isError":false' in read.text.replace(" ", ""), read.text[:300]

    def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}


def _abandon_sessions(client: KeptAliveClient, count: int) -> None:
    for _ in range(count):
        client.open_and_read()


def _contexts_holding_a_user() -> int:
    """What keeps a request's contextvars (with its authenticated user) alive, counted,
    leaving out cancelled asyncio timers: the loop drops those in batches of its own."""
    gc.collect()
    held = [
        o
        for o in gc.get_objects()
        if isinstance(o, contextvars.Context) and o.get(auth_context_var) is not None
    ]
    holders = [h for c in held for h in gc.get_referrers(c) if h is not held]
    return sum(1 for h in holders if not (isinstance(h, asyncio.TimerHandle) and h.cancelled()))


def _growth(after: Any, before: Any) -> int:
    return sum(s.size_diff for s in after.compare_to(before, "filename"))
