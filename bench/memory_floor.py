"""The protocol library's own memory per abandoned session: a bare FastMCP streamable-HTTP
server with one tool, measured like bench/memory_retainers.py's `sessions` (tracemalloc
inside the server process, started once it is up; each session initializes, makes one
call and is abandoned). `--light` adds serving/session_context's changes to the same bare
server, to show what they save apart from our server's own per-session records.

    python bench/memory_floor.py [--sessions 200] [--light]
"""

from __future__ import annotations

import argparse
import itertools
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import httpx2 as httpx
from _forge_process import ROOT
from memory_retainers import report, snapshot

PROTOCOL = "2025-11-25"


def serve(port: int, light: bool) -> None:
    """The child: a bare server, tracemalloc on SIGUSR2, snapshots on SIGUSR1."""
    sys.path.insert(0, str(ROOT))
    import _traced_main
    import uvicorn
    from fastmcp import FastMCP

    signal.signal(signal.SIGUSR2, _traced_main._start)
    signal.signal(signal.SIGUSR1, _traced_main._dump)
    mcp = FastMCP("floor")

    @mcp.tool
    def echo(text: str) -> str:
        return text

    app = mcp.http_app(transport="streamable-http")
    if light:
        from github_mcp.serving.http_sessions import SessionLimits

        SessionLimits(idle_timeout_s=3600, max_sessions=100_000, stateless=False).attach(app)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


class Session:
    def __init__(self, http: httpx.Client, url: str) -> None:
        self.http, self.url, self.ids = http, url, itertools.count(1)
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "mcp-protocol-version": PROTOCOL,
        }
        params = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "b"}}
        opened = self.post({"id": next(self.ids), "method": "initialize", "params": params})
        self.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        self.post({"method": "notifications/initialized"})

    def post(self, message: dict[str, Any]) -> httpx.Response:
        answer = self.http.post(
            self.url, json={"jsonrpc": "2.0", **message}, headers=self.headers, timeout=60
        )
        answer.raise_for_status()
        return answer

    def call(self) -> None:
        params = {"name": "echo", "arguments": {"text": "hello"}}
        answer = self.post({"id": next(self.ids), "method": "tools/call", "params": params})
        assert "hello" in answer.text, answer.text[:300]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--light", action="store_true")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.light)
        return
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        snap = Path(tmp) / "snap"
        argv = [sys.executable, __file__, "--serve", str(port)] + (
            ["--light"] if args.light else []
        )
        env = {**os.environ, "BENCH_TRACEMALLOC_SNAPSHOT": str(snap)}
        proc = subprocess.Popen(argv, env=env, cwd=ROOT)
        url = f"http://127.0.0.1:{port}/mcp"
        try:
            _wait_up(url, proc)
            os.kill(proc.pid, signal.SIGUSR2)
            with httpx.Client() as http:
                for _ in range(20):  # warm-up
                    Session(http, url).call()
                before = snapshot(proc.pid, snap)
                for _ in range(args.sessions):
                    Session(http, url).call()  # then abandoned: no DELETE
                after = snapshot(proc.pid, snap)
        finally:
            proc.terminate()
            proc.wait(15)
    print(f"bare FastMCP server{' + session_context' if args.light else ''}:")
    report(before, after, args.sessions, args.top)


def _wait_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            httpx.get(url, timeout=5)
            return
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the bare server did not start")


if __name__ == "__main__":
    main()
