"""The in-process store of resumable stream events is bounded: a call's events go soon
after its answer, no stream outlives the age limit, and all of them together stay under
the byte limit (GITHUB_MCP_STREAM_EVENTS_MAX_BYTES), however many calls a process serves.
Before, the framework's default store kept every call's events for an hour, and RSS grew
by about 5.5 MB per 1,000 calls."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.streamable_http import EventMessage
from mcp_types import JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from github_mcp.config import Settings
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from github_mcp.serving.stream_events import FINISHED_KEEP_S, BoundedEventStore
from tests.conftest import DEMO_REPO
from tests.security.test_principals import RawClient

TOKEN = "stream-events-token-0123456789"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def progress(n: int) -> Any:
    return JSONRPCNotification(
        jsonrpc="2.0", method="notifications/progress", params={"progressToken": 1, "progress": n}
    )


def answer(request_id: int) -> Any:
    return JSONRPCResponse(jsonrpc="2.0", id=request_id, result={"content": []})


async def replayed(store: BoundedEventStore, event_id: str) -> tuple[str | None, list[str]]:
    got: list[EventMessage] = []

    async def send(event: EventMessage) -> None:
        got.append(event)

    stream = await store.replay_events_after(event_id, send)
    return stream, [str(e.event_id) for e in got]


async def test_a_broken_stream_resumes_after_the_last_event_the_client_saw():
    store = BoundedEventStore(max_bytes=1 << 20, max_age_s=300)
    priming = await store.store_event("s1", None)
    first = await store.store_event("s1", progress(1))
    await store.store_event("other", progress(9))
    last = await store.store_event("s1", answer(1))
    assert await replayed(store, priming) == ("s1", [first, last])
    assert await replayed(store, first) == ("s1", [last])
    assert await replayed(store, "bogus") == (None, [])
    assert await replayed(store, "czE.999") == (None, [])  # s1's tag, an event never stored


async def test_a_finished_call_is_dropped_once_it_can_no_longer_be_resumed():
    clock = Clock()
    store = BoundedEventStore(max_bytes=1 << 20, max_age_s=300, clock=clock)
    priming = await store.store_event("done", None)
    await store.store_event("done", answer(1))
    running = await store.store_event("running", None)
    clock.now += FINISHED_KEEP_S - 1
    assert (await replayed(store, priming))[0] == "done"  # still resumable just after
    clock.now += 2
    await store.store_event("running", progress(1))
    assert await replayed(store, priming) == (None, [])
    assert len(store) == 1 and (await replayed(store, running))[0] == "running"


async def test_an_idle_stream_is_dropped_after_the_age_limit():
    clock = Clock()
    store = BoundedEventStore(max_bytes=1 << 20, max_age_s=60, clock=clock)
    idle = await store.store_event("idle", None)
    clock.now += 61
    await store.store_event("fresh", None)
    assert await replayed(store, idle) == (None, [])
    assert len(store) == 1


async def test_all_streams_together_stay_under_the_byte_limit():
    store = BoundedEventStore(max_bytes=64 * 1024, max_age_s=300)
    big = {"text": "x" * 2000}
    newest = ""
    for i in range(2000):
        message = JSONRPCRequest(jsonrpc="2.0", id=i, method="sampling/createMessage", params=big)
        newest = await store.store_event(f"stream-{i % 500}", message)
        assert store.size <= store.max_bytes
    assert 0 < len(store) < 500
    # the least recently written streams went first; the newest is still there
    assert (await replayed(store, newest)) == ("stream-499", [])
    # and the byte figure is the sum of what is kept: drop everything and it is zero
    store.max_bytes = 0
    await store.store_event("last", None)
    assert len(store) == 0 and store.size == 0


@pytest.mark.parametrize("bad", [0, 1024])
def test_the_byte_limit_has_a_floor(bad):
    with pytest.raises(ValueError):
        Settings(stream_events_max_bytes=bad)


def test_a_server_that_answered_many_calls_keeps_few_events(make_runtime):
    """Through real HTTP: 80 calls, each with its own stream, in a server whose byte
    limit is small; the store never holds more than the limit."""
    rt = make_runtime(auth_tokens=TOKEN, stream_events_max_bytes=64 * 1024)
    app = build_http_app(rt)
    store = app.state.event_store
    assert isinstance(store, BoundedEventStore)
    with serve_in_thread(app) as url:
        client = RawClient(url, TOKEN, "2025-11-25")
        session = client.initialize()
        for _ in range(80):
            status, read = client.call(
                "get_file_contents", {"full_name": DEMO_REPO, "path": "README.md"}, session
            )
            assert status == 200 and not read["isError"]
            assert store.size <= 64 * 1024
    assert 0 < len(store) < 80
