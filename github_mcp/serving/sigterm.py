"""SIGTERM as a normal exit while serving (stdio, and the embedded forge's lifetime), so
every `finally` runs. Over HTTP the server's own handler takes over once it serves
(shutdown.py); this module stays free of the HTTP server's imports."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

from github_mcp.monitoring.observability import log_event


@contextlib.contextmanager
def sigterm_exits() -> Iterator[None]:
    """Within the block, SIGTERM raises SystemExit(0) so cleanup runs (stdio)."""

    def stop(sig: int, frame: FrameType | None) -> None:
        request_exit()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def request_exit() -> None:
    log_event("shutdown_requested", signal="SIGTERM")
    raise SystemExit(0)


def exit_from_loop(loop: asyncio.AbstractEventLoop) -> None:
    """While `loop` runs, SIGTERM wakes it and exits from a callback of its own. A
    Python-level handler runs wherever the main thread happens to be: inside a task of the
    server's task groups, its SystemExit is taken for a task's failure (an exit code of 1,
    or a wait on tasks that never end), and a loop asleep in select() may not wake at all."""
    loop.add_signal_handler(signal.SIGTERM, request_exit)
