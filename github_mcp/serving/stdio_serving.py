"""Serving over stdio: the process's stdin and stdout carry one client's MCP session,
answered by the stdio server (stdio_server.py) on one event loop.

The pipes are asyncio's own (a second, non-blocking open of each, so the flag never
reaches a descriptor the client or a terminal shares): reading never blocks the loop, and
a client slow to read its answers is buffered for, not waited on. On end of input, the
calls already taken are answered before the process exits; listen streams end and running
tasks are cancelled (nobody is left to read them).

The built-in tools are not imported to be listed (the tool index describes them); once the
first listing is answered, their modules are imported one at a time while the client is
quiet (its model thinking), with the first GitHub connection's set-up, so that a later
first call costs what any other call costs. A client that sends calls back to back is
not made to wait for modules its calls do not use.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import json
import os
import signal
import stat
import weakref
from typing import TYPE_CHECKING, Any

from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.extension_tools import import_extension_tools
from github_mcp.serving import sigterm
from github_mcp.serving.stdio_server import StdioServer

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime


def serve_stdio(rt: Runtime) -> int:
    handler = signal.getsignal(signal.SIGTERM)
    try:
        asyncio.run(_serve(rt))
    finally:
        signal.signal(signal.SIGTERM, handler)  # closing the loop reset it to the default
    return 0


async def _serve(rt: Runtime) -> None:
    from github_mcp.apps.approval_tool import install_cards

    loop = asyncio.get_running_loop()
    sigterm.exit_from_loop(loop)
    import_extension_tools()
    rt.bound_specs.refresh()
    install_cards(rt)
    out = await _writer(loop)
    server = StdioServer(rt, lambda message: _write(out, message))
    quiet = _Quiet(loop, server)
    server.on_opened = lambda: _warm(loop, rt, quiet)
    loop.call_later(_COLLECTOR_OFF_S, gc.enable)  # entry.py turned it off; at the latest now
    reader = await _reader(loop)
    log_event("serving", transport="stdio", tools=len(rt.bound_specs), collector=gc.isenabled())
    while line := await reader.readline():
        if line.strip():
            server.receive(line)
            quiet.touch()
    await server.close()  # listen streams and tasks: nobody is left to read them
    while server.running:  # the calls taken before the client closed its input
        await asyncio.gather(*server.running.values(), return_exceptions=True)
    with contextlib.suppress(OSError, RuntimeError):
        await out.drain()


def _write(out: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    line = json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n"
    with contextlib.suppress(OSError, RuntimeError):  # the client is gone
        out.write(line.encode())


async def _reader(loop: asyncio.AbstractEventLoop) -> asyncio.StreamReader:
    """stdin as a stream; from a thread when it is a regular file (no pipe to poll)."""
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    protocol = asyncio.StreamReaderProtocol(reader)
    if _pollable(0):
        await loop.connect_read_pipe(lambda: protocol, os.fdopen(_twin(0, os.O_RDONLY), "rb", 0))
        return reader

    def pump() -> None:
        with os.fdopen(os.dup(0), "rb", 0) as source:
            while chunk := source.read(65536):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        loop.call_soon_threadsafe(reader.feed_eof)

    loop.run_in_executor(None, pump)
    return reader


async def _writer(loop: asyncio.AbstractEventLoop) -> asyncio.StreamWriter:
    pipe = os.fdopen(_twin(1, os.O_WRONLY) if _pollable(1) else os.dup(1), "wb", 0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
    return asyncio.StreamWriter(transport, protocol, None, loop)


def _pollable(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def _twin(fd: int, flags: int) -> int:
    """A second open of the pipe `fd` (its own file description), or a duplicate when
    that cannot be opened (a socket)."""
    try:
        return os.open(f"/proc/self/fd/{fd}", flags | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return os.dup(fd)


_QUIET_S = 0.025  # how long the client must have been quiet before a module is imported
# The collector is off from the entry point until the warm-up's collection; this bounds
# that for a client that never pauses (its calls' cyclic garbage would pile up meanwhile).
_COLLECTOR_OFF_S = 5.0


class _Quiet:
    """How long the client has been quiet: no message from it and no call of its running."""

    def __init__(self, loop: asyncio.AbstractEventLoop, server: StdioServer) -> None:
        self.loop = loop
        self.server = server
        self.since = loop.time()
        self.watched: weakref.WeakSet[asyncio.Task[None]] = weakref.WeakSet()

    def touch(self, *_: object) -> None:
        """A message arrived (or a call ended): the quiet starts again, and again when
        each call running now ends."""
        self.since = self.loop.time()
        for task in self.server.running.values():
            if task not in self.watched:
                self.watched.add(task)
                task.add_done_callback(self.touch)

    def for_s(self) -> float:
        return 0.0 if self.server.running else self.loop.time() - self.since


def _warm(loop: asyncio.AbstractEventLoop, rt: Runtime, quiet: _Quiet) -> None:
    """Import the served tools' modules, one per turn of the loop, then the first GitHub
    connection's set-up, while the client is quiet: a call imports what it needs itself,
    and one arriving right after the list (or the last answer) should not also wait for
    other tools' modules. Then the start-up objects are frozen out of the collector's
    view (gc_tuning.py)."""
    from github_mcp.github.tls import build_in_background
    from github_mcp.monitoring.gc_tuning import tune_for_serving

    build_in_background()  # alongside a first call's imports: it waits for no quiet
    # the call seam first (a call needs it whatever its tool), then the tools' modules
    modules = ["github_mcp.serving.stdio_peer", "github_mcp.pipeline.seam"]
    modules += rt.bound_specs.modules()

    def step() -> None:
        waited = quiet.for_s()
        if waited < _QUIET_S:
            loop.call_later(_QUIET_S - waited, step)
            return
        if not modules:
            from github_mcp.github.connection import warm_up

            warm_up()
            tune_for_serving()  # collects start-up's garbage and freezes what it keeps
            gc.enable()
            log_event("stdio_warm", tools=len(rt.bound_specs), collector=gc.isenabled())
            return
        importlib.import_module(modules.pop(0))
        loop.call_soon(step)

    loop.call_soon(step)
