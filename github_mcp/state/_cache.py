"""The response cache's second level, shared by replicas, and per-repository generations.

A write acknowledged by any replica has already bumped its repository's generation in
Redis (INCR), and every tool call naming a repository reads that generation before it
runs (one GET): a replica that sees a newer generation than its own drops its local
entries for the repository first. So no replica serves a read older than a write
another replica acknowledged. Second-level entries of a repository carry the
generation in their key, so a bump makes the old ones unreachable at once (they expire
on their TTL). ETag validators carry no generation: GitHub itself answers 304 only for
a body that is still current.

When Redis is down, reads carry on with the local cache alone (`None` / misses here).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.state._connection import SharedState

# Namespaces whose values are plain JSON (GitHub's bodies and their validators).
SHARED_NAMESPACES = frozenset({"http", "etag"})
IMMUTABLE_TTL_S = 86400  # an entry keyed by a SHA: a day, then loaded again if needed
VALIDATOR_TTL_S = 86400


class SharedCacheTier:
    def __init__(self, state: SharedState) -> None:
        self._state = state
        self._pending: set[asyncio.Task[None]] = set()

    def _gen_key(self, repo: str) -> str:
        return self._state.key("gen", repo.lower())

    def _entry_key(self, namespace: str, key: str, repo: str | None, generation: int) -> str:
        digest = hashlib.sha256(key.encode()).hexdigest()[:40]
        if repo and namespace != "etag":
            return self._state.key("c", repo.lower(), str(generation), namespace, digest)
        return self._state.key("c", "-", namespace, digest)

    async def generation(self, repo: str) -> int | None:
        try:
            async with self._state.op("gen_get") as r:
                value = await r.get(self._gen_key(repo))
        except GitHubMCPError:
            return None
        return int(value or 0)

    async def bump(self, repo: str) -> int | None:
        try:
            async with self._state.op("gen_bump") as r:
                return int(await r.incr(self._gen_key(repo)))
        except GitHubMCPError:
            return None

    async def fetch(
        self, namespace: str, key: str, repo: str | None, generation: int, *, validator: bool
    ) -> tuple[Any, Any]:
        """(value or None, ETag validator or None); one round trip."""
        keys = [self._entry_key(namespace, key, repo, generation)]
        if validator:
            keys.append(self._entry_key("etag", key, None, 0))
        try:
            async with self._state.op("cache_get") as r:
                found = await r.mget(keys)
        except GitHubMCPError:
            return None, None
        value = _decode(found[0])
        check = _decode(found[1]) if validator else None
        return value, tuple(check) if isinstance(check, list) and len(check) == 2 else None

    async def store(
        self,
        namespace: str,
        key: str,
        value: Any,
        *,
        ttl: float | None,
        repo: str | None,
        generation: int,
    ) -> None:
        try:
            data = json.dumps({"v": value}, separators=(",", ":")).encode()
        except (TypeError, ValueError):
            return  # not plain JSON: stays in the local cache only
        seconds = int(ttl) if ttl else (VALIDATOR_TTL_S if namespace == "etag" else IMMUTABLE_TTL_S)
        try:
            async with self._state.op("cache_set") as r:
                await r.set(
                    self._entry_key(namespace, key, repo, generation), data, ex=max(1, seconds)
                )
        except GitHubMCPError:
            return

    def store_soon(self, namespace: str, key: str, value: Any, *, ttl: float | None) -> None:
        """From synchronous code (an ETag just learned): store in the background."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self.store(namespace, key, value, ttl=ttl, repo=None, generation=0))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)


def _decode(raw: bytes | None) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(raw)["v"]
    except (ValueError, KeyError, TypeError):
        return None
