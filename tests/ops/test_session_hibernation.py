"""Idle sessions sleep and wake (serving/session_hibernation.py): a session with nothing in
flight for the grace period is freed down to a small record, and its next request wakes
it with everything it had: the toolsets it enabled, its write approval, its log level,
its resumable streams. An id never issued, or one whose sleeping session the idle timeout
has ended, still gets the library's 404. Over real HTTP (uvicorn on loopback) with a real
MCP client on the handshake-era protocol, which is the one with sessions.

The client opens no standalone GET stream (the protocol lets a client do without one): an
open GET stream is a request in flight, which keeps a session awake, as it should."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx2 as httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.framework_tools import SESSIONS
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.approvals.conftest import branch_head
from tests.ops.test_sessions import PROTOCOL, READ, TOKEN, status_figures, wait_for_open_sessions
from tests.security.test_principals import RawClient

GRACE_S = 0.3


@pytest.fixture
def repo(forge) -> str:
    name = f"sleep-org/r-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(name, {"README.md": "# sleep\n", "big.txt": "line\n" * 3000})
    return name


@pytest.fixture
def http_server(make_runtime):
    @contextmanager
    def start(**settings: Any) -> Iterator[tuple[str, Runtime]]:
        settings.setdefault("approval_mode", "tool")  # approval via the model's toggle
        settings.setdefault("session_hibernate_after_seconds", GRACE_S)
        settings.setdefault("auth_tokens", TOKEN)
        rt = make_runtime(**settings)
        with serve_in_thread(build_http_app(rt)) as url:
            yield url, rt

    return start


class _NoStandaloneStream(httpx.AsyncBaseTransport):
    """The client's HTTP: every request but the standalone GET stream goes out."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and "last-event-id" not in request.headers:
            raise httpx.ConnectError("this client opens no standalone stream", request=request)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def _http_client(**kwargs: Any) -> httpx.AsyncClient:
    kwargs.pop("transport", None)
    return httpx.AsyncClient(transport=_NoStandaloneStream(), **kwargs)


@asynccontextmanager
async def mcp_client(url: str, **kwargs: Any) -> AsyncIterator[Client]:
    transport = StreamableHttpTransport(url + "/mcp", auth=TOKEN, httpx_client_factory=_http_client)
    async with Client(transport, mode="legacy", **kwargs) as client:
        yield client


def wait_asleep(url: str, expected: int, deadline_s: float = 120) -> None:
    deadline = time.monotonic() + deadline_s
    while (seen := status_figures(url)["sessions-asleep"]) != str(expected):
        assert time.monotonic() < deadline, f"{seen} sessions asleep, expected {expected}"
        time.sleep(0.05)


async def test_a_session_wakes_with_its_toolsets_approval_and_log_level(http_server, forge, repo):
    logs: list[Any] = []

    async def on_log(message: Any) -> None:
        logs.append(message)

    with http_server() as (url, rt):
        async with mcp_client(url, log_handler=on_log) as client:
            await client.set_logging_level("debug")
            enabled = await client.call_tool("enable_toolset", {"name": "actions"})
            assert not enabled.is_error
            granted = await client.call_tool("authorize_write_actions", {"approved": True})
            assert granted.structured_content["scope"] == "session"
            listed = {tool.name for tool in await client.list_tools()}

            wait_asleep(url, 1)
            assert status_figures(url)["sessions-open"] == "1"  # asleep is still open

            # tools/list wakes it: the toolset it enabled is still listed
            assert {tool.name for tool in await client.list_tools()} == listed

            wait_asleep(url, 1)
            logs.clear()
            read = await client.call_tool(
                "get_file_contents", {"full_name": repo, "path": "big.txt", "max_bytes": 200}
            )
            assert not read.is_error
            assert "debug" in {m.level for m in logs}  # the level it set before it slept

            wait_asleep(url, 1)
            before = branch_head(forge, repo)
            written = await client.call_tool(
                "commit_files",
                {
                    "full_name": repo,
                    "branch": "main",
                    "message": "after a nap",
                    "files": [{"path": "nap.txt", "content": "woke up\n"}],
                },
            )
            assert not written.is_error, written
            # the session's approval survived its sleep: the write landed on main
            after = branch_head(forge, repo)
            assert after != before and after == written.structured_content["commit_sha"]
            assert status_figures(url)["sessions-open"] == "1"
        # the client's DELETE ends it, approval included
        wait_for_open_sessions(url, 0)
        assert rt.gate.active_approvals() == 0


async def test_a_sleeping_session_is_woken_by_its_delete(http_server):
    with http_server() as (url, rt):
        async with mcp_client(url) as client:
            granted = await client.call_tool("authorize_write_actions", {"approved": True})
            assert granted.structured_content["scope"] == "session"
            wait_asleep(url, 1)
        wait_for_open_sessions(url, 0)
        assert status_figures(url)["sessions-asleep"] == "0"
        assert rt.gate.active_approvals() == 0


def test_unknown_and_ended_ids_get_404_and_sleeping_ones_are_cleaned(http_server, repo):
    with http_server(session_idle_timeout_seconds=5.0) as (url, rt):
        client = RawClient(url, TOKEN, PROTOCOL)
        never_issued = uuid.uuid4().hex
        status, _ = client.call(*READ, never_issued)
        assert status == 404

        session = client.initialize()
        status, enabled = client.call("enable_toolset", {"name": "actions"}, session)
        assert status == 200 and not enabled["isError"]
        status, granted = client.call("authorize_write_actions", {"approved": True}, session)
        assert status == 200 and granted["structuredContent"]["scope"] == "session"
        assert rt.gate.active_approvals() == 1
        wait_asleep(url, 1)
        status, _ = client.call(*READ, never_issued)  # still nothing to wake
        assert status == 404
        assert status_figures(url)["sessions-open"] == "1"

        # the idle timeout ends it asleep: the record and what it held go
        wait_for_open_sessions(url, 0)
        assert status_figures(url)["sessions-asleep"] == "0"
        assert rt.gate.active_approvals() == 0
        assert len(rt.gate.reads) == 0
        status, _ = client.call(*READ, session)
        assert status == 404


def test_another_credential_gets_404_from_a_sleeping_session(http_server):
    other = "sessions-other-token-0123456789"
    with http_server(auth_tokens=f"{TOKEN},{other}") as (url, _rt):
        session = RawClient(url, TOKEN, PROTOCOL).initialize()
        wait_asleep(url, 1)
        status, _ = RawClient(url, other, PROTOCOL).call(*READ, session)
        assert status == 404
        assert status_figures(url)["sessions-asleep"] == "1"  # and it did not wake it
        status, read = RawClient(url, TOKEN, PROTOCOL).call(*READ, session)
        assert status == 200 and not read["isError"]


def _answer_of(lines: Any, request_id: int) -> dict[str, Any]:
    """The JSON-RPC answer to `request_id` from a stream of SSE lines."""
    for line in lines:
        if line.startswith("data:") and line[5:].strip():
            message = json.loads(line[5:])
            if message.get("id") == request_id:
                return dict(message)
    raise AssertionError(f"the stream ended without the answer to {request_id}")


def _resume(client: RawClient, session: str, event_id: str, request_id: int) -> dict[str, Any]:
    headers = client.headers(session) | {"Last-Event-ID": event_id}
    with httpx.stream("GET", client.url, headers=headers, timeout=30) as resumed:
        assert resumed.status_code == 200, resumed.read()
        return _answer_of(resumed.iter_lines(), request_id)


def _call_body(request_id: int, tool: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    params = {"name": tool[0], "arguments": tool[1]}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def test_a_finished_call_resumes_after_the_session_slept(http_server, repo):
    with http_server() as (url, _rt):
        client = RawClient(url, TOKEN, PROTOCOL)
        session = client.initialize()
        # a truncated read: a warning, then the answer, on the call's stream
        truncated = ("get_file_contents", {"full_name": repo, "path": "big.txt", "max_bytes": 99})
        body = _call_body(77, truncated)
        answer = httpx.post(client.url, json=body, headers=client.headers(session), timeout=30)
        ids = [line[3:].strip() for line in answer.text.splitlines() if line.startswith("id:")]
        assert answer.status_code == 200 and len(ids) >= 2, answer.text
        wait_asleep(url, 1)
        # the stream's events are found under the session's own namespace once it woke
        resumed = _resume(client, session, ids[0], 77)
        assert resumed["result"]["isError"] is False


def test_a_call_running_after_its_stream_dropped_keeps_the_session_awake(http_server, forge, repo):
    """The client drops the stream of a slow call at its first event: no request is in
    flight, but the call runs on, so the session must not sleep (that would end the
    call); the client resumes and gets the answer. (/status is not read meanwhile: it
    asks the slow GitHub too.)"""
    with http_server() as (url, _rt):
        client = RawClient(url, TOKEN, PROTOCOL)
        session = client.initialize()
        # GitHub answers slowly, and the first time 502: the call says it retries (an
        # event on its stream), then waits for the slow retry
        forge.add_fault(path=f"/repos/{repo}$", method="GET", status=502, times=1)
        forge.set_latency(2500)
        try:
            body = _call_body(5, ("get_repository", {"full_name": repo}))
            with httpx.stream(
                "POST", client.url, json=body, headers=client.headers(session), timeout=60
            ) as started:
                first = next(line for line in started.iter_lines() if line.startswith("id:"))
            time.sleep(GRACE_S * 3)  # the grace period passes while the call runs
            # had the session slept, the call would have ended with it, unanswered
            answer = _resume(client, session, first[3:].strip(), 5)
        finally:
            forge.set_latency(0)
            forge.clear_faults()
        assert answer["result"]["isError"] is False, answer
        assert repo in json.dumps(answer["result"])
        wait_asleep(url, 1)  # once it is done, it may sleep


def test_nothing_sleeps_when_turned_off(http_server):
    with http_server(session_hibernate_after_seconds=0) as (url, _rt):
        session = RawClient(url, TOKEN, PROTOCOL).initialize()
        time.sleep(GRACE_S * 4)
        assert status_figures(url)["sessions-asleep"] == "0"
        status, read = RawClient(url, TOKEN, PROTOCOL).call(*READ, session)
        assert status == 200 and not read["isError"]


def test_enabled_toolsets_of_an_ended_sleeping_session_are_released(http_server):
    """The record was the last holder of the session's connection: once the idle timeout
    drops it, what the session enabled is collected with it."""
    import gc

    with http_server(session_idle_timeout_seconds=4.0) as (url, _rt):
        gc.collect()
        before = len(SESSIONS)
        client = RawClient(url, TOKEN, PROTOCOL)
        session = client.initialize()
        status, _ = client.call("enable_toolset", {"name": "actions"}, session)
        assert status == 200 and len(SESSIONS) == before + 1
        wait_asleep(url, 1)
        wait_for_open_sessions(url, 0)
        deadline = time.monotonic() + 120
        while len(SESSIONS) > before and time.monotonic() < deadline:
            time.sleep(0.1)
            gc.collect()
        assert len(SESSIONS) == before


def test_a_sleeping_session_counts_to_the_cap(http_server):
    with http_server(max_sessions=1) as (url, _rt):
        client = RawClient(url, TOKEN, PROTOCOL)
        session = client.initialize()
        wait_asleep(url, 1)
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
        info = {"name": "second", "version": "1"}
        init["params"] = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": info}
        refused = httpx.post(client.url, json=init, headers=client.headers(None))
        assert refused.status_code == 503
        status, read = client.call(*READ, session)  # it still wakes: it was counted already
        assert status == 200 and not read["isError"]


def test_requests_arriving_together_wake_one_session(http_server):
    """Several requests reach a sleeping session at once: the first wakes it, the others
    wait for that and are served by the same new loop."""
    from concurrent.futures import ThreadPoolExecutor

    with http_server() as (url, _rt):
        client = RawClient(url, TOKEN, PROTOCOL)
        session = client.initialize()
        wait_asleep(url, 1)
        with ThreadPoolExecutor(6) as pool:
            answers = list(pool.map(lambda _: client.call(*READ, session), range(6)))
        assert [status for status, _ in answers] == [200] * 6
        assert all(not read["isError"] for _, read in answers)
        assert status_figures(url)["sessions-open"] == "1"
