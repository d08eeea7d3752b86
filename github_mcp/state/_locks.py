"""Leased Redis locks with fencing tokens.

A lock per (repository, branch) serialises the commit engine's ref updates across
replicas; a lock per workspace directory keeps two replicas on a shared workspace volume
from running git or commands in one clone at once. The holder's value is
`<replica>:<token>`, where the token comes from a per-lock counter (INCR), so every
grant has a larger token than the one before. The lease is renewed while the holder
lives; a replica that dies stops renewing and its lock expires after one lease. A ref
lock goes sooner: its holder names its heartbeat (`hb=<replica>:<token>`), and once that
replica stops beating (3.5 s after it died) the next writer takes the lock over, so a
write retried after its replica died waits seconds, not the lease. GitHub
cannot check a fencing token, so the holder checks its own in Redis (`Fence.check`)
immediately before the ref update (and before work in a workspace); a holder whose
lease ran out (paused past it) is refused there. The ref update itself stays a
fast-forward without force, so even that window cannot lose another writer's commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.state._connection import SharedState, pending

# Take the lock when free, or when its holder named its heartbeat (`hb=<replica>:`) and
# that replica has stopped beating (died): {token, 1 when taken over}, {0, 0} when held.
# The token is minted in the same step.
_ACQUIRE = """
local v = redis.call('get', KEYS[1])
if v then
  local holder = string.match(v, '^hb=(.+):%d+$')
  if not holder or redis.call('exists', ARGV[3] .. holder) == 1 then return {0, 0} end
end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
if v then return {token, 1} end
return {token, 0}
"""
_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""
_HOLDS = "return redis.call('get', KEYS[1]) == ARGV[1] and 1 or 0"


@dataclass
class Fence:
    """A held lock: its fencing token, and a check that it is still ours."""

    key: str
    value: str
    token: int
    state: SharedState | None = None
    lost: bool = False

    async def check(self) -> None:
        if self.state is None:
            return
        held = False
        if not self.lost:
            async with self.state.op("lock_check", writing=True) as r:
                held = bool(await pending(r.eval(_HOLDS, 1, self.key, self.value)))
        if not held:
            self.lost = True
            raise GitHubMCPError(
                ErrorCode.UNAVAILABLE,
                "This replica's write lock expired before the update; nothing was written.",
                hint="Retry the write.",
            )


class RedisLocks:
    def __init__(
        self,
        state: SharedState,
        *,
        lease_s: float,
        wait_s: float = 60.0,
        kind: str = "ref",
        take_over: bool = False,
    ) -> None:
        self._state = state
        self.lease_s = lease_s
        self.wait_s = wait_s
        self.kind = kind
        # `take_over`: a lock whose holder stopped beating is taken at once, not after its
        # lease (set for the ref locks: a dead replica sends nothing more, and a stalled
        # one is refused by its fence check before the ref update)
        self.take_over = take_over
        self.beating: Callable[[], bool] = lambda: False  # this replica's heartbeat runs

    @contextlib.asynccontextmanager
    async def hold(self, *name: str) -> AsyncIterator[Fence]:
        async with self.hold_if(*name, wait=True) as fence:
            assert fence is not None
            yield fence

    @contextlib.asynccontextmanager
    async def hold_if(self, *name: str, wait: bool) -> AsyncIterator[Fence | None]:
        """`hold`; with `wait=False`, yields None at once when another holder has it."""
        fence = await self._acquire(":".join(part.lower() for part in name), wait=wait)
        if fence is None:
            yield None
            return
        renewer = asyncio.create_task(self._renew(fence))
        try:
            yield fence
        finally:
            renewer.cancel()
            # bounded: this call must not hang on its helper, whatever becomes of it
            await asyncio.wait([renewer], timeout=self.lease_s / 3)
            await self._release(fence)

    async def _release(self, fence: Fence, tries: int = 3) -> None:
        """Let the lock go; with Redis down, once it is back (the next writer then need
        not wait out the lease)."""
        try:
            async with self._state.op("lock_release", writing=True) as r:
                await pending(r.eval(_RELEASE, 1, fence.key, fence.value))
        except GitHubMCPError:
            if tries > 1:
                self._state.later(lambda: self._release(fence, tries - 1))

    async def _acquire(self, name: str, *, wait: bool = True) -> Fence | None:
        key = self._state.key("lock", self.kind, name)
        counter = self._state.key("fence", self.kind, name)
        lease_ms = str(int(self.lease_s * 1000))
        replica = self._state.replica
        holder = f"hb={replica}" if self.take_over and self.beating() else replica
        alive = self._state.key("alive", "")
        deadline = time.monotonic() + self.wait_s
        delay = 0.005
        while True:
            async with self._state.op("lock_acquire", writing=True) as r:
                granted, orphan = await pending(
                    r.eval(_ACQUIRE, 2, key, counter, holder, lease_ms, alive)
                )
            if int(granted):
                if int(orphan):
                    log_event("write_lock_orphaned", lock=key, token=int(granted))
                return Fence(key, f"{holder}:{int(granted)}", int(granted), self._state)
            if not wait:
                return None
            if time.monotonic() >= deadline:
                raise GitHubMCPError(
                    ErrorCode.CONFLICT,
                    f"Another write held {name} for over {self.wait_s:g} s.",
                    hint="Retry the write.",
                )
            # back off with jitter while another replica writes
            await asyncio.sleep(delay + random.uniform(0, delay))
            delay = min(delay * 2, 0.1)

    async def _renew(self, fence: Fence) -> None:
        lease_ms = str(int(self.lease_s * 1000))
        while True:
            await asyncio.sleep(self.lease_s / 3)
            try:
                async with self._state.op("lock_renew", writing=True) as r:
                    renewed = await pending(r.eval(_RENEW, 1, fence.key, fence.value, lease_ms))
            except GitHubMCPError:
                renewed = 0
            if not renewed:
                fence.lost = True
                log_event("write_lock_lost", lock=fence.key, token=fence.token)
                return
