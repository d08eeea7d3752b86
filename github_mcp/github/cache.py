"""In-process TTL+LRU cache with namespaces and per-repo invalidation.

Entries keyed by immutable things (a blob or commit SHA) are stored without
expiry; everything else gets a TTL. Concurrent misses for one key share one
load: the first caller reserves the key, loads it and fills the reservation (or
fails it, and nothing is stored: a "not found" is never cached).

While a call acts for a signed-in user (hosted sign-in), every key is partitioned by that
user's login: one user's entries, fetched with their token, are never served to another.

With replicas (GITHUB_MCP_STATE_URL), `shared` is a second level in Redis behind this one,
and each repository has a generation there: `sync_repo` (before a call) drops local
entries older than another replica's write, `bump_repo` (after a write) moves it on.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from typing import Any, Protocol

from github_mcp.github import provenance
from github_mcp.github.auth import acting_user
from github_mcp.github.provenance import Sources
from github_mcp.monitoring import client_log
from github_mcp.monitoring.observability import Metrics

_MISSING = object()
UNKNOWN_GENERATION = -1  # the shared generation could not be read


def _partitioned(key: str) -> str:
    """The key as stored: prefixed with the acting user's partition, if any."""
    user = acting_user()
    return key if user is None else f"{user.partition}\x00{key}"


class SharedTier(Protocol):
    """The second level (see state/_cache.py); its failures read as misses."""

    async def generation(self, repo: str) -> int | None: ...

    async def bump(self, repo: str) -> int | None: ...

    async def fetch(
        self, namespace: str, key: str, repo: str | None, generation: int, *, validator: bool
    ) -> tuple[Any, Any]: ...

    async def store(
        self,
        namespace: str,
        key: str,
        value: Any,
        *,
        ttl: float | None,
        repo: str | None,
        generation: int,
    ) -> None: ...

    def store_soon(self, namespace: str, key: str, value: Any, *, ttl: float | None) -> None: ...


SHARED_NAMESPACES = frozenset({"http", "etag"})


class Cache:
    def __init__(self, max_entries: int, metrics: Metrics) -> None:
        self.max_entries = max_entries
        self.metrics = metrics
        self.shared: SharedTier | None = None
        self._generations: dict[str, int] = {}  # repo -> the shared generation seen
        self._data: OrderedDict[tuple[str, str], tuple[Any, float | None, str | None]] = (
            OrderedDict()
        )
        self._by_repo: dict[str, set[tuple[str, str]]] = {}
        # what a cached GitHub answer named (provenance.py), beside its entry and gone
        # with it: a call served the entry notes the same sources without re-reading it
        self._sources: dict[tuple[str, str], Sources] = {}
        self._inflight: dict[tuple[str, str], asyncio.Future[Any]] = {}

    def __len__(self) -> int:
        return len(self._data)

    def get(self, namespace: str, key: str, *, record: bool = True) -> Any:
        """Return the value, or the module's _MISSING sentinel (see `lookup`)."""
        full = (namespace, _partitioned(key))
        item = self._data.get(full)
        if item is not None:
            value, expires, repo = item
            if expires is None or expires > time.monotonic():
                self._data.move_to_end(full)
                if record:
                    self.metrics.record_cache(namespace, True)
                if repo is not None:
                    provenance.note(repo)  # a read served from here is a read of it
                return value
            self._drop(full)
        if record:
            self.metrics.record_cache(namespace, False)
        return _MISSING

    def keep_sources(self, namespace: str, key: str, value: Any, sources: Sources) -> None:
        """Keep what the entry's answer named, if the entry still holds `value`."""
        full = (namespace, _partitioned(key))
        item = self._data.get(full)
        if item is not None and item[0] is value:
            self._sources[full] = sources

    def sources_of(self, namespace: str, key: str) -> Sources | None:
        return self._sources.get((namespace, _partitioned(key)))

    def lookup(self, namespace: str, key: str) -> tuple[bool, Any]:
        value = self.get(namespace, key)
        return (value is not _MISSING), (None if value is _MISSING else value)

    def peek_stale(self, namespace: str, key: str) -> Any:
        """The stored value even when expired (for ETag revalidation), or None."""
        item = self._data.get((namespace, _partitioned(key)))
        return None if item is None else item[0]

    def set(
        self, namespace: str, key: str, value: Any, *, ttl: float | None, repo: str | None = None
    ) -> None:
        if self.max_entries <= 0:
            return
        full = (namespace, _partitioned(key))
        if full in self._data:
            self._drop(full)
        expires = None if ttl is None else time.monotonic() + ttl
        repo_key = repo.lower() if repo else None
        self._data[full] = (value, expires, repo_key)
        if repo_key:
            self._by_repo.setdefault(repo_key, set()).add(full)
        while len(self._data) > self.max_entries:
            self._drop(next(iter(self._data)))
        if self.shared is not None and namespace == "etag":
            self.shared.store_soon(namespace, full[1], value, ttl=None)

    async def reserve(
        self, namespace: str, key: str, *, ttl: float | None, repo: str | None = None
    ) -> Reservation:
        """A hit, or the right to load this key: the caller loads it, then `fill`s (or
        `fail`s) the reservation, and concurrent callers of the same key wait for that one
        load. The caller keeps control of the load, so no callback runs from in here."""
        value = self.get(namespace, key)
        if value is not _MISSING:
            return Reservation.hit(value)
        full = (namespace, _partitioned(key))
        pending = self._inflight.get(full)
        repo_key = repo.lower() if repo else None
        if pending is not None:
            if repo_key is not None:
                provenance.note(repo_key)  # another call's load, read by this one too
            return Reservation.hit(await asyncio.shield(pending))
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        slot = Reservation(
            cache=self,
            namespace=namespace,
            key=key,
            ttl=ttl,
            repo=repo,
            generation=self._generations.get(repo_key, 0) if repo_key else 0,
            future=future,
        )
        self._inflight[full] = future
        try:
            shared = await self._load_shared(namespace, full[1], repo_key, slot.generation)
        except BaseException as exc:
            slot.fail(exc)
            raise
        if shared is _MISSING:
            return slot
        if repo_key is not None:
            provenance.note(repo_key)
        slot.settle(shared)
        return Reservation.hit(shared)

    async def _load_shared(
        self, namespace: str, stored_key: str, repo: str | None, generation: int
    ) -> Any:
        """The second level's value (and, for a GitHub body, its ETag validator into
        the local level, so an expired body is revalidated rather than refetched)."""
        if self.shared is None or namespace not in SHARED_NAMESPACES:
            return _MISSING
        want_validator = namespace == "http" and ("etag", stored_key) not in self._data
        value, validator = await self.shared.fetch(
            namespace, stored_key, repo, generation, validator=want_validator
        )
        if validator is not None:
            self._data[("etag", stored_key)] = (validator, None, None)
            self._sources.pop(("etag", stored_key), None)
        if value is None:
            return _MISSING
        self.metrics.record_cache(namespace + "_shared", True)
        return value

    async def sync_repo(self, repo: str) -> None:
        """Before a call on `repo`: drop local entries older than the shared generation.
        When the generation cannot be read (Redis down or frozen), another replica may
        have written since: every mutable entry of the repository goes, so the call reads
        from GitHub (and says so to the client); SHA-keyed entries, immutable, stay."""
        if self.shared is None:
            return
        generation = await self.shared.generation(repo)
        key = repo.lower()
        if generation is None:
            self.invalidate_repo(repo, keep_immutable=True)
            self._generations[key] = UNKNOWN_GENERATION  # the next one read differs
            await client_log.notice(
                "Shared state is unreachable, so nothing cached about this repository "
                "was served: this answer was read from GitHub.",
                repo=repo,
            )
            return
        if self._generations.get(key) != generation:
            self.invalidate_repo(repo)
            self._generations[key] = generation

    async def bump_repo(self, repo: str) -> None:
        """After a write on `repo`, before it is acknowledged: every replica's next call
        on it sees a newer generation."""
        self.invalidate_repo(repo)
        if self.shared is None:
            return
        generation = await self.shared.bump(repo)
        if generation is not None:
            self._generations[repo.lower()] = generation

    def invalidate_repo(self, repo: str, *, keep_immutable: bool = False) -> int:
        keys = self._by_repo.pop(repo.lower(), set())
        kept = set()
        for full in keys:
            item = self._data.get(full)
            if keep_immutable and item is not None and item[1] is None:
                kept.add(full)  # no expiry: keyed by a SHA, true whatever was written
            else:
                self._data.pop(full, None)
                self._sources.pop(full, None)
        if kept:
            self._by_repo[repo.lower()] = kept
        return len(keys) - len(kept)

    def clear(self) -> None:
        self._data.clear()
        self._sources.clear()
        self._by_repo.clear()

    def _drop(self, full: tuple[str, str]) -> None:
        item = self._data.pop(full, None)
        self._sources.pop(full, None)
        if item is not None and item[2]:
            keys = self._by_repo.get(item[2])
            if keys is not None:
                keys.discard(full)
                if not keys:
                    del self._by_repo[item[2]]


class Reservation:
    """One load of a cache key: a hit (`found`), or a miss its caller fills."""

    def __init__(
        self,
        *,
        cache: Cache | None = None,
        namespace: str = "",
        key: str = "",
        ttl: float | None = None,
        repo: str | None = None,
        generation: int = 0,
        future: asyncio.Future[Any] | None = None,
        found: bool = False,
        value: Any = None,
    ) -> None:
        self.cache, self.namespace, self.key, self.ttl = cache, namespace, key, ttl
        self.repo, self.generation, self.future = repo, generation, future
        self.found, self.value = found, value

    @classmethod
    def hit(cls, value: Any) -> Reservation:
        return cls(found=True, value=value)

    async def fill(self, value: Any) -> None:
        """Store a freshly loaded value (in the shared level too) and wake the waiters."""
        cache = self.cache
        assert cache is not None and not self.found
        if cache.shared is not None and self.namespace in SHARED_NAMESPACES:
            repo_key = self.repo.lower() if self.repo else None
            try:
                await cache.shared.store(
                    self.namespace,
                    _partitioned(self.key),
                    value,
                    ttl=self.ttl,
                    repo=repo_key,
                    generation=self.generation,
                )
            except BaseException as exc:
                self.fail(exc)
                raise
        self.settle(value)

    def settle(self, value: Any) -> None:
        """Keep `value` locally unless a write was seen meanwhile, and wake the waiters."""
        cache = self.cache
        assert cache is not None and self.future is not None
        repo_key = self.repo.lower() if self.repo else None
        # a write seen meanwhile (newer generation) makes this load too old to keep
        if not repo_key or cache._generations.get(repo_key, 0) == self.generation:
            cache.set(self.namespace, self.key, value, ttl=self.ttl, repo=self.repo)
        self.found, self.value = True, value
        if not self.future.done():
            self.future.set_result(value)
        self._release()

    def fail(self, exc: BaseException) -> None:
        """The load failed: nothing is stored, and the waiters get the same error."""
        if self.future is not None and not self.future.done():
            self.future.set_exception(exc)
            self.future.exception()  # mark retrieved: waiters re-raise it themselves
        self._release()

    def _release(self) -> None:
        if self.cache is not None:
            self.cache._inflight.pop((self.namespace, _partitioned(self.key)), None)
