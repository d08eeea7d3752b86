"""`call TOOL` output: JSON by default, a readable summary with --pretty, a progress bar
drawn from the tool's progress notifications only on a terminal, and exit codes that
tell refused (3), failed (1) and approval needed (4) apart. Evidence of "nothing written"
comes from the forge's refs."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox_forge.admin.seed_collab import add_workflow_run
from tests.conftest import ROOT

REPO = "octo-org/cli-output"


@pytest.fixture(scope="module")
def repo(forge):
    forge.seed_repo(REPO, {"README.md": "# out\n", "a.txt": "alpha\n"})
    return REPO


def _env(forge, token: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
        **extra,
    }


def _call(forge, token, tmp_path, *argv: str, **extra: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "main.py", "call", *argv], cwd=ROOT,
        env=_env(forge, token, tmp_path, **extra), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert token not in done.stdout + done.stderr
    return done


def _heads(forge, full_name: str) -> dict[str, str]:
    owner, name = full_name.split("/")
    record = forge.state.repo(owner, name)
    return {ref: sha for ref, sha, _ in record.git.list_refs("refs/heads/")}


def test_json_by_default_and_a_readable_summary_with_pretty(forge, forge_token, tmp_path, repo):
    args = ("get_file_contents", "--arg", f"full_name={repo}", "--arg", "path=a.txt")
    plain = _call(forge, forge_token, tmp_path, *args)
    assert plain.returncode == 0 and json.loads(plain.stdout)["content"] == "alpha\n"
    readable = _call(forge, forge_token, tmp_path, *args, "--pretty")
    assert readable.returncode == 0
    lines = readable.stdout.splitlines()
    assert lines[0] == "✓ get_file_contents"
    assert "  content: alpha⏎ " in lines and "  path: a.txt" in lines
    with pytest.raises(ValueError):
        json.loads(readable.stdout)


def test_approval_needed_exits_4_and_writes_nothing(forge, forge_token, tmp_path, repo):
    before = _heads(forge, repo)
    done = _call(
        forge, forge_token, tmp_path, "apply_text_update_and_commit", "--arg",
        f"full_name={repo}", "--arg", "path=x.txt", "--arg", "new_content=x", "--arg",
        "message=m", "--arg", "branch=main", "--pretty",
    )  # fmt: skip
    assert done.returncode == 4, done.stdout + done.stderr[-2000:]
    assert done.stdout.startswith("✗ apply_text_update_and_commit: approval needed: ")
    assert "hint: " in done.stdout
    assert _heads(forge, repo) == before


def test_refused_by_policy_exits_3(forge, forge_token, tmp_path, repo):
    done = _call(
        forge, forge_token, tmp_path, "get_repository", "--arg", f"full_name={repo}",
        GITHUB_MCP_REPO_ALLOWLIST="someone-else/*",
    )  # fmt: skip
    assert done.returncode == 3, done.stdout
    assert json.loads(done.stdout)["error"]["code"] == "repo_not_allowed"


def test_a_failed_tool_exits_1_and_bad_usage_exits_2(forge, forge_token, tmp_path, repo):
    missing = _call(
        forge, forge_token, tmp_path, "get_file_contents", "--arg", f"full_name={repo}",
        "--arg", "path=nope.txt", "--pretty",
    )  # fmt: skip
    assert missing.returncode == 1
    assert missing.stdout.startswith("✗ get_file_contents: failed: ")
    assert "code not_found" in missing.stdout
    usage = _call(forge, forge_token, tmp_path, "get_me", "--args", "{broken")
    assert usage.returncode == 2


def _run_on_a_terminal(argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """stderr on a pseudo-terminal (as in a shell), stdout a pipe."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=follower, text=True
    )
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process has exited
            break
        if not chunk:
            break
        seen += chunk
    out, _ = proc.communicate(timeout=60)
    os.close(leader)
    return proc.returncode, out, seen.decode("utf-8", "replace")


def test_a_long_call_shows_a_progress_bar_on_a_terminal_only(forge, forge_token, tmp_path, repo):
    run = add_workflow_run(forge, repo, "ci.yml", status="in_progress", jobs=[{"name": "t"}])
    argv = [sys.executable, "main.py", "call", "wait_for_workflow_run", "--compact",
            "--arg", f"full_name={repo}", "--arg", f"run_id={run['id']}",
            "--arg", "timeout_seconds=3", "--arg", "poll_interval_seconds=1"]  # fmt: skip
    env = _env(forge, forge_token, tmp_path, GITHUB_MCP_LOG_LEVEL="WARNING")
    code, out, terminal = _run_on_a_terminal(argv, env)
    assert code == 0, out + terminal[-2000:]
    assert json.loads(out)["status"] == "pending"  # stdout stays clean JSON
    assert "\r\x1b[2K[" in terminal and "%" in terminal, terminal[-2000:]
    piped = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and "\x1b[2K" not in piped.stderr
