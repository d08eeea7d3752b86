"""Idempotent writes across replicas.

Every write call has an idempotency key: the client's own when it sends one
(`idempotency_key` in the tools/call `_meta`), else one derived from the principal,
the tool and its canonical arguments. The first call claims the key (SET NX, a leased
"pending" marker renewed while it runs), writes, then stores its result under the key
for GITHUB_MCP_IDEMPOTENCY_TTL_SECONDS. A retry to any replica meanwhile waits for the
pending marker and gets the stored result, marked as a replay, instead of writing again.
A failed write removes its marker, so a retry tries again. Keys are per principal: one
client's key never answers another principal's call.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from ..errors import ErrorCode, GitHubMCPError
from ._connection import SharedState

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


@dataclass
class WriteClaim:
    """A claimed key (`replay` is None: go ahead and write) or a replay of the first."""

    key: str
    marker: str
    replay: dict[str, Any] | None = None
    renewer: asyncio.Task[None] | None = None


class IdempotentWrites:
    def __init__(self, state: SharedState, ttl_s: int) -> None:
        self._state = state
        self.ttl_s = ttl_s

    async def claim(self, key: str) -> WriteClaim:
        redis_key = self._state.key("idem", key)
        marker = "pending:" + secrets.token_hex(8)
        deadline = time.monotonic() + WAIT_FOR_FIRST_S
        delay = 0.01
        while True:
            async with self._state.op("idem_claim") as r:
                claimed = await r.set(redis_key, marker, nx=True, px=int(PENDING_LEASE_S * 1000))
                existing = None if claimed else await r.get(redis_key)
            if claimed:
                claim = WriteClaim(redis_key, marker)
                claim.renewer = asyncio.create_task(self._renew(claim))
                return claim
            if existing is not None and existing.startswith(b"done:"):
                return WriteClaim(redis_key, "", replay=json.loads(existing[5:]))
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
                async with self._state.op("idem_renew") as r:
                    if await r.get(claim.key) == claim.marker.encode():
                        await r.pexpire(claim.key, int(PENDING_LEASE_S * 1000))

    async def _stop(self, claim: WriteClaim) -> None:
        if claim.renewer is not None:
            claim.renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await claim.renewer

    async def complete(self, claim: WriteClaim, payload: dict[str, Any]) -> None:
        """Keep the result for retries. The write happened, so a failure here is only
        logged by the caller, never turned into a failed answer."""
        await self._stop(claim)
        data = b"done:" + json.dumps(payload, separators=(",", ":")).encode()
        async with self._state.op("idem_complete") as r:
            await r.set(claim.key, data, ex=max(1, self.ttl_s))

    async def abandon(self, claim: WriteClaim) -> None:
        """The write failed: let a retry try again."""
        await self._stop(claim)
        with contextlib.suppress(GitHubMCPError):
            async with self._state.op("idem_abandon") as r:
                if await r.get(claim.key) == claim.marker.encode():
                    await r.delete(claim.key)
