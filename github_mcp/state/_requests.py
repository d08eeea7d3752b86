"""Open approval requests in Redis, so that any replica serves the approval page and the
replica whose call waits sees the decision (it polls the request by id).

A request is one hash (`json`: the request, `status`, `decided_by`), expiring a
link-lifetime after the link does. Sorted sets by expiry index the open ones: all of
them, each principal's and each session's (the caps' counts), and each principal's
creations in the last minute (the rate cap). A decision is one Lua script: it moves
a pending request to its outcome once, whichever replica runs it, and spends the key.
Times are wall-clock seconds, read against each replica's own clock.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from github_mcp.approvals.store import (
    RATE_WINDOW_S,
    Caps,
    Counts,
    request_from_json,
    request_to_json,
)
from github_mcp.kernel.principal import ApprovalScope
from github_mcp.state._connection import SharedState

if TYPE_CHECKING:
    from github_mcp.approvals.record import ApprovalRequest

MAX_LISTED = 5000

# KEYS: the request hash, the all/principal/session indexes. ARGV: status, decided_by, id.
_SETTLE = """
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'decided_by', ARGV[2])
redis.call('HSET', KEYS[1], 'key', '')
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
redis.call('ZREM', KEYS[4], ARGV[3])
return 1
"""


class RedisRequestStore:
    def __init__(self, state: SharedState, clock: Callable[[], float] = time.monotonic) -> None:
        self._state = state
        self._clock = clock
        self._all = state.key("approval_requests")  # pending ones (the caps count these)
        self._kept = state.key("approval_requests", "kept")  # pending and decided
        self._settle = state.sync.register_script(_SETTLE)
        self._secrets: dict[str, bytes] = {}

    def _offset(self) -> float:
        return time.time() - self._clock()

    def _key(self, request_id: str) -> str:
        return self._state.key("approval_request", request_id)

    def _by_principal(self, principal_key: str) -> str:
        return self._state.key("approval_requests", "principal", principal_key)

    def _by_scope(self, scope: ApprovalScope) -> str:
        return self._state.key("approval_requests", "scope", scope.key)

    def _created(self, principal_key: str) -> str:
        return self._state.key("approval_requests", "created", principal_key)

    def put(self, request: ApprovalRequest) -> None:
        offset = self._offset()
        expires = request.expires_at + offset
        keep_ms = int(max(1.0, 2 * (request.expires_at - request.created_at)) * 1000)
        principal = request.scope.principal.key
        with self._state.sync_op("approval_request_put") as r:
            pipe = r.pipeline(transaction=True)
            key = self._key(request.id)
            body = request_to_json(replace(request, key=""), offset)
            fields = {"json": body, "key": request.key, "status": "pending", "decided_by": ""}
            pipe.hset(key, mapping=fields)
            pipe.pexpire(key, keep_ms)
            for index in (self._all, self._by_principal(principal), self._by_scope(request.scope)):
                pipe.zadd(index, {request.id: expires})
                pipe.pexpire(index, keep_ms)
            pipe.zadd(self._kept, {request.id: expires})
            created = self._created(principal)
            pipe.zadd(created, {request.id: request.created_at + offset})
            pipe.pexpire(created, int(RATE_WINDOW_S * 1000))
            pipe.execute()

    def get(self, request_id: str) -> ApprovalRequest | None:
        with self._state.sync_op("approval_request_get") as r:
            row = cast(dict[bytes, bytes], r.hgetall(self._key(request_id)))
        return self._load(row)

    def _load(self, row: dict[bytes, bytes]) -> ApprovalRequest | None:
        if not row or b"json" not in row:
            return None
        request = request_from_json(row[b"json"], self._offset())
        request.status = row.get(b"status", b"expired").decode()  # type: ignore[assignment]
        request.decided_by = row.get(b"decided_by", b"").decode() or None
        request.key = row.get(b"key", b"").decode() if request.status == "pending" else ""
        return request

    def settle(self, request: ApprovalRequest, status: str, decided_by: str | None) -> bool:
        keys = [
            self._key(request.id),
            self._all,
            self._by_principal(request.scope.principal.key),
            self._by_scope(request.scope),
        ]
        with self._state.sync_op("approval_request_settle"):
            done = self._settle(keys=keys, args=[status, decided_by or "", request.id])
        return bool(done)

    def drop(self, request: ApprovalRequest) -> None:
        with self._state.sync_op("approval_request_drop") as r:
            pipe = r.pipeline(transaction=True)
            pipe.delete(self._key(request.id))
            pipe.zrem(self._all, request.id)
            pipe.zrem(self._kept, request.id)
            pipe.zrem(self._by_principal(request.scope.principal.key), request.id)
            pipe.zrem(self._by_scope(request.scope), request.id)
            pipe.execute()

    def live(self) -> list[ApprovalRequest]:
        """Requests, pending or decided, whose link has not expired."""
        with self._state.sync_op("approval_request_list") as r:
            pipe = r.pipeline(transaction=True)
            pipe.zremrangebyscore(self._kept, "-inf", time.time())
            pipe.zrange(self._kept, 0, MAX_LISTED - 1)
            _, ids = pipe.execute()
            rows = r.pipeline(transaction=False)
            for request_id in ids:
                rows.hgetall(self._key(request_id.decode()))
            found = [self._load(row) for row in rows.execute()] if ids else []
        return [request for request in found if request is not None]

    def counts(self, scope: ApprovalScope) -> Counts:
        now = time.time()
        principal = scope.principal.key
        with self._state.sync_op("approval_request_count") as r:
            pipe = r.pipeline(transaction=True)
            for index in (self._all, self._by_principal(principal), self._by_scope(scope)):
                pipe.zremrangebyscore(index, "-inf", now)
            pipe.zremrangebyscore(self._created(principal), "-inf", now - RATE_WINDOW_S)
            pipe.zcard(self._by_scope(scope))
            pipe.zcard(self._by_principal(principal))
            pipe.zcard(self._all)
            pipe.zcard(self._created(principal))
            *_, session, mine, total, recent = pipe.execute()
        return Counts(
            session=int(session),
            principal=int(mine),
            total=int(total),
            principals=self._principals(int(total)),
            recent=int(recent),
        )

    def _principals(self, total: int) -> int:
        """How many principals hold open requests; only needed once the global cap is
        reached, so the scan of the open requests is paid only then."""
        if total < Caps.global_open:
            return 1
        return len({r.scope.principal.key for r in self.live() if r.status == "pending"})

    def secret(self, name: str) -> bytes:
        """Created once by whichever replica asks first (SET NX), then read by all."""
        if name not in self._secrets:
            key = self._state.key("secret", name)
            with self._state.sync_op("shared_secret") as r:
                r.set(key, secrets.token_bytes(32), nx=True)
                value = r.get(key)
            self._secrets[name] = bytes(cast(bytes, value))
        return self._secrets[name]
