"""Shared helpers for the workspace tests: local remotes, an authenticated git HTTP server.

No tests here. Remotes are bare repositories served over file:// or, where credentials
matter, over real HTTP through `git http-backend` behind Basic auth.
"""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from github_mcp.services.workspace._manager import WorkspaceConfig, WorkspaceManager
from tests.conftest import traversable

TOKEN = "ghs_WorkspaceTestToken0123456789abcdef"
AUTH_HEADER = "Basic " + base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
IDENT = ["-c", "user.name=Upstream", "-c", "user.email=up@example.com"]


def git(*args: str, cwd: Path | str | None = None) -> str:
    # Sandboxed clones belong to the command user; this test process may be root.
    argv = ["git", "-c", "safe.directory=*", *args]
    res = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise AssertionError(f"git {args} failed: {res.stderr}")
    return res.stdout


@dataclass
class Remote:
    """A bare repo (`bare`) plus an upstream work clone (`src`) to push new commits from."""

    full_name: str
    bare: Path
    src: Path

    def commit(self, files: dict[str, str], message: str = "upstream", branch: str = "main") -> str:
        known = git("branch", "-r", "--list", f"origin/{branch}", cwd=self.src).strip()
        git(
            "checkout",
            "-q",
            "-B",
            branch,
            f"origin/{branch}" if known else "origin/main",
            cwd=self.src,
        )
        for name, text in files.items():
            path = self.src / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        git("add", "-A", cwd=self.src)
        git(*IDENT, "commit", "-q", "-m", message, cwd=self.src)
        git("push", "-q", "origin", f"HEAD:refs/heads/{branch}", cwd=self.src)
        git("fetch", "-q", "origin", cwd=self.src)
        return self.head(branch)

    def head(self, ref: str = "main") -> str:
        return git("rev-parse", ref, cwd=self.bare).strip()


def make_remote(base: Path, full_name: str = "octo/demo", files: dict[str, str] | None = None):
    bare = base / "remotes" / f"{full_name}.git"
    bare.parent.mkdir(parents=True, exist_ok=True)
    git("init", "-q", "--bare", "-b", "main", str(bare))
    git("config", "uploadpack.allowFilter", "true", cwd=bare)
    git("config", "uploadpack.allowAnySHA1InWant", "true", cwd=bare)
    git("config", "http.receivepack", "true", cwd=bare)
    src = base / "upstream" / full_name
    src.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=src)
    git("remote", "add", "origin", str(bare), cwd=src)
    for name, text in (files or {"README.md": "demo\n", "src/app.py": "X = 1\n"}).items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git("add", "-A", cwd=src)
    git(*IDENT, "commit", "-q", "-m", "initial", cwd=src)
    git("push", "-q", "origin", "HEAD:refs/heads/main", cwd=src)
    git("fetch", "-q", "origin", cwd=src)
    return Remote(full_name, bare, src)


class FileCredentials:
    """file:// remotes; still hands out a header, so the tests can look for leaks."""

    def __init__(self, base: Path, header: str | None = AUTH_HEADER) -> None:
        self.base = base
        self.header = header

    async def auth_header(self) -> str | None:
        return self.header

    def clone_url(self, full_name: str) -> str:
        return f"file://{self.base / 'remotes'}/{full_name}.git"


@dataclass
class GitHttpServer:
    """Smart HTTP through `git http-backend`, requiring `Authorization: <AUTH_HEADER>`."""

    root: Path
    expected: str = AUTH_HEADER
    delay_s: float = 0.0
    seen_auth: list[str | None] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    def __post_init__(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._serve()

            def do_POST(self) -> None:
                self._serve()

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks = []
                    while True:
                        size = int(self.rfile.readline().strip().split(b";")[0], 16)
                        if size == 0:
                            self.rfile.readline()
                            return b"".join(chunks)
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _serve(self) -> None:
                auth = self.headers.get("Authorization")
                outer.seen_auth.append(auth)
                body = self._body()
                if outer.delay_s:
                    time.sleep(outer.delay_s)
                if auth != outer.expected:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="test"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                path, _, query = self.path.partition("?")
                env = {
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "GIT_PROJECT_ROOT": str(outer.root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "PATH_INFO": path,
                    "QUERY_STRING": query,
                    "REQUEST_METHOD": self.command,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                    "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                    "REMOTE_USER": "x-access-token",
                    "REMOTE_ADDR": "127.0.0.1",
                }
                out = subprocess.run(
                    ["git", "http-backend"], input=body, env=env, capture_output=True, check=False
                ).stdout
                head, _, payload = out.partition(b"\r\n\r\n")
                status, headers = 200, []
                for line in head.decode().split("\r\n"):
                    key, _, value = line.partition(":")
                    if key.lower() == "status":
                        status = int(value.strip().split()[0])
                    elif key:
                        headers.append((key, value.strip()))
                self.send_response(status)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.server_address[1]

    def close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


class HttpCredentials:
    def __init__(self, server: GitHttpServer, header: str | None = AUTH_HEADER) -> None:
        self.server = server
        self.header = header

    async def auth_header(self) -> str | None:
        return self.header

    def clone_url(self, full_name: str) -> str:
        return f"http://127.0.0.1:{self.server.port}/{full_name}.git"


def new_manager(tmp_path: Path, credentials=None, **config) -> WorkspaceManager:
    cfg = WorkspaceConfig(root=traversable(tmp_path) / "ws", **config)
    return WorkspaceManager(cfg, credentials or FileCredentials(tmp_path))


def processes_matching(marker: str) -> list[int]:
    """Live (non-zombie) processes whose command line contains marker."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ")
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        if marker.encode() in cmdline and stat[stat.rfind(")") + 2] != "Z":
            found.append(int(name))
    return found


async def eventually(predicate: Callable[[], object], what: str, limit_s: float = 30.0) -> None:
    """Poll `predicate` until it holds; fail naming `what` after `limit_s` seconds."""
    deadline = time.monotonic() + limit_s
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


def bwrap_usable() -> str | None:
    """Why the bwrap tests cannot run here, or None when they can."""
    if not shutil.which("bwrap"):
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    res = subprocess.run(
        ["bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "true"],
        capture_output=True,
        check=False,
    )
    if res.returncode != 0:
        return f"bwrap cannot create namespaces here: {res.stderr.decode()[:200]}"
    return None


@pytest.fixture
def remote(tmp_path: Path) -> Remote:
    return make_remote(tmp_path)


@pytest.fixture
def manager(tmp_path: Path) -> WorkspaceManager:
    return new_manager(tmp_path)


@pytest.fixture
def open_tmp():
    """A directory every user can traverse (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="ws-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def http_server(tmp_path: Path):
    server = GitHttpServer(tmp_path / "remotes")
    yield server
    server.close()
