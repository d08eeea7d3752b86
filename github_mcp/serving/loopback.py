"""Run an ASGI app with uvicorn on an ephemeral loopback port, in a thread
(the demo and the end-to-end tests serve the HTTP transport this way)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

# Headless Chromium on a machine with no outside network: without the
# background-networking flags it keeps dialling out and starts slowly.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


@contextlib.contextmanager
def serve_in_thread(app: Any, host: str = "127.0.0.1", timeout_s: float = 20) -> Iterator[str]:
    """Yield the base URL (always reached over 127.0.0.1) while the app is served."""
    import uvicorn

    config = uvicorn.Config(app, host=host, port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="loopback-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
