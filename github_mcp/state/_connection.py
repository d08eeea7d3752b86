"""The Redis connection shared state goes through, and what happens when Redis is down.

Every store in this package calls Redis through `SharedState.op()`: it counts round
trips (the benchmark reports them per tool call) and turns a failure into `unavailable`.
The circuit breaker (_breaker.py) decides when Redis is down: while it is open, `op()`
refuses without touching the network (a write's command once a breaker that just opened
is past the time a flap takes to close), and a command already waiting on a stalled
Redis is cancelled and refused too. redis-py reconnects on the next command, so the
server recovers by itself when the breaker closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, cast

import redis
import redis.asyncio as aioredis
from redis.backoff import NoBackoff
from redis.retry import Retry

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event, register_secret
from github_mcp.state._breaker import STALL_S, Breaker

KEY_PREFIX = "ghmcp:"
# A command on a pooled connection that died with the server gets one more try, on a
# fresh connection; a timeout is not retried. The breaker cancels a stalled command long
# before _TIMEOUT_S, which only bounds a command when the breaker's thread cannot run.
_TIMEOUT_S = 1.0
_SYNC_TIMEOUT_S = STALL_S  # sync calls (approvals) block the event loop: keep them short
_RECONNECT = Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))
# A command that cannot reach Redis opens the breaker; one that timed out does not (on a
# busy machine that may be this process's lateness): the probe decides that.
_LOST = (redis.ConnectionError, ConnectionRefusedError, ConnectionResetError)


def pending(result: Any) -> Awaitable[Any]:
    """redis-py types each command for both its clients; the asyncio one's are awaitable."""
    return cast(Awaitable[Any], result)


def replica_name() -> str:
    """This process's name among replicas: host and pid (a restarted replica is new)."""
    return f"{socket.gethostname()}-{os.getpid()}"


class SharedState:
    """One Redis deployment shared by every replica of the server."""

    def __init__(self, url: str, *, replica: str | None = None) -> None:
        register_secret_parts(url)
        self.replica = replica or replica_name()
        self.redis = aioredis.Redis.from_url(
            url,
            socket_timeout=_TIMEOUT_S,
            socket_connect_timeout=_TIMEOUT_S,
            retry=_RECONNECT,
            decode_responses=False,
        )
        self.sync = redis.Redis.from_url(
            url,
            socket_timeout=_SYNC_TIMEOUT_S,
            socket_connect_timeout=_SYNC_TIMEOUT_S,
            retry=_RECONNECT,
            decode_responses=False,
        )
        self.round_trips = 0
        self.breaker = Breaker(url, self._changed)
        self.breaker.start()

    @staticmethod
    def key(*parts: str) -> str:
        return KEY_PREFIX + ":".join(parts)

    @property
    def available(self) -> bool:
        return not self.breaker.is_open

    @property
    def down_since(self) -> float | None:
        return self.breaker.opened_at

    def _changed(self, up: bool, detail: str) -> None:
        if up:
            log_event("shared_state_up", down_s=float(detail))
        else:
            log_event("shared_state_down", reason=detail)

    def _refused(self, what: str) -> GitHubMCPError:
        return GitHubMCPError(
            ErrorCode.UNAVAILABLE,
            "The shared state service (Redis) is unreachable, so this cannot be "
            "coordinated with the other replicas.",
            hint="Retry in a second or two; nothing was written.",
            retry_after=1,
        )

    def _failed(self, exc: BaseException, what: str) -> GitHubMCPError:
        if isinstance(exc, _LOST):
            self.breaker.trip(f"{what}: {type(exc).__name__}")
        return self._refused(what)

    @contextlib.asynccontextmanager
    async def op(
        self, what: str, trips: int = 1, *, writing: bool = False
    ) -> AsyncIterator[aioredis.Redis]:
        """Run Redis commands (`trips` round trips); failure raises `unavailable`, at
        once while the breaker is open (a `writing` command first waits out a breaker
        that may be a flap: a read falls back to GitHub instead), and as soon as it
        opens for a command waiting."""
        self.round_trips += trips
        if self.breaker.is_open and not (writing and await self.breaker.closes_soon()):
            raise self._refused(what)
        task = asyncio.current_task()
        before = task.cancelling() if task is not None else 0
        watch = self.breaker.watch()
        try:
            yield self.redis
        except (asyncio.CancelledError, redis.RedisError, OSError) as exc:
            tripped = watch is not None and watch.tripped
            if isinstance(exc, asyncio.CancelledError) and not tripped:
                raise
            if tripped and task is not None:
                task.uncancel()  # the breaker's cancel, not the caller's
            if task is not None and task.cancelling() > before:
                # The caller was cancelled meanwhile and redis-py turned that into an
                # error: passed on as `unavailable`, a loop that tolerates it (a lease
                # renewer) would carry on, and a write awaiting its end hang with it.
                raise asyncio.CancelledError() from None
            if tripped:
                raise self._refused(what) from None
            raise self._failed(exc, what) from None
        else:
            if watch is not None and watch.tripped and task is not None:
                task.uncancel()  # the breaker's cancel came too late: the command answered
            if task is not None and task.cancelling() > before:
                # a cancel that reached redis-py mid-command and was lost there (it
                # happens in a race with its connection handling): honour it here
                raise asyncio.CancelledError()
        finally:
            self.breaker.unwatch(watch)

    @contextlib.contextmanager
    def sync_op(self, what: str) -> Iterator[redis.Redis]:
        self.round_trips += 1
        if self.breaker.is_open:
            raise self._refused(what)
        try:
            yield self.sync
        except (redis.RedisError, OSError) as exc:
            raise self._failed(exc, what) from None

    async def check(self) -> tuple[bool, str]:
        """Readiness: one PING."""
        try:
            async with self.op("ping") as r:
                await pending(r.ping())
        except GitHubMCPError:
            return False, "unreachable"
        return True, "ok"

    async def settle(self, what: str) -> None:
        """Refuse `what` while the breaker is open, unless it closes as a flap does."""
        if self.breaker.is_open and not await self.breaker.closes_soon():
            raise self._refused(what)

    def later(self, job: Callable[[], Awaitable[Any]]) -> None:
        """Run `job` once Redis is back: clean-up a failed command could not do."""
        self.breaker.later(job)

    async def aclose(self) -> None:
        self.breaker.stop()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        with contextlib.suppress(Exception):
            self.sync.close()


def register_secret_parts(url: str) -> None:
    """Keep a password in the URL out of every log line."""
    from urllib.parse import urlsplit

    password = urlsplit(url).password
    if password:
        register_secret(password)
