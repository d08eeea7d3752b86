"""Liveness and readiness over real HTTP: /healthz stays 200 while the process serves,
/readyz follows GitHub, the credentials and registered checks; the upstream check is one
request, no retries, one at a time however many probes arrive, its answer kept while
fresh (counted in the forge's request log)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
import yaml

from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from github_mcp.status import health
from tests.conftest import requests_matching
from tests.replicas.cluster import wait_for


def _rate_limit_requests(forge) -> int:
    return len(requests_matching(forge, "GET", "/rate_limit"))


def patient(rt):
    """Tests not about the cutoff: a loaded machine's slow check still answers (no
    `unresponsive`), and its answer stays fresh for the whole test (one request)."""
    probe = health.readiness(rt)
    probe.fresh_s = probe.slow_s = 600.0
    return rt


def test_healthy_and_ready_with_one_upstream_request(forge, make_runtime):
    rt = patient(make_runtime())
    forge.clear_requests()
    with serve_in_thread(build_http_app(rt)) as url:
        ready = [httpx.get(url + "/readyz") for _ in range(3)]
        live = [httpx.get(url + "/healthz") for _ in range(3)]  # GitHub's state as last seen
        metrics = httpx.get(url + "/metrics").text
    assert all(r.status_code == 200 for r in live + ready)
    assert live[0].json()["github"]["reachable"] is True
    assert ready[0].json()["checks"]["credentials"]["state"] == "valid"
    assert _rate_limit_requests(forge) == 1  # the answer kept while fresh
    assert "mcp_ready 1.0" in metrics and "mcp_github_up 1.0" in metrics


def test_github_failing_keeps_liveness_and_fails_readiness_without_retries(forge, make_runtime):
    rt = patient(make_runtime())
    forge.clear_requests()
    forge.add_fault(path="^/rate_limit$", status=502, times=None)
    with serve_in_thread(build_http_app(rt)) as url:
        ready = [httpx.get(url + "/readyz") for _ in range(3)]
        live = httpx.get(url + "/healthz")
    assert live.status_code == 200 and live.json()["status"] == "ok"
    assert live.json()["github"] == live.json()["github"] | {"state": "http_502"}
    assert all(r.status_code == 503 for r in ready)
    assert ready[0].json()["checks"]["github"] == {"ok": False, "state": "http_502"}
    assert _rate_limit_requests(forge) == 1  # no retry, the failure kept while fresh


def test_unreachable_github(make_runtime):
    rt = make_runtime(github_api_url="http://127.0.0.1:9")
    with serve_in_thread(build_http_app(rt)) as url:
        ready = httpx.get(url + "/readyz")
        live = httpx.get(url + "/healthz")
    assert live.status_code == 200 and live.json()["github"]["state"] == "unreachable"
    assert ready.status_code == 503


def test_rejected_credentials_are_not_ready(forge, make_runtime):
    rt = patient(make_runtime(github_token="ghp_" + "x" * 36))
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


def test_probes_need_no_credentials_but_keep_host_checks(forge, make_runtime):
    rt = patient(make_runtime(auth_tokens="operator-token-0123456789"))
    with serve_in_thread(build_http_app(rt)) as url:
        assert httpx.get(url + "/readyz").status_code == 200
        assert httpx.get(url + "/healthz").status_code == 200
        rebinding = httpx.get(url + "/readyz", headers={"Host": "attacker.example"})
    assert rebinding.status_code in (403, 421)


def test_first_liveness_probe_does_not_wait_for_the_github_check(forge, make_runtime):
    rt = patient(make_runtime())
    forge.clear_requests()
    with serve_in_thread(build_http_app(rt)) as url:
        first = httpx.get(url + "/healthz")
        assert first.status_code == 200
        assert first.json()["github"]["state"] in ("unchecked", "ok")
        deadline = time.monotonic() + 120  # the check it started runs on in the background
        while httpx.get(url + "/healthz").json()["github"]["state"] != "ok":
            assert time.monotonic() < deadline, "the background check never finished"
            time.sleep(0.05)
    assert _rate_limit_requests(forge) == 1


@pytest.fixture
def frozen_forge() -> Iterator[tuple[str, str, subprocess.Popen[str]]]:
    """The sandbox forge in its own process (URL, user token, process), to be frozen."""
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "sandbox_forge", "--port", "0"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    seen: dict[str, str] = {}
    for line in proc.stdout:
        if m := re.search(r"listening on (\S+)", line):
            seen["url"] = m.group(1)
        elif m := re.search(r"user token:\s+(\S+)", line):
            seen["token"] = m.group(1)
            break
    try:
        assert set(seen) == {"url", "token"}, "the forge did not start"
        yield seen["url"], seen["token"], proc
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.terminate()
        proc.wait(15)


def test_liveness_answers_while_github_is_frozen(frozen_forge, make_runtime):
    """The forge stops (SIGSTOP) with connections open: every /healthz probe with a
    Kubernetes-like 1 s timeout still answers 200, while /readyz reports GitHub down."""
    api_url, token, proc = frozen_forge
    rt = make_runtime(github_api_url=api_url, github_token=token)
    with serve_in_thread(build_http_app(rt)) as url:
        proc.send_signal(signal.SIGSTOP)
        answers = []
        for _ in range(12):
            answers.append(httpx.get(url + "/healthz", timeout=1.0).status_code)
            time.sleep(0.25)
        ready = httpx.get(url + "/readyz", timeout=10)
    assert answers == [200] * 12
    assert ready.status_code == 503
    # the check timed out, or has waited past SLOW_S without an answer
    assert ready.json()["checks"]["github"]["ok"] is False
    assert ready.json()["checks"]["github"]["state"] in ("timeout", "unresponsive")


def test_shipped_kubernetes_probes_cannot_restart_a_pod_during_a_github_outage():
    """Explicit timeouts and periods: liveness (process state only) tolerates a slow node
    for a minute; readiness waits longer than the 2 s GitHub check inside it."""
    manifest = Path(__file__).resolve().parents[2] / "deploy" / "k8s" / "github-mcp.yaml"
    docs = [d for d in yaml.safe_load_all(manifest.read_text()) if d]
    deployment = next(
        d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "github-mcp"
    )
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    live, ready = container["livenessProbe"], container["readinessProbe"]
    assert live["httpGet"]["path"] == "/healthz" and ready["httpGet"]["path"] == "/readyz"
    for probe in (live, ready):
        assert {"timeoutSeconds", "periodSeconds", "failureThreshold"} <= set(probe)
    assert live["timeoutSeconds"] >= 2
    assert live["periodSeconds"] * live["failureThreshold"] >= 60
    assert ready["timeoutSeconds"] > health.SLOW_S + health.CHECK_TIMEOUT_S


def _status_ids(url: str) -> dict[str, str]:
    page = httpx.get(url + "/status", timeout=10)
    assert page.status_code == 200
    return dict(re.findall(r'id="(github-state|readiness)"[^>]*>([^<]*)<', page.text))


def test_status_page_shows_github_reachability_and_readiness(forge, make_runtime):
    with serve_in_thread(build_http_app(patient(make_runtime()))) as url:
        assert _status_ids(url) == {"github-state": "reachable", "readiness": "ready"}
    down = make_runtime(github_api_url="http://127.0.0.1:9")
    with serve_in_thread(build_http_app(down)) as url:
        seen = _status_ids(url)
    assert seen["github-state"] == "unreachable"
    assert seen["readiness"].startswith("not ready: github (unreachable)")


def test_a_github_outage_shows_on_every_surface_while_liveness_answers(frozen_forge, make_runtime):
    """GitHub freezes after a good check: /readyz, /healthz's github state and /status all
    come to say so (how soon: bench/github_outage_probes.py), and /healthz answers every
    probe meanwhile."""
    api_url, token, proc = frozen_forge
    rt = make_runtime(github_api_url=api_url, github_token=token)
    # a loaded machine's check may take past the cutoff before the freeze: wait for it
    # (the frozen GitHub then shows as `timeout`; how soon is the bench's question)
    health.readiness(rt).slow_s = 600.0
    with serve_in_thread(build_http_app(rt)) as url:
        # a loaded machine's first check may time out (2 s) before the forge answers: GitHub
        # is up once one check has said so
        wait_for(lambda: httpx.get(url + "/readyz", timeout=30).status_code == 200, "ready")
        proc.send_signal(signal.SIGSTOP)
        live: list[int] = []

        def github_down() -> bool:
            answer = httpx.get(url + "/healthz", timeout=30)
            live.append(answer.status_code)
            return answer.json()["github"]["reachable"] is False

        wait_for(github_down, "/healthz to report GitHub down")
        wait_for(lambda: httpx.get(url + "/readyz", timeout=30).status_code == 503, "/readyz")
        wait_for(lambda: _status_ids(url)["github-state"] != "reachable", "/status")
        ready = httpx.get(url + "/readyz", timeout=30).json()["checks"]["github"]
        state = httpx.get(url + "/healthz", timeout=30).json()["github"]["state"]
    assert set(live) == {200}
    assert ready["ok"] is False and ready["state"] in ("timeout", "unresponsive")
    assert state in ("timeout", "unresponsive")
