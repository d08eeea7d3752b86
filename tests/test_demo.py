"""`make demo` as an end-to-end test: the scripted session must pass as a user runs it, and
must exit non-zero when a step misbehaves."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

from github_mcp.cli import demo
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
        [sys.executable, "-m", "github_mcp.cli.demo", "--json", str(report_path)],
        cwd=tmp_path, env=env | {"PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    out = proc.stdout
    assert proc.returncode == 0, out[-4000:] + proc.stderr[-4000:]
    assert "DEMO PASSED" in out
    # it reads cleanly: no warnings or log noise, refusals shown as what they are
    assert proc.stderr == "", proc.stderr[-4000:]
    assert "ERROR" not in out and "Warning" not in out
    assert "← approval needed in" in out and "error write_not_allowed" not in out
    # a closing summary of calls, time and the forge's changes, and no URL of a stopped server
    assert re.search(r"15 calls \(1 refused as expected\), [\d,]+ payload bytes; wall time", out)
    changes = out.split("What changed on the forge:")[1]
    assert "+ branch demo/multiply at" in changes and "~ main " in changes
    assert re.search(r"\+ pull request #\d+ opened", changes)
    assert not re.search(r"https?://\S+/status", out), "a dead /status URL was printed"

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


def test_make_demo_keep_leaves_the_server_running_for_its_status_page(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "demo", "KEEP=1"],
        cwd=ROOT, env=env | {"HOME": str(tmp_path)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        seen = ""
        for line in proc.stdout:
            seen += line
            if "Press Ctrl-C to stop" in line:
                break
        found = re.search(r"still running: (http://127\.0\.0\.1:\d+/status)", seen)
        assert found and "DEMO PASSED" in seen, seen[-3000:]
        import httpx2 as httpx

        page = httpx.get(found[1], headers={"Authorization": f"Bearer {demo.BEARER}"})
        assert page.status_code == 200 and "merge_pull_request" in page.text
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C
        _rest, errors = proc.communicate(timeout=60)
    assert "Traceback" not in errors, errors[-3000:]
