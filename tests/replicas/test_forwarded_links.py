"""Approval links behind the SHIPPED deploy/nginx.conf name the address clients use.

A replica behind nginx sees nginx's request: `Host $host` carries no port. With
GITHUB_MCP_TRUSTED_PROXIES naming nginx's address, the replica takes scheme, host and port
from the X-Forwarded-* headers nginx sets, so the link a refused write hands out points at
nginx's own address; without it, the link loses the port. The forwarded host still meets
the Host check. Real nginx, real redis-server, a real replica, the sandbox forge."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from github_mcp.serving.forwarded import forwarded_origin
from tests.conftest import settled_requests, traversable
from tests.replicas.cluster import BEARER, Cluster
from tests.replicas.test_shipped_nginx import ShippedNginx
from tests.security.test_principals import RawClient
from tests.test_tools_write import head, new_repo

PROTOCOL = "2025-11-25"


def _deployment(forge: Any, token: str, tmp: Path, trusted: str) -> tuple[Cluster, ShippedNginx]:
    cluster = Cluster(
        tmp,
        api_url=forge.base_url,
        token=token,
        count=1,
        stateless=False,
        workspace_dir=traversable(tmp),
        extra_env={
            "GITHUB_MCP_SESSION_ID_HEADER": "X-Request-Id",
            "GITHUB_MCP_APPROVAL_MODE": "auto",  # a client without elicitation gets a link
            "GITHUB_MCP_TRUSTED_PROXIES": trusted,
        },
    )
    try:
        return cluster, ShippedNginx(tmp / "shipped-nginx", [r.port for r in cluster.replicas])
    except BaseException:
        cluster.close()
        raise


@pytest.fixture
def behind_nginx(forge, forge_token, tmp_path, request) -> Iterator[tuple[Cluster, ShippedNginx]]:
    cluster, nginx = _deployment(forge, forge_token, tmp_path, request.param)
    yield cluster, nginx
    nginx.stop()
    cluster.close()


def _refused_link(url: str, repo: str) -> str:
    client = RawClient(url, BEARER, PROTOCOL)
    session = client.initialize()
    args = {
        "full_name": repo,
        "branch": "main",
        "message": "needs approval",
        "files": [{"path": "README.md", "content": "changed\n"}],
    }
    status, result = client.call("commit_files", args, session)
    assert status == 200 and result["isError"], result
    error = result["structuredContent"]["error"]
    assert error["code"] == "write_not_allowed", error
    return str(error["approval_url"])


@pytest.mark.parametrize("behind_nginx", ["127.0.0.1"], indirect=True)
def test_links_from_a_trusted_proxy_name_the_address_clients_use(behind_nginx, forge):
    _cluster, nginx = behind_nginx
    repo = new_repo(forge, {"README.md": "start\n"}, branches={}, prefix="forwarded-org")
    before = head(forge, repo, "main")
    link = _refused_link(nginx.url, repo)
    assert link.startswith(nginx.url + "/approvals/"), link  # scheme, host and port
    # the page behind the link is served through nginx (it signs a browser in itself,
    # never with an HTTP Basic prompt)
    page = httpx.get(link.split("#", 1)[0], timeout=30)
    assert page.status_code == 200 and "www-authenticate" not in page.headers, page.text
    # a client's own X-Forwarded-Host is overwritten by nginx; a Host of its own choosing
    # is then checked as the host clients use, and refused
    forged = httpx.get(
        nginx.url + "/healthz", headers={"X-Forwarded-Host": "evil.example"}, timeout=30
    )
    assert forged.status_code == 200
    forge.clear_requests()
    hostile = httpx.post(
        nginx.url + "/mcp",
        headers={"Host": "evil.example", "Authorization": f"Bearer {BEARER}"},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        timeout=30,
    )
    assert hostile.status_code in (403, 421), hostile.text
    assert [r for r in settled_requests(forge) if r["path"] != "/rate_limit"] == []
    assert head(forge, repo, "main") == before  # nothing was written


@pytest.mark.parametrize("behind_nginx", ["10.255.255.1"], indirect=True)
def test_links_from_an_untrusted_proxy_keep_the_request_host(behind_nginx, forge):
    _cluster, nginx = behind_nginx
    repo = new_repo(forge, {"README.md": "start\n"}, branches={}, prefix="forwarded-org")
    link = _refused_link(nginx.url, repo)
    # nginx's `Host $host` carries no port, and the headers were not believed
    assert link.startswith("http://127.0.0.1/approvals/"), link


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"x-forwarded-proto": "https", "x-forwarded-host": "mcp.example.com"}, "https"),
        ({"x-forwarded-host": "mcp.example.com", "x-forwarded-port": "8443"}, "http"),
        ({"x-forwarded-proto": "https, http", "x-forwarded-host": "a.example, b"}, "https"),
    ],
)
def test_forwarded_origin_reads_the_client_facing_values(headers, expected):
    found = forwarded_origin(headers, "http", "10.0.0.5:8000")
    assert found is not None and found[0] == expected
    assert found[1] in ("mcp.example.com", "mcp.example.com:8443", "a.example")


@pytest.mark.parametrize(
    "headers",
    [
        {"x-forwarded-host": "evil.example/path"},
        {"x-forwarded-host": "user@evil.example"},
        {"x-forwarded-host": "evil.example\r\nX-Injected: 1"},
        {"x-forwarded-host": "a b"},
        {"x-forwarded-proto": "javascript"},
        {"x-forwarded-port": "99999"},
        {"x-forwarded-port": "80abc"},
    ],
)
def test_malformed_forwarded_values_are_ignored(headers):
    assert forwarded_origin(headers, "http", "127.0.0.1:8000") is None
