"""Primary rate limits, per principal and resource, the way GitHub counts them."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

# path prefix -> resource; the first match wins. Anything else counts against "core".
RESOURCE_BY_PREFIX: list[tuple[str, str]] = [
    ("/search/code", "code_search"),
    ("/search/", "search"),
    ("/graphql", "graphql"),
]
# Seconds per window, and (authenticated, anonymous) limits; core uses the forge's setting.
WINDOWS = {"core": 3600, "search": 60, "code_search": 60, "graphql": 3600}
LIMITS = {"search": (30, 10), "code_search": (10, 10), "graphql": (5000, 0)}
ANONYMOUS_CORE_LIMIT = 60
RESOURCES = ("core", "search", "code_search", "graphql")


def resource_for(path: str) -> str:
    for prefix, resource in RESOURCE_BY_PREFIX:
        if path.startswith(prefix):
            return resource
    return "core"


@dataclass
class Bucket:
    resource: str
    limit: int
    remaining: int
    reset: int

    @property
    def used(self) -> int:
        return max(0, self.limit - self.remaining)

    def headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-reset": str(self.reset),
            "x-ratelimit-used": str(self.used),
            "x-ratelimit-resource": self.resource,
        }

    def as_json(self) -> dict[str, int | str]:
        return {
            "limit": self.limit,
            "remaining": self.remaining,
            "reset": self.reset,
            "used": self.used,
            "resource": self.resource,
        }


class RateLimiter:
    def __init__(self, core_limit: int = 5000):
        self.core_limit = core_limit
        self._lock = threading.Lock()
        self._buckets: dict[tuple[str, str], Bucket] = {}
        # set() also applies to buckets created later, until that window resets.
        self._preset: dict[tuple[str, str], tuple[int, int, int | None]] = {}

    def _limit(self, resource: str, anonymous: bool) -> int:
        if resource == "core":
            return ANONYMOUS_CORE_LIMIT if anonymous else self.core_limit
        authenticated, anon = LIMITS.get(resource, (self.core_limit, ANONYMOUS_CORE_LIMIT))
        return anon if anonymous else authenticated

    def bucket(self, key: str, resource: str, anonymous: bool = False) -> Bucket:
        """The live bucket for key (a principal) and resource, refilled when its window ends."""
        now = int(time.time())
        with self._lock:
            bucket = self._buckets.get((key, resource))
            if bucket is None or now >= bucket.reset:
                limit = self._limit(resource, anonymous)
                bucket = Bucket(resource, limit, limit, now + WINDOWS.get(resource, 3600))
                preset = self._preset.get((key, resource)) or self._preset.get(("*", resource))
                if preset and now < preset[1]:
                    remaining, bucket.reset, new_limit = preset
                    bucket.limit = new_limit or bucket.limit
                    bucket.remaining = min(remaining, bucket.limit)
                self._buckets[(key, resource)] = bucket
            return Bucket(bucket.resource, bucket.limit, bucket.remaining, bucket.reset)

    def consume(self, key: str, resource: str, anonymous: bool = False) -> Bucket:
        self.bucket(key, resource, anonymous)
        with self._lock:
            bucket = self._buckets[(key, resource)]
            bucket.remaining = max(0, bucket.remaining - 1)
            return Bucket(bucket.resource, bucket.limit, bucket.remaining, bucket.reset)

    def set(
        self,
        remaining: int,
        reset: int | None = None,
        resource: str = "core",
        key: str | None = None,
        limit: int | None = None,
    ) -> None:
        """Force the remaining count (and reset time, and limit) for one principal or all."""
        reset = int(reset if reset is not None else time.time() + WINDOWS.get(resource, 3600))
        with self._lock:
            self._preset[(key or "*", resource)] = (remaining, reset, limit)
            for (bucket_key, bucket_resource), bucket in self._buckets.items():
                if bucket_resource == resource and (key is None or bucket_key == key):
                    bucket.limit = limit or bucket.limit
                    bucket.remaining = min(remaining, bucket.limit)
                    bucket.reset = reset
