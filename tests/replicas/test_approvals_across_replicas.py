"""Approvals across replicas, with no session affinity: two server processes sharing a real
redis-server, a real nginx spreading requests round-robin, a real MCP client as the model
and headless Chromium as the human. The call waits on one replica; the click lands on the
page another replica serves and releases it. Evidence: the forge's branch heads (the
approved write landed exactly once), nginx's access log (which replica served what, and
the link's key never in it) and the replicas' own logs."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StreamableHttpTransport

from tests.approvals.conftest import branch_head, commit_parents, visit_approval_page
from tests.approvals.test_page_bearer import commit_args
from tests.conftest import ListingClient, call_tool, traversable
from tests.replicas.cluster import BEARER, Redis, Replica, _tool, free_port, wait_for

# Round-robin (no hash, no affinity). Each line names the replica that served it.
NGINX_CONF = """
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
  log_format replica '$request_method $request_uri $status upstream=$upstream_addr';
  access_log {dir}/access.log replica;
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  upstream replicas {{
{servers}
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 300s;
    }}
  }}
}}
"""


@dataclass
class Deployment:
    replicas: list[Replica]
    nginx_url: str
    directory: Path
    redis_url: str

    def access_log(self) -> list[str]:
        return (self.directory / "nginx" / "access.log").read_text().splitlines()

    def replica_logs(self) -> str:
        return "".join(r.log.read_text(errors="replace") for r in self.replicas)


@pytest.fixture(scope="module")
def deployment(forge, forge_token, tmp_path_factory) -> Iterator[Deployment]:
    """Shared by the tests that each approve one write in a repository of their own."""
    with _deployed(forge, forge_token, tmp_path_factory.mktemp("deployment")) as running:
        yield running


@pytest.fixture
def own_deployment(forge, forge_token, tmp_path) -> Iterator[Deployment]:
    """For a test that counts every approval request in Redis: no other test's requests."""
    with _deployed(forge, forge_token, tmp_path) as running:
        yield running


@contextmanager
def _deployed(forge, forge_token, tmp_path: Path) -> Iterator[Deployment]:
    redis = Redis(tmp_path / "redis")
    nginx_port = free_port()
    nginx_url = f"http://127.0.0.1:{nginx_port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "OTEL_"))}
    (tmp_path / "tmp").mkdir()
    env.update(
        TMPDIR=str(tmp_path / "tmp"),
        GITHUB_API_URL=forge.base_url,
        GITHUB_TOKEN=forge_token,
        GITHUB_MCP_AUTH="bearer",
        GITHUB_MCP_AUTH_TOKENS=BEARER,
        GITHUB_MCP_APPROVAL_MODE="auto",
        GITHUB_MCP_STATE_URL=redis.url,
        GITHUB_MCP_PUBLIC_URL=nginx_url,  # the links the replicas hand out go through nginx
        GITHUB_MCP_LOG_LEVEL="INFO",
        GITHUB_MCP_WORKSPACE_DIR=str(traversable(tmp_path) / "ws"),
        FASTMCP_SHOW_SERVER_BANNER="false",
    )
    replicas = []
    for index in range(2):
        replica_env = dict(env, GITHUB_MCP_AUDIT_LOG=str(tmp_path / f"audit{index}.jsonl"))
        replicas.append(Replica(index, tmp_path, replica_env, stateless=True))
    nginx = None
    try:
        for replica in replicas:
            wait_for(replica.healthy, f"replica {replica.index}")
        nginx = _start_nginx(tmp_path / "nginx", nginx_port, replicas)
        yield Deployment(replicas, nginx_url, tmp_path, redis.url)
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(10)
        for replica in replicas:
            replica.stop()
        redis.stop()


def _start_nginx(directory: Path, port: int, replicas: list[Replica]) -> subprocess.Popen[bytes]:
    directory.mkdir(parents=True)
    servers = "\n".join(f"    server 127.0.0.1:{r.port};" for r in replicas)
    conf = directory / "nginx.conf"
    conf.write_text(NGINX_CONF.format(dir=directory, port=port, servers=servers))
    proc = subprocess.Popen(
        [_tool("nginx"), "-p", str(directory), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=(directory / "stderr.log").open("wb"),
    )
    wait_for(lambda: (directory / "nginx.pid").exists(), "nginx")
    return proc


def _repo(forge) -> str:
    name = f"octo-org/approvals-replicas-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(name, {"README.md": "# demo\nline two\n"})
    return name


def model_client(
    mcp_url: str, page_base: str | None, clicks: list[asyncio.Task[Any]], links: list[str]
) -> ListingClient:
    """The model's client of `mcp_url`; asked to open an approval link, its human opens it
    (its host moved to `page_base` when set) in Chromium and approves, meanwhile."""

    async def human(message: str, response_type: Any, params: Any, context: Any) -> Any:
        link = params.url
        links.append(link)
        if page_base is not None:
            link = page_base + link[link.index("/approvals/") :]
        clicks.append(asyncio.create_task(visit_approval_page(link, "approve", token=BEARER)))
        return ElicitResult(action="accept")  # the human agreed to open the page

    transport = StreamableHttpTransport(mcp_url, auth=BEARER)
    return ListingClient(transport, elicitation_handler=human, timeout=120)


async def test_a_click_on_replica_b_releases_the_call_waiting_on_replica_a(deployment, forge):
    repo = _repo(forge)
    before = branch_head(forge, repo)
    replica_a, replica_b = deployment.replicas
    clicks: list[asyncio.Task[Any]] = []
    links: list[str] = []
    async with model_client(replica_a.url + "/mcp", replica_b.url, clicks, links) as client:
        is_error, result = await call_tool(client, "commit_files", commit_args(repo))
        visit = await clicks[0]
    assert not is_error, result  # the call on A went ahead once B recorded the click
    assert visit.outcome == "approved"
    assert len(links) == 1 and "#key=" in links[0]
    assert commit_parents(forge, repo, branch_head(forge, repo)) == [before]  # exactly once
    # replica A logged the request, B the decision: the click crossed replicas
    request_id = links[0].split("/approvals/")[1].split("#")[0]
    a_log = replica_a.log.read_text(errors="replace")
    b_log = replica_b.log.read_text(errors="replace")
    assert re.search(rf'"approval_requested".*{re.escape(request_id)}', a_log)
    assert re.search(rf'"approval_page_decision".*{re.escape(request_id)}', b_log)
    assert not re.search(rf'"approval_page_decision".*{re.escape(request_id)}', a_log)


async def test_approvals_through_round_robin_nginx_land_once_and_never_log_the_key(
    deployment, forge
):
    repo = _repo(forge)
    before = branch_head(forge, repo)
    clicks: list[asyncio.Task[Any]] = []
    links: list[str] = []
    async with model_client(deployment.nginx_url + "/mcp", None, clicks, links) as client:
        is_error, result = await _call_retrying(client, commit_args(repo))
        visit = await clicks[-1]
    assert not is_error, result
    assert visit.outcome == "approved"
    assert commit_parents(forge, repo, branch_head(forge, repo)) == [before]  # exactly once

    key = links[-1].split("#key=", 1)[1]
    assert links[-1].startswith(deployment.nginx_url + "/approvals/")
    lines = deployment.access_log()
    assert not [line for line in lines if key in line]
    assert key not in deployment.replica_logs()
    page = [line for line in lines if " /approvals/" in line]
    assert any(line.startswith("POST ") and line.split()[1].endswith("/open") for line in page)
    served_by = {line.rsplit("upstream=", 1)[1] for line in page}
    ports = {f"127.0.0.1:{r.port}" for r in deployment.replicas}
    assert served_by == ports  # the page's requests were spread over both replicas


async def _call_retrying(client: Client, args: dict[str, Any]) -> tuple[bool, Any]:
    """commit_files, retried with the same arguments while
    the answer is a retryable `unavailable`, as its hint asks: on a loaded machine a PONG
    later than the Redis breaker's timeout opens it for a moment, and nothing is written."""
    for _ in range(20):
        is_error, result = await call_tool(client, "commit_files", args)
        error = result.get("error") if is_error and isinstance(result, dict) else None
        if not (error and error.get("code") == "unavailable" and error.get("retryable")):
            break
        await asyncio.sleep(0.5)
    return is_error, result


async def test_the_caps_hold_across_replicas(own_deployment, forge):
    """Distinct writes from one sessionless principal, spread round-robin over both
    replicas: the caps are counted in Redis, so 5 requests open in all (each replica
    counting its own would have let 10 open)."""
    repo = _repo(forge)
    before = branch_head(forge, repo)
    transport = StreamableHttpTransport(own_deployment.nginx_url + "/mcp", auth=BEARER)
    codes = []
    async with Client(transport, timeout=120) as model:  # no elicitation: refusals with links
        for n in range(12):
            args = commit_args(repo, f"# demo\nversion {n}\n")
            is_error, payload = await call_tool(model, "commit_files", args)
            assert is_error
            codes.append(payload["error"]["code"])
    assert codes == ["write_not_allowed"] * 5 + ["rate_limited"] * 7
    served_by = {
        line.rsplit("upstream=", 1)[1]
        for line in own_deployment.access_log()
        if line.startswith("POST /mcp")
    }
    assert len(served_by) == 2  # both replicas answered
    store = redis.Redis.from_url(own_deployment.redis_url)
    assert store.zcard("ghmcp:approval_requests") == 5
    assert branch_head(forge, repo) == before
