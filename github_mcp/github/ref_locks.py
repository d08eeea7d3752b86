"""The per-branch write lock of a process with no shared state (replicas swap in the
Redis locks of `state`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class LocalLocks:
    """The per-branch write lock of a process with no shared state: one asyncio lock per
    (repository, branch), dropped when nobody holds or waits for it. Writers of one branch
    take turns instead of racing each other's ref updates and giving up after re-applying."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    def __len__(self) -> int:
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def hold(self, *name: str) -> AsyncIterator[LocalFence]:
        key = ":".join(part.lower() for part in name)
        lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield LocalFence()
        finally:
            users[0] -= 1
            if users[0] == 0:
                self._locks.pop(key, None)


class LocalFence:
    """A held in-process lock: nothing can take it away, so the check always passes."""

    async def check(self) -> None:
        return None
