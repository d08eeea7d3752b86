"""Approvals in Redis: one key per scope with the approval's TTL as the key's expiry,
and a sorted set of approved scopes by expiry for the status page's count.

The gate's store interface is synchronous (it is asked from sync code paths), so this
store uses redis-py's blocking client with a short timeout: one loopback round trip.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.policy.grants import Approval
from github_mcp.state._connection import SharedState

_FOREVER = float("inf")


class RedisApprovalStore:
    def __init__(self, state: SharedState, clock: Callable[[], float] = time.monotonic) -> None:
        self._state = state
        self._clock = clock
        self._index = state.key("approvals")

    def _key(self, scope: str) -> str:
        return self._state.key("approval", scope)

    def get(self, key: str) -> Approval | None:
        with self._state.sync_op("approval_get") as r:
            pipe = r.pipeline(transaction=False)
            pipe.get(self._key(key))
            pipe.pttl(self._key(key))
            value, ttl_ms = pipe.execute()
        if value is None:
            return None
        expires = self._clock() + ttl_ms / 1000 if ttl_ms and ttl_ms > 0 else None
        return Approval(approved=value == b"1", expires_at=expires)

    def set(self, key: str, approved: bool, ttl_seconds: float | None) -> Approval:
        ttl_ms = int(ttl_seconds * 1000) if (approved and ttl_seconds) else None
        with self._state.sync_op("approval_set") as r:
            pipe = r.pipeline(transaction=True)
            pipe.set(self._key(key), b"1" if approved else b"0", px=ttl_ms)
            if approved:
                until = time.time() + ttl_ms / 1000 if ttl_ms else _FOREVER
                pipe.zadd(self._index, {key: until})
            else:
                pipe.zrem(self._index, key)
            pipe.execute()
        expires = self._clock() + ttl_ms / 1000 if ttl_ms else None
        return Approval(approved=approved, expires_at=expires)

    def drop(self, key: str) -> None:
        with self._state.sync_op("approval_drop") as r:
            pipe = r.pipeline(transaction=True)
            pipe.delete(self._key(key))
            pipe.zrem(self._index, key)
            pipe.execute()

    def take(self, key: str) -> bool:
        """Spend a one-time grant atomically (GETDEL): one replica's call gets it."""
        with self._state.sync_op("approval_take") as r:
            pipe = r.pipeline(transaction=True)
            pipe.getdel(self._key(key))
            pipe.zrem(self._index, key)
            value, _ = pipe.execute()
        return bool(value == b"1")

    def grants(self) -> list[tuple[str, float | None]]:
        """Each live approved key with its seconds left, for the status page."""
        now = time.time()
        with self._state.sync_op("approval_list") as r:
            pipe = r.pipeline(transaction=True)
            pipe.zremrangebyscore(self._index, "-inf", now)
            pipe.zrange(self._index, 0, 999, withscores=True)
            _, rows = pipe.execute()
        return [
            (member.decode(), None if until == _FOREVER else until - now) for member, until in rows
        ]

    def count_approved(self) -> int:
        """For the status page: a count that cannot be had is shown as 0, not an error."""
        try:
            with self._state.sync_op("approval_count") as r:
                pipe = r.pipeline(transaction=True)
                pipe.zremrangebyscore(self._index, "-inf", time.time())
                pipe.zcard(self._index)
                _, count = pipe.execute()
        except GitHubMCPError:
            log_event("approval_count_unavailable")
            return 0
        return int(count)
