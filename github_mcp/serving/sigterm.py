"""SIGTERM as a normal exit while serving (stdio, and the embedded forge's lifetime), so
every `finally` runs. Over HTTP the server's own handler takes over once it serves
(shutdown.py); this module stays free of the HTTP server's imports."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

from github_mcp.monitoring.observability import log_event


@contextlib.contextmanager
def sigterm_exits() -> Iterator[None]:
    """Within the block, SIGTERM raises SystemExit(0) so cleanup runs (stdio)."""

    def stop(sig: int, frame: FrameType | None) -> None:
        log_event("shutdown_requested", signal="SIGTERM")
        raise SystemExit(0)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
