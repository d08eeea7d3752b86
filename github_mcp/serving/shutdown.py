"""Graceful shutdown on SIGTERM (what `docker stop` and every PaaS send).

Over HTTP: readiness turns 503 at once (the load balancer stops sending work), the
listening socket closes (no new connections), in-flight tool calls get
GITHUB_MCP_SHUTDOWN_GRACE_SECONDS to finish, workspace commands still running shortly
before the end of that period are ended (SIGTERM, then SIGKILL) so their calls can still
answer, and what is left is cancelled. The process then returns normally, so every
`finally` runs: the embedded forge removes its temporary directory.

uvicorn re-raises a handled SIGTERM after its own shutdown, which kills the process
before those `finally` blocks; `GracefulServer` keeps SIGINT's behaviour but not that.
Over stdio, SIGTERM becomes a normal exit for the same reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any

import uvicorn
from sse_starlette.sse import AppStatus

from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.call_scope import IN_FLIGHT
from github_mcp.status.health import readiness

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

COMMAND_KILL_GRACE_S = 2.0
# Workspace commands are ended this long before the grace period runs out, so the tool
# call that started one can still return its (killed) result in time.
COMMAND_MARGIN_S = 3.0


class GracefulServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, rt: Runtime) -> None:
        super().__init__(config)
        self.rt = rt

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        readiness(self.rt).draining = True
        if not self.should_exit:
            log_event("shutdown_requested", signal=signal.Signals(sig).name)
        super().handle_exit(sig, frame)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        with super().capture_signals():
            yield
            # A clean stop after SIGTERM is a normal exit: do not re-raise it.
            self._captured_signals = [s for s in self._captured_signals if s != signal.SIGTERM]

    async def shutdown(self, sockets: Any = None) -> None:
        readiness(self.rt).draining = True
        grace = self.config.timeout_graceful_shutdown or 0
        ender = asyncio.create_task(end_workspace_commands_after(grace - COMMAND_MARGIN_S))
        closer = asyncio.create_task(close_streams_when_idle(grace))
        try:
            await super().shutdown(sockets)
        finally:
            ender.cancel()
            closer.cancel()
            AppStatus.should_exit = True
        log_event("shutdown_complete", unfinished_calls=IN_FLIGHT.count)


async def close_streams_when_idle(grace_s: float) -> None:
    """Once no tool call is in flight (or the grace period is over), end the open event
    streams (a client's GET stream would otherwise hold its connection to the end)."""
    deadline = time.monotonic() + grace_s
    while IN_FLIGHT.count > 0 and time.monotonic() < deadline:  # noqa: ASYNC110 - bounded
        await asyncio.sleep(0.05)
    AppStatus.should_exit = True


async def end_workspace_commands_after(delay_s: float) -> None:
    await asyncio.sleep(max(0.0, delay_s))
    from github_mcp.services.workspace import terminate_running

    ended = await terminate_running(COMMAND_KILL_GRACE_S)
    if ended:
        log_event("shutdown_ended_workspace_commands", count=ended)


def serve_http(app: Any, rt: Runtime, *, host: str, port: int) -> int:
    """Serve until SIGTERM or SIGINT; the exit status (2: the app could not be built)."""
    from github_mcp.serving.starting_app import StartingApp

    grace = rt.settings.shutdown_grace_seconds
    if isinstance(app, StartingApp) and rt.settings.listen_when_ready:
        app = app.build_now()
        log_event("http_app_ready")
    # By default the event-stream library cuts every stream at SIGTERM, in-flight tool
    # calls' answers included; GracefulServer ends the streams itself once they are done.
    AppStatus.disable_automatic_graceful_drain()  # type: ignore[no-untyped-call]
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=int(grace),
        http="httptools",  # C parser: about 10% less CPU per call than h11 (bench/load.py)
    )
    server = GracefulServer(config, rt)
    if isinstance(app, StartingApp):
        app.on_failure = lambda: setattr(server, "should_exit", True)
    server.run()
    return 2 if isinstance(app, StartingApp) and app.failed else 0
