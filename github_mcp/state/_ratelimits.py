"""GitHub rate-limit back-offs shared by replicas, so they back off together.

GitHub counts limits per token (or installation), not per process: when one replica is
told to wait (a secondary limit's Retry-After) or finds a primary limit exhausted
(`x-ratelimit-remaining: 0` until `x-ratelimit-reset`), every replica sending with that
token must hold off too, or the others keep spending what the first was told to save.

One Redis hash per token (keyed by a short digest of the token, never the token):
`secondary` and each resource (`core`, `graphql`, `search`, `code_search`) map to the
epoch second until which requests must wait. The replica that learns of a limit writes
it before it answers its own call; every replica reads the two fields that concern its
next request (one HMGET) just before sending it. A cached read sends nothing, so it
costs nothing. A wait within `GITHUB_MAX_RETRY_WAIT` is slept through; a
longer one, or an exhausted primary limit, is refused at once with `rate_limited`.
When Redis is unreachable the board is skipped: each replica still honours what GitHub
tells it directly, as a lone server does.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Mapping

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.state._connection import SharedState, pending

SECONDARY = "secondary"
DEFAULT_SECONDARY_WAIT_S = 60.0
# A waiter sleeps through at most this many back-offs in a row before refusing.
MAX_WAITS = 3


def resource_of(route: str) -> str:
    """The primary-limit bucket a REST route or GraphQL request is charged to."""
    if route.startswith("/graphql"):
        return "graphql"
    if route.startswith("/search/code"):
        return "code_search"
    if route.startswith("/search"):
        return "search"
    return "core"


def _number(raw: str | None) -> float | None:
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


class SharedRateLimits:
    def __init__(self, state: SharedState, *, max_wait_s: float) -> None:
        self._state = state
        self.max_wait_s = max_wait_s

    def _key(self, token: str | None) -> str:
        digest = hashlib.sha256((token or "anonymous").encode()).hexdigest()[:24]
        return self._state.key("ratelimit", digest)

    async def wait_turn(self, token: str | None, route: str) -> None:
        """Before sending a request: sleep out a short shared back-off, or refuse with
        `rate_limited` when it is long or the primary limit is exhausted."""
        resource = resource_of(route)
        for _ in range(MAX_WAITS):
            try:
                async with self._state.op("ratelimit_get") as r:
                    secondary, primary = await pending(
                        r.hmget(self._key(token), [SECONDARY, resource])
                    )
            except GitHubMCPError:
                return  # Redis down: each replica relies on what GitHub tells it
            now = time.time()
            reset_at = _number(primary.decode() if primary else None)
            if reset_at is not None and reset_at > now:
                raise GitHubMCPError(
                    ErrorCode.RATE_LIMITED,
                    f"GitHub's {resource} rate limit for this token is exhausted (seen by a "
                    f"replica of this server); it resets at "
                    f"{time.strftime('%H:%M:%SZ', time.gmtime(reset_at))}.",
                    retry_after=int(reset_at - now) + 1,
                    reset_at=int(reset_at),
                    hint="Wait for the reset; this server does not sleep through it.",
                )
            until = _number(secondary.decode() if secondary else None)
            if until is None or until <= now:
                return
            wait = until - now
            if wait > self.max_wait_s:
                raise GitHubMCPError(
                    ErrorCode.RATE_LIMITED,
                    "GitHub's secondary rate limit was hit (by a replica of this server "
                    "using the same token); every replica is backing off.",
                    retry_after=round(wait, 1),
                    hint=f"Retry after {int(wait) + 1} s.",
                )
            log_event("rate_limit_shared_wait", seconds=round(wait, 2), route=route)
            await asyncio.sleep(wait)
        raise GitHubMCPError(
            ErrorCode.RATE_LIMITED,
            "GitHub's secondary rate limit kept being hit by the replicas of this server.",
            hint="Retry in a minute.",
        )

    async def observe(
        self, token: str | None, status: int, headers: Mapping[str, str], message: str
    ) -> None:
        """After a response: publish a back-off GitHub asked for, for every replica."""
        retry_after = headers.get("retry-after")
        remaining = headers.get("x-ratelimit-remaining")
        now = time.time()
        fields: dict[str, str] = {}
        if status in (403, 429) and (
            retry_after is not None or "secondary rate limit" in message.lower()
        ):
            wait = _number(retry_after)
            until = now + (wait if wait is not None else DEFAULT_SECONDARY_WAIT_S)
            fields[SECONDARY] = f"{until:.3f}"
        elif remaining == "0":
            reset = _number(headers.get("x-ratelimit-reset"))
            resource = headers.get("x-ratelimit-resource") or "core"
            if reset is not None and reset > now:
                fields[resource] = f"{reset:.0f}"
        if not fields:
            return
        longest = max(float(v) for v in fields.values()) - now
        key = self._key(token)
        try:
            async with self._state.op("ratelimit_set") as r:
                pipe = r.pipeline(transaction=False)
                pipe.hset(key, mapping=fields)
                # the key outlives its longest back-off by a little, then goes
                pipe.expire(key, max(1, int(longest) + 5), gt=True)
                pipe.expire(key, max(1, int(longest) + 5), nx=True)
                await pipe.execute()
        except GitHubMCPError:
            return
        log_event("rate_limit_shared", fields=sorted(fields), seconds=round(longest, 1))
