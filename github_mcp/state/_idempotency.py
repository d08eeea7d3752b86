"""Idempotent writes across replicas.

Every write call has an idempotency key: the client's own when it sends one
(`idempotency_key` in the tools/call `_meta`), else one derived from the principal,
the tool and its canonical arguments. The first call claims the key (a "pending" marker,
kept for GITHUB_MCP_IDEMPOTENCY_TTL_SECONDS, plus a short lease renewed while it runs),
writes, then stores its result under the key. A retry to any replica meanwhile waits for
the result and gets it, marked as a replay, instead of writing again. A failed write
removes its marker, so a retry tries again. Keys are per principal: one client's key
never answers another principal's call.

A replica that dies (or freezes past its lease) mid-write leaves the marker without a
lease: its write may have reached GitHub. A replica serving HTTP names itself in its
marker, and its heartbeat (a key it renews every second, gone 3.5 s after it stops) also
vouches for the claim: once that stops, a retry need not wait out the lease. The marker
never expires into a blind second attempt: the retry takes the claim over as an orphan
(`WriteClaim.orphaned_since`), and the write reconciles against GitHub's state before
acting (a comment with the same body since the first attempt began is that attempt's; a
commit whose content the branch already has writes nothing; an open PR for the branches
or a merged PR is reported).

A holder that stalled past its lease (frozen, or starved of CPU) and then resumes must
not write after a retry took its claim over: that retry reconciled without seeing a write
that had not happened yet. So the claim is a fence: before each request that changes
something on GitHub, the GitHub client checks in Redis that the key still holds this
call's marker (and renews the lease in the same step); a holder that lost it sends
nothing more and answers `unavailable` (the retry's answer is the write's). What no
fence can cover is a request already on its way when the stall began.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.state._connection import SharedState, pending

PENDING_LEASE_S = 15.0
WAIT_FOR_FIRST_S = 120.0


def idempotency_key(
    principal: str, tool: str, arguments: dict[str, Any], client_key: str | None
) -> str:
    if client_key:
        material = f"client\x00{principal}\x00{client_key}"
    else:
        canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
        material = f"derived\x00{principal}\x00{tool}\x00{canonical}"
    return hashlib.sha256(material.encode()).hexdigest()


# One step: claim a free key, report a result or a live holder, or take over an orphan
# (its lease ran out, or the replica it names has stopped beating: ARGV[4] prefixes the
# heartbeat keys).
_CLAIM = """
local v = redis.call('get', KEYS[1])
if v and string.sub(v, 1, 5) == 'done:' then return {'done', v} end
if v and redis.call('exists', KEYS[2]) == 1 then
  local holder = string.match(v, '^pending:[^:]+:hb=([^:]+):')
  if not holder or redis.call('exists', ARGV[4] .. holder) == 1 then return {'wait', ''} end
end
redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('set', KEYS[2], ARGV[1], 'PX', ARGV[3])
if v then return {'orphan', v} end
return {'claimed', ''}
"""


# Is the key still this call's? If so, its lease starts again.
_FENCE = """
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('set', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1
"""


@dataclass
class WriteClaim:
    """A claimed key (`replay` is None: go ahead and write) or a replay of the first.
    `orphaned_since`: a dead holder's attempt began then and may have reached GitHub."""

    key: str
    marker: str
    replay: dict[str, Any] | None = None
    renewer: asyncio.Task[None] | None = None
    orphaned_since: float | None = None
    sent: bool = False  # a change went to GitHub under this claim

    @property
    def lease_key(self) -> str:
        return self.key + ":lease"


# The claim of the write call running in this context (the GitHub client fences on it).
_HELD: contextvars.ContextVar[tuple[IdempotentWrites, WriteClaim] | None] = contextvars.ContextVar(
    "held_write_claim", default=None
)


class IdempotentWrites:
    def __init__(self, state: SharedState, ttl_s: int) -> None:
        self._state = state
        self.ttl_s = ttl_s
        # whether this replica's heartbeat runs (_events.Heartbeat): its claims then name
        # it, and a retry elsewhere need not wait out the lease once the beat stops
        self.beating: Callable[[], bool] = lambda: False

    async def claim(self, key: str) -> WriteClaim:
        redis_key = self._state.key("idem", key)
        beat = f"hb={self._state.replica}:" if self.beating() else ""
        marker = f"pending:{secrets.token_hex(8)}:{beat}{time.time():.3f}"
        alive = self._state.key("alive", "")
        deadline = time.monotonic() + WAIT_FOR_FIRST_S
        delay = 0.01
        lease_ms, keep_ms = int(PENDING_LEASE_S * 1000), max(1, self.ttl_s) * 1000
        while True:
            claim = WriteClaim(redis_key, marker)
            async with self._state.op("idem_claim", writing=True) as r:
                outcome, value = await pending(
                    r.eval(_CLAIM, 2, redis_key, claim.lease_key, marker, keep_ms, lease_ms, alive)
                )
            if outcome == b"done":
                return WriteClaim(redis_key, "", replay=json.loads(value[5:]))
            if outcome in (b"claimed", b"orphan"):
                if outcome == b"orphan":
                    claim.orphaned_since = _began(value)
                    holder = _holder(value)
                    log_event("write_claim_orphaned", began=claim.orphaned_since, holder=holder)
                claim.renewer = asyncio.create_task(self._renew(claim))
                _HELD.set((self, claim))
                return claim
            if time.monotonic() >= deadline:
                raise GitHubMCPError(
                    ErrorCode.CONFLICT,
                    "The same write is still running on another call.",
                    hint="Wait for it, then read the result before retrying.",
                )
            await asyncio.sleep(delay)  # the first call is writing: wait for its result
            delay = min(delay * 2, 0.2)

    async def _renew(self, claim: WriteClaim) -> None:
        while True:
            await asyncio.sleep(PENDING_LEASE_S / 3)
            with contextlib.suppress(GitHubMCPError):
                async with self._state.op("idem_renew", writing=True) as r:
                    if await r.get(claim.lease_key) == claim.marker.encode():
                        await r.pexpire(claim.lease_key, int(PENDING_LEASE_S * 1000))

    @staticmethod
    async def fence_current() -> None:
        """Before a request that changes something on GitHub: the running call's claim
        must still be its own (see the module docstring)."""
        held = _HELD.get()
        if held is not None:
            writes, claim = held
            await writes.fence(claim)

    async def fence(self, claim: WriteClaim) -> None:
        lease_ms = int(PENDING_LEASE_S * 1000)
        try:
            async with self._state.op("idem_fence", writing=True) as r:
                ours = await pending(
                    r.eval(_FENCE, 2, claim.key, claim.lease_key, claim.marker, lease_ms)
                )
        except GitHubMCPError:
            if claim.sent:
                return  # half a write is worse than no fence; a takeover needs Redis too
            raise
        if not ours:
            log_event("write_claim_lost", sent=claim.sent)
            raise GitHubMCPError(
                ErrorCode.UNAVAILABLE,
                "This replica stalled past its write's lease and a retry took the write "
                "over; this replica sent "
                + ("nothing more" if claim.sent else "nothing")
                + " to GitHub.",
                hint="Retry with the same idempotency key: it answers with the write's result.",
                retry_after=1,
            )
        claim.sent = True

    async def _stop(self, claim: WriteClaim) -> None:
        held = _HELD.get()
        if held is not None and held[1] is claim:
            _HELD.set(None)
        if claim.renewer is not None:
            claim.renewer.cancel()
            # bounded: this call must not hang on its helper, whatever becomes of it
            await asyncio.wait([claim.renewer], timeout=PENDING_LEASE_S / 3)

    async def complete(self, claim: WriteClaim, payload: dict[str, Any]) -> None:
        """Keep the result for retries. The write happened, so a failure here is only
        logged by the caller, never turned into a failed answer."""
        await self._stop(claim)
        data = b"done:" + json.dumps(payload, separators=(",", ":")).encode()
        async with self._state.op("idem_complete", writing=True) as r:
            await r.set(claim.key, data, ex=max(1, self.ttl_s))
            await r.delete(claim.lease_key)

    async def abandon(self, claim: WriteClaim, *, tries: int = 3) -> None:
        """The write failed: let a retry try again. With Redis down, once it is back (a
        retry then need not wait out the claim's lease)."""
        await self._stop(claim)
        try:
            async with self._state.op("idem_abandon", writing=True) as r:
                if await r.get(claim.key) == claim.marker.encode():
                    await r.delete(claim.key, claim.lease_key)
        except GitHubMCPError:
            if tries > 1:
                self._state.later(lambda: self.abandon(claim, tries=tries - 1))


def _holder(marker: bytes) -> str | None:
    """The replica whose heartbeat vouches for the attempt holding `marker`, if any."""
    _, _, rest = marker.decode(errors="replace").partition(":hb=")
    replica = rest.rsplit(":", 1)[0] if rest else ""
    return replica or None


def _began(marker: bytes) -> float | None:
    """When the attempt holding `marker` began (its last field), if it says."""
    try:
        return float(marker.decode().rsplit(":", 1)[1])
    except (UnicodeDecodeError, IndexError, ValueError):
        return None
