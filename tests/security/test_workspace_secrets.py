"""No secret in any process's environment or command line: the server's own (after the
start-up hand-off) and its git processes' (credentials through a memfd).

The worst case is checked: a reader of every /proc/*/environ and /proc/*/cmdline on the
host, outside any sandbox, while the server clones, fetches and pushes.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from fastmcp import Client

from tests.conftest import ROOT, call_tool, mcp_client, traversable

REPO = "octo-org/ws-secrets"
FILES = {"README.md": "secrets\n"}


def _every_environ_and_cmdline() -> bytes:
    chunks = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        for part in ("environ", "cmdline"):
            try:
                chunks.append(Path(f"/proc/{name}/{part}").read_bytes())
            except OSError:
                pass
    return b"\n".join(chunks)


class ProcWatcher:
    """Reads every process's environment and command line in a loop until stopped."""

    def __init__(self, needles: list[bytes]) -> None:
        self.needles = needles
        self.hits: list[bytes] = []
        self.rounds = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            seen = _every_environ_and_cmdline()
            self.hits += [n for n in self.needles if n in seen]
            self.rounds += 1

    def __enter__(self) -> ProcWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


async def test_server_git_never_shows_the_token_in_proc(make_runtime, forge, forge_token):
    forge.seed_repo(REPO, FILES, branches={"feature": FILES, "reader": FILES})
    header_b64 = base64.b64encode(f"x-access-token:{forge_token}".encode())
    git_requests_before = sum(1 for r in forge.requests() if r.get("kind") == "git")
    # Unsandboxed: the mode where a command could read other processes' /proc entries.
    rt = make_runtime(workspace_sandbox="none")
    with ProcWatcher([forge_token.encode(), header_b64]) as watcher:
        async with mcp_client(rt) as client:
            is_error, spot = await call_tool(
                client, "ensure_workspace_clone", {"full_name": REPO, "ref": "reader"}
            )
            assert not is_error, spot
            # The patterns go in a file: on a command line they would be the leak.
            Path(spot["path"], ".patterns").write_bytes(forge_token.encode() + b"\n" + header_b64)
            # A hostile command reading /proc in a loop while the server's git runs.
            reader = asyncio.create_task(
                call_tool(
                    client,
                    "terminal_command",
                    {
                        "full_name": REPO,
                        "ref": "reader",
                        "command": "end=$((SECONDS+8)); n=0; while [ $SECONDS -lt $end ]; do "
                        "cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null "
                        "| grep -a -q -F -f .patterns && echo FOUND && break; "
                        "n=$((n+1)); done; echo rounds=$n",
                        "timeout_seconds": 60,
                    },
                )
            )
            for ref in ("feature", "feature"):  # clone, then fetch
                is_error, clone = await call_tool(
                    client, "ensure_workspace_clone", {"full_name": REPO, "ref": ref}
                )
                assert not is_error, clone
            Path(clone["path"], "pushed.txt").write_text("p\n")
            is_error, pushed = await call_tool(
                client,
                "commit_workspace",
                {"full_name": REPO, "ref": "feature", "message": "p", "push": True},
            )
            assert not is_error and pushed["pushed"], pushed
            is_error, out = await reader
            assert not is_error, out
    assert watcher.rounds > 0 and watcher.hits == []
    assert "FOUND" not in out["stdout"] and "rounds=" in out["stdout"], out
    owner, name = REPO.split("/")
    head = forge.state.repo(owner, name).git.read_ref("refs/heads/feature")
    assert head == pushed["commit_sha"]  # the server's git did authenticate
    git_requests = sum(1 for r in forge.requests() if r.get("kind") == "git")
    assert git_requests > git_requests_before


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - loopback test server
            return True
    except urllib.error.HTTPError:
        return True  # up, just unhealthy or unauthorised
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_serve_moves_secrets_out_of_its_environment(forge, forge_token, tmp_path):
    bearer = "bearer-" + os.urandom(8).hex()
    port = _free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "GH_", "COV_", "PYTEST_"))
    }
    env.update(
        GITHUB_TOKEN=forge_token,
        GITHUB_MCP_AUTH_TOKENS=bearer,
        GITHUB_API_URL=forge.base_url,
        GITHUB_MCP_AUDIT_LOG=str(tmp_path / "audit.jsonl"),
        GITHUB_MCP_WORKSPACE_DIR=str(traversable(tmp_path) / "ws"),
    )
    proc = subprocess.Popen(
        [sys.executable, "main.py", "serve", "--transport", "http", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while not _answers(url + "/healthz"):
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "server did not start"
            await asyncio.sleep(0.1)
        environ = Path(f"/proc/{proc.pid}/environ").read_bytes()
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        for secret in (forge_token, bearer):
            assert secret.encode() not in environ and secret.encode() not in cmdline
        assert b"GITHUB_TOKEN=" not in environ and b"GITHUB_MCP_AUTH_TOKENS=" not in environ
        assert b"GITHUB_API_URL=" + forge.base_url.encode() in environ  # the rest stays
        # The server still authenticates both ways: the bearer on /mcp, the token to GitHub.
        async with Client(url + "/mcp", auth=bearer) as client:
            is_error, me = await call_tool(client, "get_me")
        assert not is_error and me["login"] == "octocat", me
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            stderr = proc.stderr.read()
            assert forge_token.encode() not in stderr and bearer.encode() not in stderr
