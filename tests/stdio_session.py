"""MCP over stdio as a client speaks it, for the tests and the benchmarks: spawn a server,
write newline-delimited JSON-RPC frames, and note when each answer arrives.

A conversation is a list of steps; each step's frames are written at once, and the next
step starts when every request of this one has its answer (as a client waits for
`initialize` before `tools/list`). Every frame the server writes is kept in order, with
its arrival time from spawn, and the process's peak RSS (`wait4`, re-execs included).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

PROTOCOL_VERSION = "2025-06-18"
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def request(ident: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        frame["params"] = params
    return frame


def initialize(ident: int = 1, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    return request(
        ident,
        "initialize",
        {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "stdio-session", "version": "1"},
        },
    )


def modern_meta(client: str = "stdio-session") -> dict[str, Any]:
    """The `_meta` a 2026-07-28 client puts in every request (that revision has no
    handshake): its protocol version, client info and capabilities."""
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def tool_call(ident: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return request(ident, "tools/call", {"name": name, "arguments": arguments})


def opening(list_id: int = 2) -> list[list[dict[str, Any]]]:
    """initialize, then (on its answer) initialized and tools/list."""
    return [[initialize()], [INITIALIZED, request(list_id, "tools/list")]]


@dataclass
class Session:
    frames: list[dict[str, Any]] = field(default_factory=list)
    arrived: dict[Any, float] = field(default_factory=dict)  # request id -> s after spawn
    peak_rss_kib: int = 0
    returncode: int | None = None
    pid: int = 0

    def answer(self, ident: Any) -> dict[str, Any]:
        return next(f for f in self.frames if f.get("id") == ident and "method" not in f)

    def result(self, ident: Any) -> Any:
        return self.answer(ident)["result"]


def _read_lines(fd: int, pending: bytearray, deadline: float) -> list[bytes]:
    ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
    if not ready:
        raise TimeoutError("the server did not answer in time")
    chunk = os.read(fd, 1 << 16)
    if not chunk:
        raise EOFError("the server closed its output")
    pending += chunk
    *lines, rest = bytes(pending).split(b"\n")
    pending[:] = rest
    return [line for line in lines if line.strip()]


def run(
    command: list[str],
    steps: list[list[dict[str, Any]]],
    *,
    cwd: str | Path,
    env: dict[str, str],
    stderr: IO[bytes] | int = subprocess.DEVNULL,
    timeout_s: float = 120,
    on_spawn: Any = None,
    before_close: Any = None,
) -> Session:
    """Run one conversation; stdin stays open until every request is answered, then the
    server gets EOF and is waited for. `on_spawn(proc)` and `before_close(session)` let a
    caller look at the live process (its /proc entries)."""
    session = Session()
    started = time.monotonic()
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
    )
    session.pid = proc.pid
    assert proc.stdin is not None and proc.stdout is not None
    try:
        if on_spawn is not None:
            on_spawn(proc)
        fd, pending = proc.stdout.fileno(), bytearray()
        deadline = started + timeout_s
        for step in steps:
            proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in step))
            proc.stdin.flush()
            wanted = {m["id"] for m in step if "id" in m}
            while not wanted <= set(session.arrived):
                for line in _read_lines(fd, pending, deadline):
                    frame = json.loads(line)  # every line on stdout must be JSON
                    session.frames.append(frame)
                    if "id" in frame and "method" not in frame:
                        session.arrived.setdefault(frame["id"], time.monotonic() - started)
        if before_close is not None:
            before_close(session)
        proc.stdin.close()
        rest = bytes(pending) + proc.stdout.read()
        session.frames += [json.loads(line) for line in rest.splitlines() if line.strip()]
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = session.returncode = os.waitstatus_to_exitcode(status)
        session.peak_rss_kib = usage.ru_maxrss
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.wait()
    return session
