"""The nginx block of docs/DEPLOY.md's "Routing and rate limits by repository", run in a
real nginx in front of a real server: calls are limited per repository named by the
`Mcp-Param-Repository` header (the block's rate lowered to one a minute, so the third
quick call for one repository is refused while another repository's call passes), and a
header that differs from the body is still refused by the server behind it (-32020).
nginx missing is a failure (tests/install_system_packages.sh installs it)."""

from __future__ import annotations

import http.client
import json
import re
import uuid
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.replicas.cluster import NginxProcess, free_port
from tests.stdio_session import modern_meta
from tests.test_tasks_http import Server

SECTION = "## Routing and rate limits by repository"


def _documented_block() -> str:
    text = (ROOT / "docs" / "DEPLOY.md").read_text()
    section = text[text.index(SECTION) :]
    return re.search(r"```nginx\n(.*?)```", section, flags=re.S).group(1)


class DocumentedNginx(NginxProcess):
    def __init__(self, directory, upstream_port: int) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        port = free_port()
        block = _documented_block()
        assert "rate=10r/s" in block and "burst=20" in block and "listen 8080;" in block
        block = block.replace("rate=10r/s", "rate=1r/m").replace("burst=20", "burst=1")
        block = block.replace("listen 8080;", f"listen 127.0.0.1:{port};")
        health = (
            "location = /healthz {\n"
            "        proxy_pass http://github_mcp;\n"
            "        proxy_set_header Host $host;\n"
            "    }\n"
            "    location /mcp {"
        )
        block = block.replace("location /mcp {", health)
        temp = "".join(
            f"  {kind}_temp_path {directory}/{kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (directory / "nginx.conf").write_text(
            f"pid {directory}/nginx.pid;\nerror_log {directory}/error.log warn;\n"
            "events { worker_connections 64; }\n"
            f"http {{\n  access_log {directory}/access.log;\n{temp}"
            f"  upstream github_mcp {{ server 127.0.0.1:{upstream_port}; }}\n{block}}}\n"
        )
        super().__init__(directory, port)


@pytest.fixture
def gateway(forge, forge_token, tmp_path):
    server = Server(tmp_path, forge.base_url, forge_token)
    nginx = None
    try:
        nginx = DocumentedNginx(tmp_path / "nginx", server.port)
        yield nginx
    finally:
        if nginx is not None:
            nginx.stop()
        server.stop()


def _call(url: str, full_name: str, header: str) -> tuple[int, Any]:
    params = {"name": "get_repository", "arguments": {"full_name": full_name}}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {**params, "_meta": modern_meta()},
    }
    sent = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "get_repository",
        "Mcp-Param-Repository": header,
    }
    connection = http.client.HTTPConnection(url.removeprefix("http://"), timeout=120)
    try:
        connection.request("POST", "/mcp", body=json.dumps(body), headers=sent)
        response = connection.getresponse()
        text = response.read().decode()
        return response.status, json.loads(text) if response.status in (200, 400) else text
    finally:
        connection.close()


def test_the_documented_gateway_limits_per_repository(gateway, forge):
    first, second = (f"octo-org/gw-{uuid.uuid4().hex[:8]}" for _ in range(2))
    for name in (first, second):
        forge.seed_repo(name, {"README.md": "gateway\n"})
    # one a minute and a burst of one: two calls pass, the third is over the limit
    statuses = [_call(gateway.url, first, first)[0] for _ in range(3)]
    assert statuses == [200, 200, 429], statuses
    status, answer = _call(gateway.url, second, second)  # its own bucket
    assert status == 200 and answer["result"]["structuredContent"]["full_name"] == second
    # a header naming one repository and a body naming another: nginx lets it through
    # (its bucket, `second`, has room left) and the server refuses it
    status, refused = _call(gateway.url, first, second)
    assert status == 400 and refused["error"]["code"] == -32020, refused
