"""The Redis connection shared state goes through, and what happens when Redis is down.

Every store in this package calls Redis through `SharedState.op()`: it counts round
trips (the benchmark reports them per tool call) and turns a connection failure into
`unavailable`, remembering that Redis is down so readiness reports it. redis-py
reconnects on the next command, so the server recovers by itself when Redis returns.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from typing import Any, cast

import redis
import redis.asyncio as aioredis
from redis.backoff import NoBackoff
from redis.retry import Retry

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event, register_secret

KEY_PREFIX = "ghmcp:"
# A command on a pooled connection that died with the server gets one more try, on a
# fresh connection; beyond that a failure is reported at once, not waited through.
_TIMEOUT_S = 1.0
_SYNC_TIMEOUT_S = 0.5  # sync calls (approvals) block the event loop: keep them short


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
            retry=Retry(NoBackoff(), 1),
            decode_responses=False,
        )
        self.sync = redis.Redis.from_url(
            url,
            socket_timeout=_SYNC_TIMEOUT_S,
            socket_connect_timeout=_SYNC_TIMEOUT_S,
            retry=Retry(NoBackoff(), 1),
            decode_responses=False,
        )
        self.round_trips = 0
        self.down_since: float | None = None

    @staticmethod
    def key(*parts: str) -> str:
        return KEY_PREFIX + ":".join(parts)

    @property
    def available(self) -> bool:
        return self.down_since is None

    def _failed(self, exc: BaseException, what: str) -> GitHubMCPError:
        if self.down_since is None:
            self.down_since = time.time()
            log_event("shared_state_down", op=what, error=type(exc).__name__)
        return GitHubMCPError(
            ErrorCode.UNAVAILABLE,
            "The shared state service (Redis) is unreachable, so this cannot be "
            "coordinated with the other replicas.",
            hint="Retry in a few seconds; nothing was written.",
        )

    def _ok(self) -> None:
        if self.down_since is not None:
            log_event("shared_state_up", down_s=round(time.time() - self.down_since, 1))
            self.down_since = None

    @contextlib.asynccontextmanager
    async def op(self, what: str, trips: int = 1) -> AsyncIterator[aioredis.Redis]:
        """Run Redis commands (`trips` round trips); failure raises `unavailable`."""
        self.round_trips += trips
        try:
            yield self.redis
        except (redis.RedisError, OSError) as exc:
            raise self._failed(exc, what) from None
        self._ok()

    @contextlib.contextmanager
    def sync_op(self, what: str) -> Iterator[redis.Redis]:
        self.round_trips += 1
        try:
            yield self.sync
        except (redis.RedisError, OSError) as exc:
            raise self._failed(exc, what) from None
        self._ok()

    async def check(self) -> tuple[bool, str]:
        """Readiness: one PING."""
        try:
            async with self.op("ping") as r:
                await pending(r.ping())
        except GitHubMCPError:
            return False, "unreachable"
        return True, "ok"

    def require(self, what: str) -> None:
        """Refuse `what` at once while Redis is known to be down (a write's own Redis
        calls would fail anyway; this only saves their timeouts)."""
        if self.down_since is not None and time.time() - self.down_since < 1.0:
            raise self._failed(ConnectionError(), what)

    async def aclose(self) -> None:
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
