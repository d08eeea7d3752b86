"""Memory of one HTTP server process under many calls, and of abandoned sessions.

Starts the sandbox forge and `python main.py serve --transport http` (no Redis: the
in-process stores) as child processes, then over one streamable-HTTP session (protocol
2025-11-25, so every call's events go to the resumable-stream store) makes N cached
reads, sampling the server's RSS (/proc/<pid>/status VmRSS) as it goes. Targets: RSS
growth <= 4 MB over 20,000 calls (counted from after a warm-up of 1,000); then opens S
sessions that each make one call and are abandoned (no DELETE): RSS per abandoned session
<= 20 KB, and every one is closed by the idle timeout.

    python bench/memory.py [--calls 20000] [--sessions 500] [--before DIR]

`--before DIR` runs the same against an older checkout (its main.py, its code).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import httpx2 as httpx
from _forge_process import ROOT, ForgeProcess

PROTOCOL = "2025-11-25"
TOKEN = "bench-memory-token-0123456789abcdef"
REPO = "bench-org/memory"
IDLE_TIMEOUT_S = 20.0


def rss_kb(pid: int) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", text).group(1))  # type: ignore[union-attr]


class Session:
    def __init__(self, http: httpx.Client, url: str) -> None:
        self.http, self.url, self.ids = http, url + "/mcp", itertools.count(1)
        self.headers = {
            "Authorization": f"Bearer {TOKEN}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "mcp-protocol-version": PROTOCOL,
        }
        params = {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        }
        answer = self.post({"method": "initialize", "params": params})
        self.headers["mcp-session-id"] = answer.headers["mcp-session-id"]
        self.http.post(
            self.url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=self.headers,
        )

    def post(self, message: dict[str, Any]) -> httpx.Response:
        body = {"jsonrpc": "2.0", "id": next(self.ids), **message}
        answer = self.http.post(self.url, json=body, headers=self.headers, timeout=60)
        answer.raise_for_status()
        return answer

    def read(self) -> None:
        args = {"full_name": REPO, "path": "README.md", "ref": "main"}
        answer = self.post(
            {"method": "tools/call", "params": {"name": "get_file_contents", "arguments": args}}
        )
        assert '"isError":false' in answer.text.replace(" ", ""), answer.text[:300]


def start_server(
    root: Path, forge: ForgeProcess, tmp: Path, entry: str = "main.py", **extra_env: str
) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "OTEL_"))}
    env.update(
        GITHUB_API_URL=forge.base_url,
        GITHUB_TOKEN=forge.token,
        GITHUB_MCP_AUTH_TOKENS=TOKEN,
        GITHUB_MCP_AUDIT_LOG=str(tmp / "audit.jsonl"),
        GITHUB_MCP_WORKSPACE_DIR=str(tmp / "ws"),
        GITHUB_MCP_LOG_LEVEL="WARNING",
        GITHUB_MCP_SESSION_IDLE_TIMEOUT_SECONDS=str(IDLE_TIMEOUT_S),
        FASTMCP_SHOW_SERVER_BANNER="false",
    )
    env.update(extra_env)
    proc = subprocess.Popen(
        [sys.executable, entry, "serve", "--transport", "http", "--port", str(port)],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 240  # slow under tracemalloc and load
    while True:
        try:
            if httpx.get(url + "/healthz", timeout=10).status_code == 200:
                return proc, url
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()  # never leave it behind
            raise RuntimeError("the server did not start")
        time.sleep(0.1)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def open_sessions(url: str) -> int:
    page = httpx.get(url + "/status", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    found = re.search(r'id="sessions-open"[^>]*>(\d+)<', page.text)
    return int(found.group(1)) if found else -1


def measure(root: Path, calls: int, sessions: int) -> dict[str, Any]:
    with ForgeProcess() as forge, tempfile.TemporaryDirectory() as tmp:
        forge.seed_repo(REPO, {"README.md": "# memory bench\n" * 20})
        proc, url = start_server(root, forge, Path(tmp))
        try:
            with httpx.Client() as http:
                session = Session(http, url)
                for _ in range(1000):  # warm-up: caches, imports, allocator pools
                    session.read()
                base = rss_kb(proc.pid)
                samples = [(0, base)]
                started = time.perf_counter()
                for i in range(1, calls + 1):
                    session.read()
                    if i % max(1, calls // 10) == 0:
                        samples.append((i, rss_kb(proc.pid)))
                elapsed = time.perf_counter() - started
                before_sessions = rss_kb(proc.pid)
                for _ in range(sessions):
                    Session(http, url).read()  # then abandoned: no DELETE
                after_sessions = rss_kb(proc.pid)
                opened = open_sessions(url)
                deadline = time.monotonic() + IDLE_TIMEOUT_S * 4
                while open_sessions(url) > 0 and time.monotonic() < deadline:
                    time.sleep(1)
                left = open_sessions(url)
        finally:
            proc.terminate()
            proc.wait(15)
    return {
        "calls": calls,
        "calls_per_s": round(calls / elapsed, 1),
        "rss_mb_after_warmup": round(base / 1024, 1),
        "rss_mb_samples": [(n, round(kb / 1024, 1)) for n, kb in samples],
        "rss_growth_mb": round((samples[-1][1] - base) / 1024, 2),
        "abandoned_sessions": sessions,
        "kb_per_abandoned_session": round((after_sessions - before_sessions) / max(1, sessions), 1),
        "sessions_open_after_abandoning": opened,
        "sessions_open_after_idle_timeout": left,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    runs = [("this tree", ROOT)] + ([("before", args.before)] if args.before else [])
    for label, root in runs:
        result = measure(root, args.calls, args.sessions)
        print(label, json.dumps(result, indent=1))
        print(
            f"{label}: RSS growth {result['rss_growth_mb']} MB over {args.calls} calls "
            f"(target <= 4), {result['kb_per_abandoned_session']} KB per abandoned session "
            f"(target <= 20), {result['sessions_open_after_idle_timeout']} left open"
        )


if __name__ == "__main__":
    main()
