"""Graceful shutdown with a real server process: SIGTERM lets an in-flight tool call
finish, ends a workspace command that would outlive the grace period, refuses new
connections, exits 0, and leaves no `sandbox-forge-*` directory behind (HTTP and stdio)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx

from tests.conftest import ROOT, traversable
from tests.ops.test_client_log import _events, _Session

DEMO = "octo-org/demo-app"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(
    tmp_path: Path, transport: str, grace: int, port: int = 0, extra_env: dict | None = None
) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "OTEL_"))}
    env.update(
        TMPDIR=str(tmp_path / "tmp"),
        GITHUB_MCP_AUTH="none",
        GITHUB_MCP_APPROVAL_MODE="env",
        GITHUB_MCP_AUTO_APPROVE="true",
        GITHUB_MCP_SHUTDOWN_GRACE_SECONDS=str(grace),
        GITHUB_MCP_WORKSPACE_DIR=str(traversable(tmp_path) / "ws"),
        GITHUB_MCP_AUDIT_LOG=str(tmp_path / "audit.jsonl"),
    )
    env.update(extra_env or {})
    (tmp_path / "tmp").mkdir(exist_ok=True)
    argv = [
        sys.executable,
        "main.py",
        "serve",
        "--transport",
        transport,
        "--sandbox-forge",
        "always",
    ]
    if transport == "http":
        argv += ["--port", str(port)]
    return subprocess.Popen(
        argv,
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _wait_for(predicate, what: str, limit_s: float = 60) -> None:
    deadline = time.monotonic() + limit_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _forge_dirs(tmp_path: Path) -> list[Path]:
    return list((tmp_path / "tmp").glob("sandbox-forge-*"))


def _ready(url: str) -> bool:
    try:
        return httpx.get(url + "/healthz", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def _marker(tmp_path: Path, name: str) -> bool:
    # os.walk skips directories that vanish mid-walk (a clone renames its folders while
    # it settles); Path.rglob raised FileNotFoundError there under load.
    root = traversable(tmp_path) / "ws"
    return any(name in files or name in dirs for _, dirs, files in os.walk(root))


async def _run_command_then_sigterm(tmp_path, proc, url: str, command: str, marker: str):
    """tools/call over plain streamable HTTP (2025-06-18), SIGTERM once the command runs;
    returns the call's result as the server sent it on that request's stream."""
    session = _Session(url)
    args = {"full_name": DEMO, "ref": "main", "command": command, "timeout_seconds": 120}
    call = asyncio.create_task(
        asyncio.to_thread(
            session.request, "tools/call", {"name": "terminal_command", "arguments": args}
        )
    )
    deadline = time.monotonic() + 90
    while not _marker(tmp_path, marker):
        assert not call.done(), call.result().text
        assert time.monotonic() < deadline, "the command never started"
        await asyncio.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    answer = await call
    [message] = [e for e in _events(answer) if "id" in e]
    return message["result"]


async def test_sigterm_lets_an_in_flight_call_finish(tmp_path):
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _start(tmp_path, "http", grace=30, port=port)
    try:
        _wait_for(lambda: _ready(url), "the server")
        assert len(_forge_dirs(tmp_path)) == 1
        result = await _run_command_then_sigterm(
            tmp_path, proc, url, "touch started-a && sleep 2 && echo finished", "started-a"
        )
        assert not result["isError"], result
        assert result["structuredContent"]["exit_code"] == 0
        assert "finished" in result["structuredContent"]["stdout"]
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not _ready(url)  # no longer accepting
    assert _forge_dirs(tmp_path) == []


async def test_a_command_outliving_the_grace_period_is_ended(tmp_path):
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _start(tmp_path, "http", grace=5, port=port)
    try:
        _wait_for(lambda: _ready(url), "the server")
        result = await _run_command_then_sigterm(
            tmp_path, proc, url, "touch started-b && sleep 300", "started-b"
        )
        payload = result["structuredContent"]
        assert not result["isError"], payload
        assert payload["exit_code"] != 0 and payload.get("killed_by")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _forge_dirs(tmp_path) == []
    stray = subprocess.run(["pgrep", "-f", "sleep 300"], capture_output=True, text=True)
    assert str(proc.pid) not in stray.stdout


def test_sigterm_over_stdio_removes_the_forge_directory(tmp_path):
    proc = _start(tmp_path, "stdio", grace=5)
    try:
        _wait_for(lambda: len(_forge_dirs(tmp_path)) == 1, "the embedded forge")
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else b""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _forge_dirs(tmp_path) == []


def test_sigterm_as_the_stdio_server_starts_serving_exits_cleanly(tmp_path):
    """SIGTERM just as the server starts serving (its tasks starting up) exits 0 at once,
    each time: the loop takes the signal, so no task mistakes the exit for its failure and
    the process never waits on tasks that will not end while the client keeps stdin open."""
    from tests.ops.test_hot_path import _first_event

    for attempt in range(5):
        home = tmp_path / f"run{attempt}"
        home.mkdir()
        proc = _start(home, "stdio", grace=5)
        try:
            assert _first_event(proc, "serving", deadline_s=120)  # serving begins now
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0, attempt
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert _forge_dirs(home) == []
