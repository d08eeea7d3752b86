"""bench/scale.py runs end to end at a tiny size (real forge, Redis, the shipped nginx
config, replicas SIGKILLed and restarted) and prints every figure it promises. No timing
is asserted; what is asserted comes from the forge: no write applied twice, none
acknowledged and missing."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.replicas.cluster import ROOT

# one kill (at 5 s) in a 9 s run: every figure is printed, steady state and kill window
TINY = ["--sessions", "6", "--duration", "9", "--kill-every", "5", "--down", "1"]
TINY += ["--pace", "0.5", "--fresh-per-kill", "1", "--grace", "60"]


@pytest.mark.timeout(600)
def test_scale_bench_tiny_run_prints_its_figures():
    run = subprocess.run(
        [sys.executable, "bench/scale.py", *TINY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    assert re.search(r"kill 1 \(replica 0\) at \d+ s: healthy again [\d.]+ s later", out)
    assert re.search(r"sessions broken \(404 Session not found at least once\): \d+", out)
    assert re.search(r"re-initializes: \d+", out)
    assert re.search(
        r"sessions opened while a replica was down: \d+; broken after it returned: \d+", out
    )
    assert re.search(
        r"calls still unanswered 60 s after the end: read \d+, listing \d+, write \d+", out
    )
    assert "failed attempts by kind and reason:" in out
    writes = re.search(
        r"writes: intended (\d+), acknowledged (\d+), applied on the forge (\d+), "
        r"duplicated (\d+), acknowledged but missing (\d+)",
        out,
    )
    assert writes, out
    intended, acknowledged, _applied, duplicated, missing = map(int, writes.groups())
    assert intended >= acknowledged > 0
    assert duplicated == 0 and missing == 0  # exactly once, by the forge's own lists
    assert re.search(r"ok read\s+n=\d+\s+p50\s+[\d.]+ ms\s+p99\s+[\d.]+ ms", out)
    assert "load average at the end:" in out
