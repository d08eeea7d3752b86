"""MCP task timings over HTTP: a real `serve --transport http --sandbox-forge always`
process, a fastmcp client that declares the Tasks extension.

Prints medians (and the machine's load average) of:
- create: `terminal_command` on a feature branch answered with a task (CreateTaskResult);
- blocking: the same short command called by a 2025-11-25 client (the request held open);
- cancel: `tasks/cancel` of a `sleep 30` command until `tasks/get` says cancelled, and
  until the command's process is gone from the process table.

Usage: .venv/bin/python bench/tasks_timings.py [rounds]
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx2 as httpx
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp_tasks import call_tool_task

ROOT = Path(__file__).resolve().parents[1]
REPO = "octo-org/demo-app"
BRANCH = "feature/multiply"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _gone(marker: str) -> bool:
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return not found.stdout.strip()


async def _until(check) -> None:
    """Poll the process table (nothing else can tell when a process appears or ends)."""
    while not check():  # noqa: ASYNC110 - no event exists for another process
        await asyncio.sleep(0.02)


async def _rounds(url: str, rounds: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {"create": [], "blocking": [], "cancelled": [], "gone": []}
    args = {"full_name": REPO, "ref": BRANCH, "command": "echo hi"}
    async with Client(StreamableHttpTransport(url + "/mcp"), timeout=120) as client:
        await client.call_tool("ensure_workspace_clone", {"full_name": REPO, "ref": BRANCH})
        for _ in range(rounds):
            started = time.perf_counter()
            task = await call_tool_task(client, "terminal_command", args)
            figures["create"].append(time.perf_counter() - started)
            await task.result()
            marker = uuid.uuid4().hex
            sleeper = {**args, "command": f"python3 -c 'import time; time.sleep(30)' {marker}"}
            task = await call_tool_task(client, "terminal_command", sleeper)
            await _until(lambda marker=marker: not _gone(marker))
            started = time.perf_counter()
            await task.cancel()
            while (await task.status()).status != "cancelled":  # noqa: ASYNC110 - polled
                await asyncio.sleep(0.02)
            figures["cancelled"].append(time.perf_counter() - started)
            await _until(lambda marker=marker: _gone(marker))
            figures["gone"].append(time.perf_counter() - started)
    async with Client(StreamableHttpTransport(url + "/mcp"), mode="legacy", timeout=120) as legacy:
        for _ in range(rounds):
            started = time.perf_counter()
            await legacy.call_tool("terminal_command", args)
            figures["blocking"].append(time.perf_counter() - started)
    return figures


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    port = _free_port()
    tmp = Path(tempfile.mkdtemp(prefix="tasks-bench-"))
    tmp.chmod(0o711)  # the sandbox user passes through to the workspaces
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    env.update(
        GITHUB_MCP_AUTH="none",
        GITHUB_MCP_WORKSPACE_DIR=str(tmp / "ws"),
        GITHUB_MCP_STATE_DIR=str(tmp / "state"),
        GITHUB_MCP_AUDIT_LOG=str(tmp / "audit.jsonl"),
        GITHUB_MCP_LOG_LEVEL="WARNING",
        FASTMCP_SHOW_SERVER_BANNER="false",
    )
    argv = [sys.executable, "main.py", "serve", "--transport", "http", "--port", str(port)]
    server = subprocess.Popen(
        [*argv, "--sandbox-forge", "always"], cwd=ROOT, env=env, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        figures = asyncio.run(_rounds(url, rounds))
    finally:
        server.terminate()
        server.wait(30)
    print(f"load average {os.getloadavg()[0]:.1f}, {rounds} rounds, medians:")
    for name, values in figures.items():
        print(f"  {name:10} {statistics.median(values) * 1000:8.1f} ms")
    ratio = statistics.median(figures["blocking"]) / statistics.median(figures["create"])
    print(f"  a short command blocking / its task created: {ratio:.1f}x")


if __name__ == "__main__":
    main()
