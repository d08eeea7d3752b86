"""`make demo` as an end-to-end test: the scripted session must pass as a user runs it, and
must exit non-zero when a step misbehaves."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from github_mcp import demo
from tests.conftest import ROOT

STEPS = [
    "Read the tree",
    "Read a file",
    "Create a branch",
    "Apply a patch as a verified commit",
    "Open a pull request",
    "Run the tests in the workspace",
    "Diagnose the failing CI",
    "List the unresolved review comments",
    "Check merge readiness",
    "Merge",
]


def test_make_demo_passes_end_to_end(tmp_path):
    report_path = tmp_path / "demo.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    env["HOME"] = str(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "github_mcp.demo", "--json", str(report_path)],
        cwd=tmp_path, env=env | {"PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    out = proc.stdout
    assert proc.returncode == 0, out[-4000:] + proc.stderr[-4000:]
    assert "DEMO PASSED" in out

    # Every step ran, in order, with a transcript line per call.
    positions = [out.index(f". {title}") for title in STEPS]
    assert positions == sorted(positions)
    assert "verified=True" in out and "3 passed, 0 failed" in out
    assert "status failed" in out and "unresolved of" in out
    assert "verdict: blocked" in out and "verdict: ready" in out
    assert "merged=True" in out and "def multiply" in out
    assert demo.BEARER not in out and "ghp_" not in out

    report = json.loads(report_path.read_text())
    assert report["ok"] is True and report["tools"] > 40 and report["tools_list_bytes"] > 10_000
    tools = [c["tool"] for c in report["calls"]]
    for name in (
        "list_repository_tree",
        "get_file_contents",
        "create_branch",
        "apply_patch_and_commit",
        "create_pull_request",
        "run_tests",
        "get_failing_tests",
        "find_unresolved_comments",
        "check_merge_readiness",
        "merge_pull_request",
    ):
        assert name in tools
    errors = [c for c in report["calls"] if not c["ok"]]
    assert [(c["tool"], c["error_code"]) for c in errors] == [
        ("merge_pull_request", "write_not_allowed")
    ]
    assert all(
        c["payload_bytes"] > 0 and c["wire_bytes"] > c["payload_bytes"] for c in report["calls"]
    )


def test_demo_exits_non_zero_when_a_step_misbehaves(capsys, monkeypatch):
    monkeypatch.setenv("PATH", os.environ["PATH"])  # the demo prepends to PATH; undo it after

    def break_pull_requests(forge):
        forge.add_fault(
            path=r"/repos/octo-org/demo-app/pulls$",
            method="POST",
            status=422,
            times=None,
            body={"message": "Validation Failed"},
        )

    code = demo.main([], on_forge=break_pull_requests)
    out = capsys.readouterr().out
    assert code == 1
    assert "DEMO FAILED: step 5 (create_pull_request)" in out
    assert "Run the tests in the workspace" not in out  # it stops at the first failure
    assert "✗ create_pull_request failed" in out
