"""`python main.py call TOOL`: one tool, its structured result on stdout, the error
envelope and a non-zero exit on failure. Runs the real entry point in a subprocess
against the forge."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

REPO = "octo-org/cli-demo"


@pytest.fixture(scope="module")
def cli_repo(forge):
    forge.seed_repo(
        REPO,
        {"README.md": "# cli\n", "a.txt": "alpha\n"},
        branches={"dev": {"README.md": "# cli dev\n"}, "topic": {"b.txt": "b\n"}},
    )
    return REPO


@pytest.fixture
def run_cli(forge, forge_token, tmp_path):
    def run(*argv: str, stdin: str | None = None, github: bool = True, **env: str):
        base = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
            "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
        }
        if github:
            base |= {"GITHUB_API_URL": forge.base_url, "GITHUB_TOKEN": forge_token}
        proc = subprocess.run(
            [sys.executable, "main.py", "call", *argv],
            cwd=ROOT,
            env=base | env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert forge_token not in proc.stdout + proc.stderr
        return proc.returncode, json.loads(proc.stdout), proc.stderr

    return run


def test_prints_the_structured_result(run_cli, cli_repo):
    code, out, stderr = run_cli("get_repository", "--arg", f"full_name={cli_repo}")
    assert code == 0
    assert out["full_name"] == cli_repo and out["default_branch"] == "main"
    assert "tool_call_success" in stderr  # logs go to stderr, stdout is only the result


def test_args_json_and_typed_key_values(run_cli, cli_repo):
    code, out, _ = run_cli(
        "list_branches", "--args", json.dumps({"full_name": cli_repo}), "--arg", "limit=2"
    )
    assert code == 0
    assert len(out["branches"]) == 2 and out["next_cursor"]
    code, out, _ = run_cli(
        "get_file_contents",
        "--args",
        json.dumps({"full_name": cli_repo, "path": "README.md", "ref": "main"}),
        "--arg",
        "ref=dev",
        "--arg",
        "max_bytes=4",
        "--compact",
    )
    assert code == 0
    assert out["content"] == "# cl" and out["truncated"] is True and out["ref"] == "dev"


def test_args_from_a_file_and_from_stdin(run_cli, cli_repo, tmp_path):
    args_file = tmp_path / "args.json"
    args_file.write_text(json.dumps({"full_name": cli_repo, "path": "a.txt"}))
    code, out, _ = run_cli("get_file_contents", "--args", f"@{args_file}")
    assert code == 0 and out["content"] == "alpha\n"
    code, out, _ = run_cli(
        "get_file_contents",
        "--args",
        "-",
        stdin=json.dumps({"full_name": cli_repo, "path": "a.txt"}),
    )
    assert code == 0 and out["content"] == "alpha\n"


def test_tool_errors_print_the_envelope_and_exit_1(run_cli, cli_repo):
    code, out, _ = run_cli(
        "get_file_contents", "--arg", f"full_name={cli_repo}", "--arg", "path=missing.txt"
    )
    assert code == 1
    assert out["error"]["code"] == "not_found" and out["error"]["call_id"]
    code, out, _ = run_cli("get_repository", "--arg", "full_name=not a repo")
    assert code == 1 and out["error"]["code"] == "invalid_input"
    code, out, _ = run_cli("no_such_tool")
    assert code == 1 and out["error"]["code"] == "not_found"


def test_usage_errors_exit_2(run_cli, tmp_path):
    for argv in (
        ("get_me", "--args", "{not json"),
        ("get_me", "--args", "[1, 2]"),
        ("get_me", "--arg", "novalue"),
        ("get_me", "--args", f"@{tmp_path}/nope.json"),
    ):
        code, out, _ = run_cli(*argv)
        assert code == 2, argv
        assert out["error"]["code"] == "invalid_input"


def test_writes_go_through_the_gate(run_cli, cli_repo):
    args = ("create_issue", "--arg", f"full_name={cli_repo}", "--arg", "title=From the CLI")
    code, out, _ = run_cli(*args)
    assert code == 4 and out["error"]["code"] == "write_not_allowed"  # approval needed
    code, out, _ = run_cli(*args, GITHUB_MCP_AUTO_APPROVE="true")
    assert code == 0 and out["number"] >= 1
    code, out, _ = run_cli(
        "create_branch",
        "--arg",
        f"full_name={cli_repo}",
        "--arg",
        "branch=cli/feature",
        "--arg",
        "from_ref=main",
    )
    assert code == 0, out


def test_embedded_forge_without_credentials(run_cli):
    code, out, _ = run_cli(
        "get_repository",
        "--arg",
        "full_name=octo-org/demo-app",
        "--sandbox-forge",
        "always",
        github=False,
    )
    assert code == 0
    assert out["default_branch"] == "main" and out["html_url"].startswith("http://127.0.0.1:")


def test_sandbox_subcommand_passes_its_options_to_the_forge():
    import subprocess
    import sys

    from tests.conftest import ROOT

    proc = subprocess.run(
        [sys.executable, "main.py", "sandbox", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert "--seed" in proc.stdout and "--latency-ms" in proc.stdout
