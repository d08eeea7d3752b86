"""One asyncio lock per key, so two writes on the same thing run one after the other."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Hashable


class KeyedLocks:
    """One asyncio lock per key, forgotten when nobody holds or awaits it. Writes on
    the same pull request take one, so a retarget cannot land between the gate
    reading a PR's base and the merge into it."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                self._locks.pop(key, None)

    def __len__(self) -> int:
        return len(self._locks)
