"""The rate limit a search answer reports when little of it is left, so the assistant can
pace itself (GitHub allows 30 searches a minute, 10 code searches)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class RateLimitState(BaseModel):
    remaining: int
    limit: int | None = None
    resource: str | None = None
    reset: int | None = None  # epoch seconds


def low_rate_limit(seen: dict[str, Any]) -> RateLimitState | None:
    """The last observed rate limit when a tenth or less of it is left; None otherwise."""
    remaining, limit = seen.get("remaining"), seen.get("limit")
    if remaining is None or (limit and remaining > limit // 10):
        return None
    return RateLimitState(**seen)
