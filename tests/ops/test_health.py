"""Liveness and readiness over real HTTP: /healthz stays 200 while the process serves,
/readyz follows GitHub, the credentials and registered checks; the upstream check is one
request, no retries, memoised both ways (counted in the forge's request log)."""

from __future__ import annotations

import httpx2 as httpx

from github_mcp import health
from github_mcp.loopback import serve_in_thread
from github_mcp.server import build_http_app
from tests.conftest import requests_matching


def _rate_limit_requests(forge) -> int:
    return len(requests_matching(forge, "GET", "/rate_limit"))


def test_healthy_and_ready_with_one_upstream_request(forge, make_runtime):
    rt = make_runtime()
    forge.clear_requests()
    with serve_in_thread(build_http_app(rt)) as url:
        live = [httpx.get(url + "/healthz") for _ in range(3)]
        ready = [httpx.get(url + "/readyz") for _ in range(3)]
        metrics = httpx.get(url + "/metrics").text
    assert all(r.status_code == 200 for r in live + ready)
    assert live[0].json()["github"]["reachable"] is True
    assert ready[0].json()["checks"]["credentials"]["state"] == "valid"
    assert _rate_limit_requests(forge) == 1  # success memoised
    assert "mcp_ready 1.0" in metrics and "mcp_github_up 1.0" in metrics


def test_github_failing_keeps_liveness_and_fails_readiness_without_retries(forge, make_runtime):
    rt = make_runtime()
    forge.clear_requests()
    forge.add_fault(path="^/rate_limit$", status=502, times=None)
    with serve_in_thread(build_http_app(rt)) as url:
        live = httpx.get(url + "/healthz")
        ready = [httpx.get(url + "/readyz") for _ in range(3)]
    assert live.status_code == 200 and live.json()["status"] == "ok"
    assert live.json()["github"] == live.json()["github"] | {"state": "http_502"}
    assert all(r.status_code == 503 for r in ready)
    assert ready[0].json()["checks"]["github"] == {"ok": False, "state": "http_502"}
    assert _rate_limit_requests(forge) == 1  # one request, no retry, failure memoised


def test_unreachable_github(make_runtime):
    rt = make_runtime(github_api_url="http://127.0.0.1:9")
    with serve_in_thread(build_http_app(rt)) as url:
        live = httpx.get(url + "/healthz")
        ready = httpx.get(url + "/readyz")
    assert live.status_code == 200 and live.json()["github"]["state"] == "unreachable"
    assert ready.status_code == 503


def test_rejected_credentials_are_not_ready(forge, make_runtime):
    rt = make_runtime(github_token="ghp_" + "x" * 36)
    with serve_in_thread(build_http_app(rt)) as url:
        live = httpx.get(url + "/healthz")
        ready = httpx.get(url + "/readyz")
    assert live.status_code == 200
    assert ready.status_code == 503
    assert ready.json()["checks"]["credentials"] == {"ok": False, "state": "rejected"}
    assert "ghp_" not in ready.text + live.text


def test_registered_checks_count_and_failures_are_memoised_briefly(forge, make_runtime):
    rt = make_runtime()
    calls = []

    async def shared_cache() -> tuple[bool, str]:
        calls.append(1)
        return False, "connection refused"

    health.readiness(rt).add_check("redis", shared_cache)
    with serve_in_thread(build_http_app(rt)) as url:
        ready = httpx.get(url + "/readyz")
    assert ready.status_code == 503
    assert ready.json()["checks"]["redis"] == {"ok": False, "state": "connection refused"}
    assert calls  # the hook ran
    assert health.FAILURE_MEMO_S < health.SUCCESS_MEMO_S


def test_probes_need_no_credentials_but_keep_host_checks(forge, make_runtime):
    rt = make_runtime(auth_tokens="operator-token-0123456789")
    with serve_in_thread(build_http_app(rt)) as url:
        assert httpx.get(url + "/readyz").status_code == 200
        assert httpx.get(url + "/healthz").status_code == 200
        rebinding = httpx.get(url + "/readyz", headers={"Host": "attacker.example"})
    assert rebinding.status_code in (403, 421)
