"""Streamable HTTP, SSE, bearer auth, Host/Origin checks, /healthz and /metrics (§9)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import httpx2 as httpx
import pytest
from fastmcp import Client

from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app, check_http_exposure
from tests.conftest import DEMO_REPO, call_tool, error_code

TOKEN_A = "alpha-token-0123456789"
TOKEN_B = "bravo-token-0123456789"


serve = serve_in_thread


@pytest.fixture
def http_server(make_runtime):
    @contextlib.contextmanager
    def start(stateless: bool = False, **settings) -> Iterator[tuple[str, object]]:
        settings.setdefault("approval_mode", "tool")  # approval scoping via the model's toggle
        rt = make_runtime(auth_tokens=f"{TOKEN_A},{TOKEN_B}", **settings)
        with serve(build_http_app(rt, stateless=stateless)) as url:
            yield url, rt

    return start


def test_bad_bearer_gets_401_and_good_one_passes(http_server):
    with http_server() as (url, _):
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        bad = httpx.post(url + "/mcp", json=body, headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 401
        assert bad.headers["www-authenticate"].startswith("Bearer")
        missing = httpx.post(url + "/mcp", json=body)
        assert missing.status_code == 401
        status_page = httpx.get(url + "/status")
        assert status_page.status_code == 401
        ok = httpx.get(url + "/status", headers={"Authorization": f"Bearer {TOKEN_A}"})
        assert ok.status_code == 200 and "GitHub MCP Controller" in ok.text


def test_foreign_origin_and_host_are_refused(http_server):
    with http_server() as (url, _):
        auth = {"Authorization": f"Bearer {TOKEN_A}"}
        evil = httpx.post(url + "/mcp", json={}, headers=auth | {"Origin": "https://evil.example"})
        assert evil.status_code == 403 and "origin" in evil.text
        rebinding = httpx.get(url + "/healthz", headers={"Host": "attacker.example"})
        assert rebinding.status_code in (403, 421)
        local_origin = httpx.get(url + "/healthz", headers={"Origin": "http://localhost:3000"})
        assert local_origin.status_code in (200, 503)


def test_body_size_cap(http_server):
    with http_server(max_body_bytes=2048) as (url, _):
        big = httpx.post(
            url + "/mcp",
            content=b"x" * 5000,
            headers={"Authorization": f"Bearer {TOKEN_A}", "Content-Type": "application/json"},
        )
        assert big.status_code == 413


def test_chunked_body_over_the_cap_gets_413_not_500(http_server):
    """A body without Content-Length (chunked) is counted as it streams in."""

    def stream():
        for _ in range(40):  # 40 x 1 KiB against a 4 KiB cap
            yield b"x" * 1024

    auth = {"Authorization": f"Bearer {TOKEN_A}", "Content-Type": "application/json"}
    with http_server(max_body_bytes=4096) as (url, _):
        big = httpx.post(url + "/mcp", content=stream(), headers=auth)
        assert big.status_code == 413 and "too large" in big.text
        assert big.request.headers.get("transfer-encoding") == "chunked"
        small = httpx.post(
            url + "/mcp",
            content=iter([b'{"jsonrpc":"2.0",', b'"id":1,"method":"ping"}']),
            headers=auth | {"Accept": "application/json, text/event-stream"},
        )
        assert small.request.headers.get("transfer-encoding") == "chunked"
        assert small.status_code != 413 and small.status_code < 500
        health = httpx.get(url + "/healthz")
        assert health.status_code == 200  # the server kept serving


def test_healthz_and_metrics(http_server):
    with http_server(controller_repo=DEMO_REPO, controller_branch="main") as (url, rt):
        health = httpx.get(url + "/healthz")
        assert health.status_code == 200
        data = health.json()
        assert data["status"] == "ok" and data["github_token_present"] is True
        assert data["controller"] == {"repo": DEMO_REPO, "default_branch": "main"}
        assert {"uptime_seconds", "version", "metrics"} <= set(data)
        assert "tools" in data["metrics"] and "github" in data["metrics"]
        assert (
            TOKEN_A not in health.text
            and rt.settings.github_token.get_secret_value() not in health.text
        )
        assert httpx.get(url + "/health").json()["status"] == "ok"
        probe = rt.health_probe
        assert probe is not None
        checks = probe.checks
        httpx.get(url + "/healthz")
        assert probe.checks == checks  # success memoised
        metrics = httpx.get(url + "/metrics", headers={"Authorization": f"Bearer {TOKEN_A}"})
        assert metrics.status_code == 200
        assert "mcp_github_requests_total" in metrics.text


def test_healthz_stays_live_when_github_is_down(make_runtime):
    # Liveness never fails on GitHub's account (tests/ops/test_health.py covers /readyz).
    rt = make_runtime(github_api_url="http://127.0.0.1:9")
    with serve(build_http_app(rt)) as url:
        first = httpx.get(url + "/healthz")
        second = httpx.get(url + "/healthz")
    assert first.status_code == second.status_code == 200
    assert first.json()["github"]["reachable"] is False
    assert rt.health_probe is not None and rt.health_probe.checks == 1  # failure memoised


async def test_mcp_over_http_and_session_scoped_approval(http_server, forge):
    forge.seed_repo("octo-org/http-approval", {"README.md": "x\n"})
    args = {"full_name": "octo-org/http-approval", "branch": "main", "from_ref": "main"}
    with http_server() as (url, _):
        async with (
            Client(url + "/mcp", auth=TOKEN_A, mode="legacy") as a,
            Client(url + "/mcp", auth=TOKEN_B, mode="legacy") as b,
        ):
            assert len(await a.list_tools()) > 5
            is_error, payload = await call_tool(a, "create_branch", args)
            assert error_code(payload) == "write_not_allowed"
            is_error, state = await call_tool(a, "authorize_write_actions", {"approved": True})
            assert not is_error and state["approved"] is True
            is_error, payload = await call_tool(a, "create_branch", args)
            assert not is_error, payload
            is_error, payload = await call_tool(b, "create_branch", args)
            assert error_code(payload) == "write_not_allowed"


async def test_stateful_sessions_do_not_share_approval(http_server, forge):
    forge.seed_repo("octo-org/http-sessions", {"README.md": "x\n"})
    args = {"full_name": "octo-org/http-sessions", "branch": "main", "from_ref": "main"}
    with http_server() as (url, _):
        async with (
            Client(url + "/mcp", auth=TOKEN_A, mode="legacy") as a,
            Client(url + "/mcp", auth=TOKEN_A, mode="legacy") as b,
        ):
            is_error, state = await call_tool(a, "authorize_write_actions", {"approved": True})
            assert not is_error
            assert not (await call_tool(a, "create_branch", args))[0]
            is_error, payload = await call_tool(b, "create_branch", args)
            assert error_code(payload) == "write_not_allowed"


async def test_stateless_mode_serves_tools(http_server):
    with http_server(stateless=True) as (url, _):
        async with Client(url + "/mcp", auth=TOKEN_A) as client:
            is_error, payload = await call_tool(client, "get_server_config")
            assert not is_error and payload["version"]


async def test_legacy_sse_endpoint(http_server):
    with http_server() as (url, _):
        async with Client(url + "/sse", auth=TOKEN_A) as client:
            names = {t.name for t in await client.list_tools()}
            assert "get_me" in names


def test_non_loopback_requires_auth(make_settings):
    with pytest.raises(SystemExit):
        check_http_exposure(make_settings(), "0.0.0.0")
    check_http_exposure(make_settings(auth_tokens="t" * 20), "0.0.0.0")
    check_http_exposure(make_settings(allow_unauthenticated=True), "0.0.0.0")
    check_http_exposure(make_settings(), "127.0.0.1")


def test_status_page_offers_a_sign_in_form_instead_of_basic_auth(http_server):
    import base64

    with http_server() as (url, _):
        challenge = httpx.get(url + "/status")
        assert challenge.status_code == 401 and 'id="sign-in"' in challenge.text
        assert "www-authenticate" not in challenge.headers
        good = base64.b64encode(f"operator:{TOKEN_B}".encode()).decode()
        basic = httpx.get(url + "/status", headers={"Authorization": f"Basic {good}"})
        assert basic.status_code == 401  # the form replaced the Basic prompt
        bearer = httpx.get(url + "/status", headers={"Authorization": f"Bearer {TOKEN_B}"})
        assert bearer.status_code == 200
        # the MCP endpoint itself still takes bearer only
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert (
            httpx.post(
                url + "/mcp", json=body, headers={"Authorization": f"Basic {good}"}
            ).status_code
            == 401
        )
