"""`make demo` as an end-to-end test: the scripted session must pass as a user runs it, and
must exit non-zero when a step misbehaves."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import httpx2 as httpx

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


def test_make_demo_passes_end_to_end_and_keep_leaves_its_status_page_up(tmp_path):
    """One run of the demo as `make demo KEEP=1` runs it (plus --json for its report): the
    whole transcript, then its still-running /status page, then a clean Ctrl-C. The plain
    `make demo` (no server left, so no /status URL printed) is run by test_docs_commands."""
    report_path = tmp_path / "demo.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    env["HOME"] = str(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "github_mcp.cli.demo", "--keep", "--json", str(report_path)],
        cwd=tmp_path, env=env | {"PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        out = ""
        for line in proc.stdout:
            out += line
            if "Press Ctrl-C to stop" in line:
                break
        found = re.search(r"still running: (http://127\.0\.0\.1:\d+/status)", out)
        assert found and "DEMO PASSED" in out, out[-4000:]
        page = httpx.get(found[1], headers={"Authorization": f"Bearer {demo.BEARER}"})
        assert page.status_code == 200 and "merge_pull_request" in page.text
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C
        rest, errors = proc.communicate(timeout=60)
    assert proc.returncode == 0, out[-4000:] + rest + errors[-4000:]
    # it reads cleanly: no warnings or log noise, refusals shown as what they are
    assert errors == "", errors[-4000:]
    assert "ERROR" not in out and "Warning" not in out
    assert "← approval needed in" in out and "error write_not_allowed" not in out
    # a closing summary of calls, time and the forge's changes; the only /status URL is
    # the one of the server it kept running
    assert re.search(r"15 calls \(1 refused as expected\), [\d,]+ payload bytes; wall time", out)
    changes = out.split("What changed on the forge:")[1]
    assert "+ branch demo/multiply at" in changes and "~ main " in changes
    assert re.search(r"\+ pull request #\d+ opened", changes)
    assert re.findall(r"https?://\S+/status", out) == [found[1]]

    # Every step ran, in order, with a transcript line per call.
    positions = [out.index(f". {title}") for title in STEPS]
    assert positions == sorted(positions)
    assert "verified=True" in out and "3 passed, 0 failed" in out
    assert "status failed" in out and "unresolved of" in out
    assert "verdict: blocked" in out and "verdict: ready" in out
    assert "merged=True" in out and "def multiply" in out
    # the token is shown once, to sign in to the kept server, and nowhere in the session
    session = out.split("The demo's server is still running:")[0]
    assert demo.BEARER not in session and "ghp_" not in out

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


def test_make_demo_keep_passes_keep_to_the_demo():
    """`make demo KEEP=1` runs the demo above with --keep (make's dry run: its command)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_", "MAKE"))}
    dry = subprocess.run(
        ["make", "--no-print-directory", "-n", "demo", "KEEP=1"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[-1].endswith("python -m github_mcp.cli.demo --keep"), dry.stdout
    plain = subprocess.run(
        ["make", "--no-print-directory", "-n", "demo"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert plain.stdout.splitlines()[-1].endswith("python -m github_mcp.cli.demo "), plain.stdout
