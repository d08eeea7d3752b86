"""Restart time of the HTTP server: SIGKILL, start again, until /healthz answers 200
(target: <= 1.5 s median on a 2-core machine), and on until the first MCP request (an
`initialize` on /mcp) is answered: the port answers probes while the app is still being
built (serving/starting_app.py), so both are printed.

Each run kills the serving process outright (as an OOM kill or a node failure would) and
starts `python main.py serve --transport http` on the same port, then polls /healthz every
10 ms. Printed: each run, the median, and with `--importtime` the heaviest imports of a
start (`python -X importtime`), which is where start-up time grows.

    python bench/restart.py [--runs 7] [--before DIR] [--importtime]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.stdio_session import initialize  # noqa: E402

TARGET_S = 1.5
TOKEN = "bench-restart-token-0123456789"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env(tmp: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "OTEL_"))}
    env.update(
        # GitHub unreachable on purpose: liveness must not depend on it
        GITHUB_API_URL="http://127.0.0.1:9",
        GITHUB_TOKEN="ghp_" + "0" * 36,
        GITHUB_MCP_AUTH_TOKENS=TOKEN,
        GITHUB_MCP_AUDIT_LOG=str(tmp / "audit.jsonl"),
        GITHUB_MCP_WORKSPACE_DIR=str(tmp / "ws"),
        GITHUB_MCP_LOG_LEVEL="WARNING",
        FASTMCP_SHOW_SERVER_BANNER="false",
    )
    env.update(extra or {})
    return env


def _start(
    root: Path, port: int, env: dict[str, str], *flags: str, stderr: Any = subprocess.DEVNULL
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, *flags, "main.py", "serve", "--transport", "http", "--port", str(port)],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )


def _healthy(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return sock.recv(32).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def _wait_healthy(port: int, proc: subprocess.Popen[bytes], limit_s: float = 60) -> float:
    started = time.perf_counter()
    while not _healthy(port):
        if proc.poll() is not None:
            raise RuntimeError("the server exited while starting")
        if time.perf_counter() - started > limit_s:
            raise RuntimeError("the server did not become healthy")
        time.sleep(0.01)
    return time.perf_counter() - started


def _initialize(port: int, limit_s: float = 60) -> None:
    """POST an MCP initialize and wait for its answer (it waits for the app's build)."""
    body = json.dumps(initialize()).encode()
    head = (
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        "Authorization: Bearer " + TOKEN + "\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=limit_s) as sock:
        sock.sendall(head + body)
        answer = sock.recv(64)
    if not answer.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"initialize was not answered: {answer!r}")


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the process has used: a start's cost that, unlike
    wall time, does not grow with the machine's load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(root: Path, runs: int) -> tuple[list[float], list[float], list[float]]:
    """Wall seconds from kill to /healthz 200, CPU seconds the new process had used then,
    and wall seconds from kill to the first MCP answer."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(Path(tmp))
        proc = _start(root, port, env)
        _wait_healthy(port, proc)
        times, cpu, serving = [], [], []
        for _ in range(runs):
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            killed = time.perf_counter()
            proc = _start(root, port, env)
            _wait_healthy(port, proc)
            times.append(time.perf_counter() - killed)
            cpu.append(_cpu_s(proc.pid))
            _initialize(port)
            serving.append(time.perf_counter() - killed)
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    return times, cpu, serving


def importtime(root: Path, top: int = 15) -> list[tuple[float, str]]:
    """The heaviest cumulative imports of one start, in seconds."""
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "importtime.log"
        with log.open("wb") as sink:
            proc = _start(root, port, _env(Path(tmp)), "-X", "importtime", stderr=sink)
            _wait_healthy(port, proc)
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
        text = log.read_text(errors="replace")
    rows = []
    for line in text.splitlines():
        found = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s+(.*)$", line)
        if found and not found.group(2).startswith(" "):
            rows.append((int(found.group(1)) / 1e6, found.group(2).strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", type=Path)
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    trees = [("this tree", ROOT)] + ([("before", args.before)] if args.before else [])
    for label, root in trees:
        times, cpu, serving = measure(root, args.runs)
        median = statistics.median(times)
        print(
            f"{label}: kill -> /healthz 200 median {median:.2f} s "
            f"(min {min(times):.2f}, max {max(times):.2f}; target <= {TARGET_S} s); "
            f"CPU used to get there median {statistics.median(cpu):.2f} s; "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        print("  runs:", " ".join(f"{t:.2f}" for t in times))
        print(
            f"  kill -> first MCP answer median {statistics.median(serving):.2f} s "
            f"(min {min(serving):.2f}, max {max(serving):.2f})"
        )
        if args.importtime:
            for seconds, module in importtime(root):
                print(f"  {seconds:6.3f} s  {module}")


if __name__ == "__main__":
    main()
