"""The opt-in suite against real GitHub (live_tests/, `make test-live`): outside what
`make test` collects, and skipped with a clear message when its variables are absent."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

from tests.conftest import ROOT


def test_make_test_never_collects_the_live_suite():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    assert config["ini_options"]["testpaths"] == ["tests"]
    assert (ROOT / "live_tests" / "test_live_github.py").is_file()
    makefile = (ROOT / "Makefile").read_text()
    assert "test-live:" in makefile and "live_tests" in makefile


def test_without_a_token_and_a_repository_every_live_test_skips_saying_why():
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("GITHUB_TOKEN", "GITHUB_MCP_LIVE_REPO") and not k.startswith("PYTEST")
    }
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-q", "-rs", "live_tests"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "passed" not in run.stdout and " skipped" in run.stdout
    assert "set GITHUB_TOKEN" in run.stdout and "GITHUB_MCP_LIVE_REPO" in run.stdout
