"""The SHIPPED deploy/nginx.conf in front of two replicas sharing Redis (real nginx,
real redis-server, two `main.py serve` processes), with only the upstream addresses and
the listening port rewritten. Every session opened through it works on every call: the
replica that opens a session names it by nginx's request id, which nginx hashed to choose
that replica, so the session's later requests hash to it too. Before, 11 of 20 sessions
got 404 Session not found."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import httpx2 as httpx
import pytest

from tests.conftest import DEMO_REPO, traversable
from tests.replicas.cluster import BEARER, ROOT, Cluster, NginxProcess, free_port
from tests.security.test_principals import RawClient

SESSIONS = 20
CALLS_PER_SESSION = 3
PROTOCOL = "2025-06-18"  # the handshake era: sessions


class ShippedNginx(NginxProcess):
    """deploy/nginx.conf as shipped; upstream servers and `listen` point at loopback."""

    def __init__(self, directory: Path, ports: list[int], http_extra: str = "") -> None:
        """`http_extra`: directives added at the top of the http block (a benchmark's
        access log with timings)."""
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "logs").mkdir(exist_ok=True)
        port = free_port()
        text = (ROOT / "deploy" / "nginx.conf").read_text()
        upstreams = re.findall(r"^\s*server replica\d+:8000.*$", text, flags=re.M)
        assert len(upstreams) >= len(ports), "the shipped upstream block changed"
        for line, upstream_port in zip(upstreams, ports, strict=False):
            text = text.replace(line, line.replace(line.split()[1], f"127.0.0.1:{upstream_port}"))
        for line in upstreams[len(ports) :]:
            text = text.replace(line + "\n", "")
        text = text.replace("listen 8080;", f"listen 127.0.0.1:{port};")
        if http_extra:
            text = text.replace("http {", "http {\n" + http_extra, 1)
        (directory / "nginx.conf").write_text(f"pid {directory}/nginx.pid;\n" + text)
        super().__init__(directory, port, "daemon off; error_log stderr warn;")


@pytest.fixture
def shipped(forge, forge_token, tmp_path):
    cluster = Cluster(
        tmp_path,
        api_url=forge.base_url,
        token=forge_token,
        count=2,
        stateless=False,
        workspace_dir=traversable(tmp_path),
        extra_env={"GITHUB_MCP_SESSION_ID_HEADER": "X-Request-Id"},
    )
    nginx = ShippedNginx(tmp_path / "shipped-nginx", [r.port for r in cluster.replicas])
    yield cluster, nginx
    nginx.stop()
    for replica in cluster.replicas:
        if replica.proc.poll() is None:
            replica.proc.send_signal(signal.SIGCONT)
    cluster.close()


READ = ("get_file_contents", {"full_name": DEMO_REPO, "path": "README.md", "ref": "main"})


def test_every_session_through_the_shipped_nginx_config_works(shipped, forge):
    cluster, nginx = shipped
    client = RawClient(nginx.url, BEARER, PROTOCOL)
    sessions = [client.initialize() for _ in range(SESSIONS)]
    assert all(re.fullmatch(r"[0-9a-f]{32}", s) for s in sessions)
    statuses = [client.call(*READ, s)[0] for s in sessions for _ in range(CALLS_PER_SESSION)]
    assert statuses == [200] * (SESSIONS * CALLS_PER_SESSION)
    # both replicas hold sessions: the hash spread them, and each came back to its own
    holders = [
        int(
            re.search(
                r'id="sessions-open"[^>]*>(\d+)<',
                httpx.get(
                    r.url + "/status", headers={"Authorization": f"Bearer {BEARER}"}, timeout=10
                ).text,
            ).group(1)
        )  # type: ignore[union-attr]
        for r in cluster.replicas
    ]
    assert sum(holders) == SESSIONS and min(holders) > 0

    # A replica dies (SIGKILL): its sessions are gone (404, the client starts over, as the
    # protocol says), the other replica's sessions carry on, and new sessions work.
    cluster.replicas[0].kill()
    after = [client.call(*READ, s)[0] for s in sessions]
    assert set(after) <= {200, 404} and after.count(200) >= holders[1]
    fresh = client.initialize()
    assert client.call(*READ, fresh)[0] == 200
