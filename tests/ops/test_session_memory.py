"""Abandoned sessions leave nothing behind once reaped: after several clients initialize,
enable a toolset, approve writes, read, and disappear without DELETE, the idle timeout
closes their sessions and every per-session record our server keeps is gone (the library's
session table, the toolsets each session enabled, the read ledger, the approvals). A
regression here is memory that grows with every abandoned session. Over real HTTP."""

from __future__ import annotations

import gc
import time

import pytest

from github_mcp.catalog import tool_catalog
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.ops.test_sessions import PROTOCOL, READ, TOKEN, wait_for_open_sessions
from tests.security.test_principals import RawClient

SESSIONS = 6


@pytest.mark.timeout(120)
def test_reaped_sessions_leave_no_per_session_records(make_runtime):
    rt = make_runtime(auth_tokens=TOKEN, approval_mode="tool", session_idle_timeout_seconds=1.0)
    gc.collect()
    enabled_before = len(tool_catalog._ENABLED)
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
        assert len(tool_catalog._ENABLED) > enabled_before

        wait_for_open_sessions(url, 0)  # ...and every client went away without DELETE
        assert len(rt.gate.reads) == 0
        assert rt.gate.active_approvals() == 0
        # a reaped session's task may still be unwinding for a moment; then it is collected
        deadline = time.monotonic() + 30
        while len(tool_catalog._ENABLED) > enabled_before and time.monotonic() < deadline:
            time.sleep(0.1)
            gc.collect()
        assert len(tool_catalog._ENABLED) == enabled_before, _holders()


def _holders() -> list[str]:
    """What still holds a connection whose record is left (for the failure message)."""
    left = [o for o in gc.get_objects() if id(o) in tool_catalog._ENABLED]
    return [type(r).__name__ for o in left for r in gc.get_referrers(o)][:20]
