"""A real deployment on loopback for the replica tests and the benchmark: redis-server,
N server processes (`main.py serve --transport http`) sharing it, and nginx in front.

Every piece is a real process in a temporary directory on its own port. A missing
redis-server or nginx is a failure, never a skip (tests/install_system_packages.sh
installs both)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx

ROOT = Path(__file__).resolve().parents[2]
BEARER = "replica-test-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(predicate: Any, what: str, limit_s: float = 60) -> None:
    deadline = time.monotonic() + limit_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _tool(name: str) -> str:
    found = shutil.which(name) or next(
        (p for p in (f"/usr/bin/{name}", f"/usr/sbin/{name}") if Path(p).exists()), None
    )
    if found is None:
        raise AssertionError(f"{name} is missing: run tests/install_system_packages.sh")
    return found


class Redis:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                _tool("redis-server"),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
                "--protected-mode",
                "yes",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self.answers, "redis-server")

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


class Replica:
    def __init__(self, index: int, directory: Path, env: dict[str, str], stateless: bool) -> None:
        self.index = index
        self.port = free_port()
        self.log = directory / f"replica{index}.log"
        self.argv = [sys.executable, "main.py", "serve", "--transport", "http"]
        self.argv += ["--port", str(self.port)] + (["--stateless"] if stateless else [])
        self.env = env
        self.proc = self._spawn("wb")

    def _spawn(self, mode: str) -> subprocess.Popen[bytes]:
        with self.log.open(mode) as log:
            return subprocess.Popen(
                self.argv, cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=log
            )

    def restart(self) -> None:
        """Start it again on its port (after `kill`), logging on after its last life."""
        assert self.proc.poll() is not None, "restart a replica only once it has exited"
        self.proc = self._spawn("ab")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def healthy(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"replica {self.index} exited: {self.log.read_text()[-2000:]}")
        try:
            return httpx.get(self.url + "/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


NGINX_CONF = """
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log {dir}/nginx-access.log;
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  # A session's requests go to the replica holding it; a request without one (a new
  # session, or the stateless transport) is spread round-robin (keyed on its own id).
  map $http_mcp_session_id $affinity {{ "" $request_id; default $http_mcp_session_id; }}
  upstream replicas {{
    {balance}
{servers}
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host 127.0.0.1;
      proxy_buffering off;
      proxy_cache off;
      proxy_read_timeout 300s;
      proxy_next_upstream error timeout http_502 http_503;
    }}
  }}
}}
"""


class NginxProcess:
    """nginx run in the foreground from `directory/nginx.conf`, answering on `port`."""

    def __init__(self, directory: Path, port: int, globals_: str = "daemon off;") -> None:
        self.port = port
        conf = str(directory / "nginx.conf")
        self.proc = subprocess.Popen(
            [_tool("nginx"), "-p", str(directory), "-c", conf, "-g", globals_],
            stdout=subprocess.DEVNULL,
            stderr=(directory / "nginx-stderr.log").open("wb"),
        )
        wait_for(self.answers, "nginx")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answers(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError("nginx exited")
        try:
            return httpx.get(self.url + "/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


class Nginx(NginxProcess):
    def __init__(self, directory: Path, replicas: list[Replica], affinity: bool) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        port = free_port()
        servers = "\n".join(
            f"    server 127.0.0.1:{r.port} max_fails=1 fail_timeout=30s;" for r in replicas
        )
        (directory / "nginx.conf").write_text(
            NGINX_CONF.format(
                dir=directory,
                port=port,
                servers=servers,
                balance="hash $affinity consistent;" if affinity else "",
            )
        )
        super().__init__(directory, port)


class Cluster:
    """Redis, `count` replicas, nginx. `stateless`: the stateless HTTP transport (every
    request may land on any replica); else sessions, with nginx affinity on them."""

    def __init__(
        self,
        directory: Path,
        *,
        api_url: str,
        token: str,
        count: int = 3,
        stateless: bool = True,
        shared: bool = True,
        extra_env: dict[str, str] | None = None,
        workspace_dir: Path | None = None,
        workspace_dirs: list[Path] | None = None,
    ) -> None:
        self.directory = directory
        self.redis = Redis(directory / "redis") if shared else None
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "OTEL_"))}
        (directory / "tmp").mkdir(parents=True, exist_ok=True)
        env.update(
            TMPDIR=str(directory / "tmp"),
            GITHUB_API_URL=api_url,
            GITHUB_TOKEN=token,
            GITHUB_MCP_AUTH="bearer",
            GITHUB_MCP_AUTH_TOKENS=BEARER,
            GITHUB_MCP_APPROVAL_MODE="tool",
            GITHUB_MCP_LOG_LEVEL="INFO",
            GITHUB_MCP_WORKSPACE_DIR=str(workspace_dir or directory / "ws"),
            FASTMCP_SHOW_SERVER_BANNER="false",
        )
        if self.redis is not None:
            env["GITHUB_MCP_STATE_URL"] = self.redis.url
        env.update(extra_env or {})
        self.replicas: list[Replica] = []
        try:
            for index in range(count):
                audit = str(directory / f"audit{index}.jsonl")
                replica_env = dict(env, GITHUB_MCP_AUDIT_LOG=audit)
                if workspace_dirs:  # each replica's clones on its own disk
                    replica_env["GITHUB_MCP_WORKSPACE_DIR"] = str(workspace_dirs[index])
                self.replicas.append(Replica(index, directory, replica_env, stateless))
            for replica in self.replicas:
                # a loaded machine starts a replica slowly
                wait_for(replica.healthy, f"replica {replica.index}", limit_s=150)
            self.nginx = Nginx(directory / "nginx", self.replicas, affinity=not stateless)
        except BaseException:
            self.close()  # a replica that never got healthy must not outlive the test
            raise

    def revive(self) -> Cluster:
        """For a cluster a module's tests share: a replica an earlier test killed is started
        again on its port, and Redis let go if a test left it frozen."""
        if self.redis is not None and self.redis.proc is not None:
            self.redis.proc.send_signal(signal.SIGCONT)
        for replica in self.replicas:
            if replica.proc.poll() is not None:
                replica.restart()
                wait_for(replica.healthy, f"replica {replica.index}", limit_s=150)
        return self

    def close(self) -> None:
        nginx = getattr(self, "nginx", None)  # absent when start-up failed before it
        if nginx is not None:
            nginx.stop()
        for replica in self.replicas:
            replica.stop()
        if self.redis is not None:
            self.redis.stop()


def client(url: str) -> Any:
    """A fastmcp client of `url`/mcp with the cluster's bearer token (it lists the tools
    once connected, as a 2026-07-28 client does before calling)."""
    from fastmcp.client.transports import StreamableHttpTransport

    from tests.conftest import ListingClient

    transport = StreamableHttpTransport(url + "/mcp", headers={"Authorization": f"Bearer {BEARER}"})
    return ListingClient(transport, timeout=120)
