"""The Grafana dashboard and the Prometheus rules in docs/dashboards reference only
metrics that a live /metrics scrape exports, and the rules pass `promtool check rules`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import httpx2 as httpx
import pytest
from fastmcp import Client

from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.conftest import ROOT

DASHBOARDS = ROOT / "docs" / "dashboards"
RULES = DASHBOARDS / "alerts.yml"
GRAFANA = DASHBOARDS / "grafana.json"
METRIC = re.compile(r"\b(mcp_[a-z0-9_]+)")
SERIES_SUFFIXES = ("_bucket", "_sum", "_count")
REPO = "octo-org/dashboards"


def _referenced() -> set[str]:
    exprs = [t["expr"] for p in json.loads(GRAFANA.read_text())["panels"] for t in p["targets"]]
    names = set(METRIC.findall("\n".join(exprs)))
    rules = [line for line in RULES.read_text().splitlines() if not line.lstrip().startswith("#")]
    names |= set(METRIC.findall("\n".join(rules)))  # expressions and annotations alike
    return names


def _scraped(text: str) -> set[str]:
    samples = set()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            samples.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return samples


@pytest.fixture(scope="module")
def repo(forge) -> str:
    forge.seed_repo(REPO, {"a.txt": "a\n"}, branches={"feature": {"a.txt": "a\n"}})
    return REPO


async def test_every_referenced_metric_is_exported(repo, forge, make_runtime):
    referenced = _referenced()
    assert len(referenced) >= 10, referenced
    rt = make_runtime()
    forge.add_fault(path=f"^/repos/{REPO}/branches", status=502, times=1)
    forge.add_fault(path=f"^/repos/{REPO}/commits", preset="primary_rate_limit", times=1)
    with serve_in_thread(build_http_app(rt)) as url:
        async with Client(url + "/mcp", auth=None) as client:
            await client.list_tools()  # to learn which arguments go in headers
            for name, args in [
                ("get_repository", {"full_name": REPO}),
                ("get_repository", {"full_name": REPO}),  # a cache hit
                ("list_branches", {"full_name": REPO}),  # a retry after the 502
                ("list_commits", {"full_name": REPO}),  # a rate-limit event
                ("get_file_contents", {"full_name": REPO, "path": "missing.txt"}),  # an error
                (  # a gate denial: the default branch without approval
                    "commit_files",
                    {
                        "full_name": REPO,
                        "branch": "main",
                        "message": "m",
                        "files": [{"path": "b.txt", "content": "b\n"}],
                    },
                ),
            ]:
                await client.call_tool(name, args, raise_on_error=False)
        assert httpx.get(url + "/readyz").status_code == 200
        scrape = httpx.get(url + "/metrics").text
    exported = _scraped(scrape)
    missing = {
        name
        for name in referenced
        if name not in exported and not any(name + s in exported for s in SERIES_SUFFIXES)
    }
    assert not missing, f"referenced but not exported: {sorted(missing)}"


def test_rules_pass_promtool():
    promtool = shutil.which("promtool") or "/usr/bin/promtool"
    assert Path(promtool).exists(), "promtool is missing: make test installs Debian's prometheus"
    result = subprocess.run(
        [promtool, "check", "rules", str(RULES)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 8 rules found" in result.stdout


def test_the_dashboard_is_valid_grafana_json():
    dashboard = json.loads(GRAFANA.read_text())
    assert dashboard["uid"] and dashboard["panels"]
    assert all(
        p["targets"] and p["datasource"]["uid"] == "${datasource}" for p in dashboard["panels"]
    )
    titles = " ".join(p["title"] for p in dashboard["panels"]).lower()
    for topic in ("error rate", "p95", "rate-limit", "gate", "github", "ready"):
        assert topic in titles
