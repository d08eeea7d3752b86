"""Redis stopped, frozen (SIGSTOP) or slowed (every byte 2 s late through a TCP proxy):
the circuit breaker opens, reads carry on from GitHub, writes are refused cleanly and
write nothing, and once Redis answers again the breaker closes and the same write, retried
with its idempotency key, lands exactly once. A runtime on a real redis-server reached
through the delay proxy, over the sandbox forge; the evidence is the forge's own state and
request log, and the answers. How fast each step is goes to bench/redis_outage.py."""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.state import SharedState
from sandbox_forge.admin.collab_seeding import create_issue, repo_named
from sandbox_forge.stores.collab import collab
from tests.conftest import call_tool, mcp_client, requests_matching
from tests.replicas.cluster import Redis, wait_for
from tests.replicas.delay_proxy import DelayProxy
from tests.test_tools_write import git, new_repo

PREFIX = "breaker-org"


@pytest.fixture
def redis_behind_proxy(tmp_path) -> Iterator[tuple[Redis, DelayProxy]]:
    server = Redis(tmp_path / "redis")
    proxy = DelayProxy(server.port)
    yield server, proxy
    proxy.close()
    if server.proc is not None:
        server.proc.send_signal(signal.SIGCONT)
    server.stop()


def begin(outage: str, server: Redis, proxy: DelayProxy) -> None:
    if outage == "stopped":
        server.stop()
    elif outage == "frozen":
        assert server.proc is not None
        server.proc.send_signal(signal.SIGSTOP)
    else:
        proxy.delay = 2.0


def end(outage: str, server: Redis, proxy: DelayProxy) -> None:
    if outage == "stopped":
        server.start()
    elif outage == "frozen":
        assert server.proc is not None
        server.proc.send_signal(signal.SIGCONT)
    else:
        proxy.delay = 0.0


def comments(forge: Any, repo: str) -> list[str]:
    return [c.body for c in collab(repo_named(forge, repo)).issue_comments.values()]


async def comment(client: Any, repo: str, number: int, body: str, key: str) -> tuple[bool, Any]:
    result = await client.call_tool(
        "comment_on_issue",
        {"full_name": repo, "number": number, "body": body},
        raise_on_error=False,
        meta={"idempotency_key": key},
    )
    return result.is_error, result.structured_content


async def as_a_client_retries(call: Any, *args: Any) -> tuple[bool, Any]:
    """The call, retried as the error asks while it is `unavailable` and retryable: on a
    loaded machine a late PONG may reopen the breaker for a moment after the outage."""
    for _ in range(50):
        is_error, answer = await call(*args)
        error = answer.get("error") if is_error and isinstance(answer, dict) else None
        if not (error and error.get("code") == "unavailable" and error.get("retryable")):
            break
        await asyncio.sleep(0.2)
    return is_error, answer


@pytest.mark.parametrize("outage", ["stopped", "frozen", "slowed"])
async def test_breaker_serves_reads_refuses_writes_and_recovers(
    make_runtime, forge, redis_behind_proxy, outage
):
    server, proxy = redis_behind_proxy
    repo = new_repo(forge, {"README.md": "current\n"}, branches={}, prefix=PREFIX)
    number = create_issue(forge, repo, "breaker")["number"]
    rt = make_runtime(state_url=proxy.url, auto_approve=True)
    assert rt.shared is not None
    state = rt.shared.state
    read = ("get_file_contents", {"full_name": repo, "path": "README.md", "ref": "main"})
    async with mcp_client(rt) as client:
        is_error, warm = await call_tool(client, *read)
        assert not is_error and warm["content"] == "current\n"
        # Redis is up; on a loaded machine one PONG later than the probe's 200 ms may
        # have opened the breaker for a moment, as it should
        wait_for(lambda: state.available, "the breaker to be closed", limit_s=60)

        begin(outage, server, proxy)
        wait_for(lambda: not state.available, "the breaker to open", limit_s=60)
        forge.clear_requests()
        reads = [await call_tool(client, *read) for _ in range(3)]
        body, key = f"during {outage}", uuid.uuid4().hex
        refused_error, refused = await comment(client, repo, number, body, key)

        # reads answer from GitHub: each resolved main at the forge, none from the cache
        for is_error, answer in reads:
            assert not is_error, answer
            assert answer["content"] == "current\n"
        assert len(requests_matching(forge, "GET", f"/repos/{repo}/git/ref/heads/main")) == 3
        # the write is refused, cleanly, and nothing reached the forge
        assert refused_error
        error = refused["error"]
        assert error["code"] == "unavailable" and error["retryable"] is True
        assert "Retry" in error["hint"] and "nothing was written" in error["hint"]
        assert requests_matching(forge, "POST", "/comments") == []
        assert body not in comments(forge, repo)

        end(outage, server, proxy)
        wait_for(lambda: state.available, "the breaker to close", limit_s=60)
        is_error, landed = await as_a_client_retries(comment, client, repo, number, body, key)
        assert not is_error, landed
        again_error, again = await comment(client, repo, number, body, key)
        assert not again_error and again["id"] == landed["id"]  # the retry is a replay
        files = [{"path": "README.md", "content": "after\n"}]
        is_error, committed = await as_a_client_retries(
            call_tool,
            client,
            "commit_files",
            {"full_name": repo, "branch": "main", "message": "after the outage", "files": files},
        )
        assert not is_error, committed
    assert comments(forge, repo).count(body) == 1
    assert [c.id for c in collab(repo_named(forge, repo)).issue_comments.values()] == [landed["id"]]
    assert git(forge, repo, "show", "main:README.md") == "after\n"  # the lock works again


def test_breaker_thread_ends_with_its_state(make_runtime, redis_behind_proxy):
    """No thread outlives the runtime that started it."""
    _server, proxy = redis_behind_proxy
    before = {t.ident for t in threading.enumerate() if t.name == "redis-breaker"}
    rt = make_runtime(state_url=proxy.url)
    assert rt.shared is not None
    mine = [t for t in threading.enumerate() if t.name == "redis-breaker" and t.ident not in before]
    assert len(mine) == 1 and mine[0].is_alive()
    rt.shared.state.breaker.stop()
    mine[0].join(30)
    assert not mine[0].is_alive()


async def test_a_cancel_turned_into_a_redis_error_still_cancels(redis_behind_proxy):
    """A cancelled Redis command may come back as redis-py's timeout error (its own
    timeout racing the cancel). A loop that tolerates `unavailable` (a lease renewer)
    must still end when cancelled, or the write awaiting its end hangs for good."""
    _server, proxy = redis_behind_proxy
    state = SharedState(proxy.url)
    inside = asyncio.Event()

    async def renewer_like() -> None:
        while True:
            with contextlib.suppress(GitHubMCPError):
                async with state.op("renew"):
                    inside.set()
                    try:
                        await asyncio.sleep(3600)  # a command waiting on Redis
                    except asyncio.CancelledError:
                        raise redis.TimeoutError("Timeout reading from socket") from None
            await asyncio.sleep(0.01)

    task = asyncio.create_task(renewer_like())
    await asyncio.wait_for(inside.wait(), 60)
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=60)  # bounds a hang only
    try:
        assert task in done and task.cancelled()
    finally:
        task.cancel()
        await state.aclose()


async def test_cancelled_redis_loops_always_end(redis_behind_proxy):
    """redis-py's asyncio client loses a cancel that lands mid-command now and then (in
    the bench, a lease renewer went on renewing and its write never answered; 17 of 200
    loops like this one lived on). Every command goes through `op`, which honours a
    cancel that arrived while it ran, so each cancelled loop ends."""
    _server, proxy = redis_behind_proxy
    proxy.delay = 0.01  # a little latency: the cancels land mid-command
    state = SharedState(proxy.url)
    rng = random.Random(40)

    async def renewer_like() -> None:
        while True:
            await asyncio.sleep(0.001)
            with contextlib.suppress(GitHubMCPError):
                async with state.op("renew") as r:
                    await r.get("some-lease")

    lived_on = 0
    try:
        for _ in range(200):
            task = asyncio.create_task(renewer_like())
            await asyncio.sleep(rng.uniform(0, 0.05))
            task.cancel()
            done, _ = await asyncio.wait([task], timeout=30)  # bounds a hang only
            if task not in done:
                lived_on += 1
                task.cancel()
    finally:
        await state.aclose()
    assert lived_on == 0


async def test_a_flap_holds_a_command_until_it_closes_and_an_outage_refuses(
    redis_behind_proxy,
):
    """One PONG later than the probe's timeout opens the breaker until the next probe
    answers: a write's command that finds it just opened waits for that, and runs. In an
    outage the breaker stays open and the command is refused, without reaching Redis."""
    server, proxy = redis_behind_proxy
    state = SharedState(proxy.url)
    try:
        wait_for(lambda: state.available, "the breaker to be closed", limit_s=60)
        state.breaker.trip("a late PONG")  # what the probe does on one late answer
        asyncio.get_running_loop().call_later(0.01, state.breaker.close)  # the next PONG
        async with state.op("during a flap", writing=True) as r:
            assert await r.set("flap", "written") is True
        assert state.breaker.trips == 1 and state.available
        assert redis.Redis(port=server.port).get("flap") == b"written"

        server.stop()
        wait_for(lambda: not state.available, "the breaker to open", limit_s=60)
        before = state.round_trips
        with pytest.raises(GitHubMCPError) as refused:
            async with state.op("during an outage", writing=True) as r:
                await r.set("outage", "written")
        assert refused.value.code.value == "unavailable"
        assert state.round_trips == before + 1  # counted, refused before any command
    finally:
        await state.aclose()
