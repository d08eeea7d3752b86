"""The circuit breaker in front of Redis: a stalled Redis costs milliseconds, not seconds.

A thread of its own PINGs Redis on a connection of its own every PROBE_EVERY_S with a
STALL_S timeout, so a stall is noticed within PROBE_EVERY_S + STALL_S (0.25 s). A PING
that times out or fails, or a command that cannot reach Redis, opens the breaker: Redis
counts as down, every command in flight is cancelled (its caller gets `unavailable` at
once) and new ones are refused without touching the network. The thread keeps probing
and closes the breaker at the first PONG, within PROBE_EVERY_S + one round trip of
Redis's return; then the clean-up that failed meanwhile (a lock or a write claim to let
go) runs.

A breaker that has just opened may be a flap: on a busy machine one PONG later than
STALL_S opens it until the next probe answers, PROBE_EVERY_S later. So a write's command
that finds it open within FLAP_S of its opening waits (at most until then) for it to
close before it is refused; later in an outage, and for reads (which fall back to
GitHub), commands are refused at once.

The probe runs outside the event loop on purpose: a loop busy with other work would make
a healthy Redis look slow. A Redis that answers in more than STALL_S (stopped, frozen,
or slowed) is treated as down; reads then go to GitHub uncached, and writes that need
the shared lock are refused.
"""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

STALL_S = 0.2
PROBE_EVERY_S = 0.05
FLAP_S = 0.1  # two probes' time: a flap has closed by then, an outage has not


@dataclass(eq=False)
class Watch:
    """A command in flight on `loop`'s `task`; `tripped` once the breaker cancelled it."""

    loop: asyncio.AbstractEventLoop
    task: asyncio.Task[Any]
    tripped: bool = False
    active: bool = True


@dataclass(eq=False)
class _Deferred:
    loop: asyncio.AbstractEventLoop
    job: Callable[[], Any] = field(repr=False)


class Breaker:
    def __init__(self, url: str, on_change: Callable[[bool, str], None]) -> None:
        self.url = url
        self.opened_at: float | None = None  # wall-clock time it opened; None: closed
        self.trips = 0
        self._on_change = on_change
        self._lock = threading.Lock()
        self._watches: set[Watch] = set()
        self._deferred: list[_Deferred] = []
        self._closing: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def is_open(self) -> bool:
        return self.opened_at is not None

    async def closes_soon(self) -> bool:
        """Closed, or closed within FLAP_S of its opening (a flap): waits at most that
        long. False for an outage, at once once it is older than FLAP_S."""
        loop = asyncio.get_running_loop()
        closed: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self.opened_at is None:
                return True
            left = self.opened_at + FLAP_S - time.time()
            if left <= 0:
                return False
            self._closing.append((loop, closed))
        await asyncio.wait({closed}, timeout=left)
        return self.opened_at is None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=_probe, args=(weakref.ref(self), self.url, self._stop), daemon=True
            )
            self._thread.name = "redis-breaker"
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    # -- commands in flight -------------------------------------------------------------

    def watch(self) -> Watch | None:
        task = asyncio.current_task()
        if task is None:
            return None
        watch = Watch(task.get_loop(), task)
        with self._lock:
            self._watches.add(watch)
        return watch

    def unwatch(self, watch: Watch | None) -> None:
        if watch is not None:
            watch.active = False
            with self._lock:
                self._watches.discard(watch)

    def later(self, job: Callable[[], Any]) -> None:
        """Run `job` (a coroutine function) on this loop once the breaker closes: the
        clean-up a command could not do while Redis was down (a lock, a claim). Closed
        already (the breaker flapped): in a moment."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self.opened_at is not None:
                self._deferred.append(_Deferred(loop, job))
                return
        loop.call_later(PROBE_EVERY_S * 10, _run_job, job)

    # -- state changes (from the probe thread, or from a command that failed) -----------

    def trip(self, reason: str) -> None:
        with self._lock:
            if self.opened_at is not None:
                return
            self.opened_at = time.time()
            self.trips += 1
            watches, self._watches = self._watches, set()
        for watch in watches:
            _call_soon(watch.loop, _cancel, watch)
        self._on_change(False, reason)

    def close(self) -> None:
        with self._lock:
            if self.opened_at is None:
                return
            down_s = time.time() - self.opened_at
            self.opened_at = None
            deferred, self._deferred = self._deferred, []
            closing, self._closing = self._closing, []
        for loop, closed in closing:
            _call_soon(loop, _resolve, closed)
        self._on_change(True, f"{down_s:.2f}")
        for item in deferred:
            _call_soon(item.loop, _run_job, item.job)


def _cancel(watch: Watch) -> None:
    if watch.active and not watch.task.done():
        watch.tripped = True
        watch.task.cancel()


def _resolve(closed: asyncio.Future[None]) -> None:
    if not closed.done():
        closed.set_result(None)


def _run_job(job: Callable[[], Any]) -> None:
    task = asyncio.ensure_future(job())
    _background.add(task)
    task.add_done_callback(_background.discard)


_background: set[asyncio.Future[Any]] = set()


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[..., Any], *args: Any) -> None:
    try:
        loop.call_soon_threadsafe(callback, *args)
    except RuntimeError:
        pass  # that loop has closed: nothing of it is left to cancel or clean up


def _probe(ref: weakref.ref[Breaker], url: str, stop: threading.Event) -> None:
    """PING every PROBE_EVERY_S; a PING that takes over STALL_S (or fails) opens the
    breaker, the first PONG closes it. About 20 PINGs a second: nothing to Redis."""
    client = redis.Redis.from_url(
        url,
        socket_timeout=STALL_S,
        socket_connect_timeout=STALL_S,
        retry=Retry(NoBackoff(), 0),
        health_check_interval=0,
    )
    try:
        while not stop.wait(PROBE_EVERY_S):
            breaker = ref()
            if breaker is None:
                return  # its state was dropped without aclose
            try:
                client.ping()
            except (redis.RedisError, OSError) as exc:
                breaker.trip(f"probe: {type(exc).__name__}")
            else:
                breaker.close()
            del breaker
    finally:
        client.close()
