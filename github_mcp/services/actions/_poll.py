"""Bounded polling: load until done or a deadline, with backoff, progress and cancellation."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from github_mcp.monitoring import client_log
from github_mcp.monitoring.observability import log_event

HEARTBEAT_S = 5.0  # longest silence while waiting between polls

T = TypeVar("T")


@dataclass
class Polled:
    value: Any
    done: bool
    polls: int
    elapsed_s: float


async def poll(
    load: Callable[[], Awaitable[T]],
    finished: Callable[[T], bool],
    *,
    timeout_s: float,
    interval_s: float,
    max_interval_s: float = 30.0,
    backoff: float = 1.5,
    on_poll: Callable[[T, int, float], Awaitable[None]] | None = None,
    heartbeat_s: float = HEARTBEAT_S,
) -> Polled:
    """Load until finished(value) or the deadline; the wait between loads grows by `backoff`.

    Always loads at least once; never sleeps past the deadline. `on_poll` runs after each
    load and again every `heartbeat_s` while waiting, so a client sees progress during a
    long wait. Cancelling the caller (an MCP cancellation) ends the wait at once."""
    start = time.monotonic()
    deadline = start + max(0.0, timeout_s)
    wait = max(0.01, interval_s)
    polls = 0
    try:
        while True:
            value = await load()
            polls += 1
            elapsed = time.monotonic() - start
            if on_poll is not None:
                await on_poll(value, polls, elapsed)
            if finished(value):
                return Polled(value, True, polls, round(elapsed, 2))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                await client_log.warning(f"stopped waiting after {elapsed:.0f} s: not finished")
                return Polled(value, False, polls, round(elapsed, 2))
            await client_log.info(
                f"waiting for CI: not finished after {polls} checks ({elapsed:.0f} s)"
            )
            next_load = time.monotonic() + min(wait, remaining)
            while (pause := next_load - time.monotonic()) > 0:
                await asyncio.sleep(min(pause, heartbeat_s))
                if on_poll is not None and next_load - time.monotonic() > 0:
                    await on_poll(value, polls, time.monotonic() - start)
            wait = min(wait * backoff, max(max_interval_s, interval_s))
    except asyncio.CancelledError:
        log_event("poll_cancelled", polls=polls, elapsed_s=round(time.monotonic() - start, 2))
        raise
