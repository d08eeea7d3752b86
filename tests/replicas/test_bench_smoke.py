"""bench/replicas.py --quick runs end to end (real forge, Redis, nginx and replicas) and
prints its three sections with figures in them. No timing is asserted."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.replicas.cluster import ROOT


@pytest.mark.timeout(600)
def test_replicas_bench_quick_prints_its_three_sections():
    run = subprocess.run(
        [sys.executable, "bench/replicas.py", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    assert "== 1. cached-read throughput" in out
    assert re.search(r"2 replicas \+ Redis, nginx round-robin\s+\d+ calls/s", out)  # --quick
    assert "cannot show scale-out" in out
    assert "== 2. 6 concurrent writers on one branch, 2 replicas" in out
    assert "with the Redis branch lock:" in out and "without Redis (no lock):" in out
    assert re.search(r"different files: landed \d+/6", out)
    assert re.search(r"same file:\s+landed \d+/6\s+conflict \d+\s+lost \d+", out)
    assert "== 3. Redis commands one tool call adds" in out
    for kind in ("cached read", "uncached read", "write (commit_files"):
        assert re.search(re.escape(kind) + r".*\s\d+ (\(\d+-\d+\) )?commands", out), kind
    # with the lock, every different-file write lands (the forge's tree is the evidence)
    locked = out.split("with the Redis branch lock:")[1].split("without Redis")[0]
    assert "different files: landed 6/6" in locked
