"""The official TypeScript SDK v2 client (`@modelcontextprotocol/client` from npm) at
2026-07-28 over stdio: it spawns `main.py serve`, negotiates the 2026 revision, opens a
`subscriptions/listen` stream (acknowledged with the filter it asked for), enables a
toolset and is told that the tool list changed, and its next listing holds the toolset's
tools. (That client implements no 2026-07-28 Tasks: its task methods are the 2025 era's,
so it cannot run one.) Without npm or the package this test fails."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.approvals.test_ts_v2_client import NODE, SDK, ts_client  # noqa: F401 (fixture)
from tests.conftest import ROOT
from tests.test_tasks_stdio import stdio_env


@pytest.mark.timeout(300)
def test_the_ts_v2_client_listens_over_stdio_and_hears_a_toolset_change(
    ts_client,  # noqa: F811
    forge,
    forge_token,
    tmp_path,
):
    env = stdio_env(tmp_path, forge.base_url, forge_token)
    script = ROOT / "tests/ts_v2_stdio_listen.mjs"
    argv = [str(NODE), str(script), str(SDK.parent), sys.executable, str(ROOT), json.dumps(env)]
    done = subprocess.run([*argv, "discussions"], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["version"] == "2026-07-28", seen
    assert seen["honored"] == {"toolsListChanged": True}, seen
    assert seen["heard"] is True and seen["enabled"]["list_changed"] is True, seen
    assert seen["after"] > seen["before"], seen
    assert seen["ended"] == "local", seen
