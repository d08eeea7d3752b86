"""Workspace tools through MCP against the forge's git HTTP."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import call_tool, error_code, mcp_client, traversable

REPO = "octo-org/ws-demo"
FILES = {
    "README.md": "workspace demo\n",
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": (
        "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_broken():\n    assert add(2, 2) == 5, 'math is hard'\n"
    ),
}


@pytest.fixture(scope="module")
def ws_repo(forge):
    forge.seed_repo(REPO, FILES, branches={"feature": FILES})
    return REPO


@pytest.fixture
def ws_runtime(make_runtime, tmp_path):
    return make_runtime(workspace_dir=traversable(tmp_path) / "ws")


async def test_clone_run_and_env_has_no_secrets(
    make_runtime, ws_repo, forge_token, tmp_path, monkeypatch
):
    monkeypatch.setenv("GITHUB_TOKEN", forge_token)
    monkeypatch.setenv("GITHUB_MCP_AUTH_TOKENS", "mcp-bearer-secret-123456")
    monkeypatch.setenv("SOME_API_KEY", "shhh-key-0123456789")
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        is_error, clone = await call_tool(
            client, "ensure_workspace_clone", {"full_name": ws_repo, "ref": "feature"}
        )
        assert not is_error, clone
        assert clone["created"] is True and clone["dirty"] is False
        path = Path(clone["path"])
        config = (path / ".git" / "config").read_text()
        assert forge_token not in config and "x-access-token" not in config
        filter_value = subprocess.run(
            [
                "git",
                "-c",
                "safe.directory=*",
                "-C",
                str(path),
                "config",
                "remote.origin.partialclonefilter",
            ],
            capture_output=True,
            text=True,
        ).stdout.strip()
        assert filter_value == "blob:none"
        is_error, out = await call_tool(
            client, "terminal_command", {"full_name": ws_repo, "ref": "feature", "command": "env"}
        )
        assert not is_error and out["exit_code"] == 0
        for secret in (forge_token, "mcp-bearer-secret-123456", "shhh-key-0123456789"):
            assert secret not in out["stdout"]
        assert "GITHUB_TOKEN" not in out["stdout"]


async def test_run_tests_reports_failures(make_runtime, ws_repo, tmp_path):
    # pytest lives in the server's own interpreter, which the sandbox does not show.
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws", workspace_sandbox="none")
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "run_tests",
            {
                "full_name": ws_repo,
                "ref": "feature",
                "test_command": "python -m pytest -q",
                "use_venv": False,
            },
        )
    assert not is_error, result
    assert result["passed"] == 1 and result["failed"] == 1
    assert result["failing"][0]["name"].endswith("test_broken")
    assert "math is hard" in result["failing"][0]["message"]


async def test_workdir_escape_and_bad_ref_are_refused(make_runtime, ws_repo, tmp_path):
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    marker = Path(f"/tmp/pwned-{uuid.uuid4().hex}")
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(
            client,
            "terminal_command",
            {"full_name": ws_repo, "ref": "feature", "command": "pwd", "workdir": "../.."},
        )
        assert error_code(payload) == "invalid_input"
        is_error, payload = await call_tool(
            client,
            "terminal_command",
            {"full_name": ws_repo, "ref": f"main; touch {marker}", "command": "true"},
        )
        assert error_code(payload) == "invalid_input"
        # a symlink pointing out of the clone is refused as a workdir
        await call_tool(
            client,
            "terminal_command",
            {"full_name": ws_repo, "ref": "feature", "command": "ln -s / outside"},
        )
        is_error, payload = await call_tool(
            client,
            "terminal_command",
            {"full_name": ws_repo, "ref": "feature", "command": "pwd", "workdir": "outside"},
        )
        assert error_code(payload) == "invalid_input"
    assert not marker.exists()


async def test_default_branch_workspace_needs_approval(make_runtime, ws_repo, tmp_path):
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(
            client, "terminal_command", {"full_name": ws_repo, "command": "true"}
        )
        assert error_code(payload) == "write_not_allowed"


def _head(forge, full_name: str, branch: str) -> str | None:
    owner, name = full_name.split("/")
    return forge.state.repo(owner, name).git.read_ref(f"refs/heads/{branch}")


async def test_cloning_is_a_read_pushing_is_the_gated_write(make_runtime, forge, tmp_path):
    repo = "octo-org/ws-gate"
    forge.seed_repo(repo, FILES)
    main = _head(forge, repo, "main")
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        # Any ref, branch or SHA, clones without approval: reading code is a read.
        for ref in (None, "main", main):
            args = {"full_name": repo} if ref is None else {"full_name": repo, "ref": ref}
            is_error, clone = await call_tool(client, "ensure_workspace_clone", args)
            assert not is_error, clone
            assert clone["head_sha"] == main
        # Pushing to the protected default branch is the write the gate stops.
        Path(clone["path"]).joinpath("x.txt").write_text("x\n")
        is_error, payload = await call_tool(
            client,
            "commit_workspace",
            {"full_name": repo, "ref": "main", "message": "x", "push": True},
        )
        assert error_code(payload) == "write_not_allowed"
    assert _head(forge, repo, "main") == main


async def test_commit_workspace_never_forces_unless_asked(make_runtime, forge, tmp_path):
    repo = "octo-org/ws-force"
    forge.seed_repo(repo, FILES, branches={"work": FILES})
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    args = {"full_name": repo, "ref": "work"}
    async with mcp_client(rt) as client:
        await call_tool(client, "ensure_workspace_clone", args)
        await call_tool(client, "terminal_command", {**args, "command": "echo 1 > one.txt"})
        is_error, first = await call_tool(
            client, "commit_workspace", {**args, "message": "one", "push": True}
        )
        assert not is_error and first["forced"] is False, first
        # Rewrite the pushed commit locally, then try to push the rewrite.
        rewrite = "git -c user.name=a -c user.email=a@b commit -q --amend -m 'one, reworded'"
        await call_tool(client, "terminal_command", {**args, "command": rewrite})
        await call_tool(client, "terminal_command", {**args, "command": "echo 2 > two.txt"})
        is_error, payload = await call_tool(
            client, "commit_workspace", {**args, "message": "two", "push": True}
        )
        assert error_code(payload) == "conflict" and "force" in payload["error"]["hint"]
        assert _head(forge, repo, "work") == first["commit_sha"]
        await call_tool(client, "terminal_command", {**args, "command": "echo 3 > three.txt"})
        is_error, forced = await call_tool(
            client, "commit_workspace", {**args, "message": "three", "push": True, "force": True}
        )
        assert not is_error and forced["forced"] is True, forced
    assert _head(forge, repo, "work") == forced["commit_sha"]


async def test_timeout_leaves_no_process(make_runtime, ws_repo, tmp_path):
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    token = uuid.uuid4().hex
    async with mcp_client(rt) as client:
        is_error, out = await call_tool(
            client,
            "terminal_command",
            {
                "full_name": ws_repo,
                "ref": "feature",
                "timeout_seconds": 1,
                "command": f"(sleep 300; echo {token}) & sleep 300 # {token}",
            },
        )
    assert not is_error and out["timed_out"] is True
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert token not in ps


async def test_commit_workspace_push_and_refresh_after_api_commit(
    make_runtime, ws_repo, tmp_path, forge
):
    forge.seed_repo("octo-org/ws-push", FILES, branches={"work": FILES})
    repo = "octo-org/ws-push"
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        await call_tool(client, "ensure_workspace_clone", {"full_name": repo, "ref": "work"})
        await call_tool(
            client,
            "terminal_command",
            {
                "full_name": repo,
                "ref": "work",
                "command": "echo 'extra' > NEW.txt && echo more >> README.md",
            },
        )
        is_error, summary = await call_tool(
            client, "get_workspace_changes_summary", {"full_name": repo, "ref": "work"}
        )
        assert not is_error and summary["dirty"] is True
        is_error, commit = await call_tool(
            client,
            "commit_workspace",
            {"full_name": repo, "ref": "work", "message": "ws change", "push": True},
        )
        assert not is_error, commit
        assert commit["pushed"] is True and commit["forced"] is False
        is_error, head = await call_tool(
            client, "list_commits", {"full_name": repo, "ref": "work", "limit": 1}
        )
        assert head["commits"][0]["sha"] == commit["commit_sha"]
        # an API commit to the branch fast-forwards the clean clone
        is_error, api = await call_tool(
            client,
            "apply_text_update_and_commit",
            {
                "full_name": repo,
                "branch": "work",
                "path": "API.txt",
                "new_content": "api\n",
                "message": "api commit",
            },
        )
        assert not is_error, api
        is_error, state = await call_tool(
            client, "get_workspace_changes_summary", {"full_name": repo, "ref": "work"}
        )
        assert state["head_sha"] == api["commit_sha"] and state["behind"] == 0


async def test_long_command_sends_progress_notifications(make_runtime, ws_repo, tmp_path):
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress, total, message):
        seen.append((progress, total, message))

    async with mcp_client(rt) as client:
        result = await client.call_tool(
            "terminal_command",
            {"full_name": ws_repo, "ref": "feature", "command": "sleep 5; echo done"},
            progress_handler=on_progress,
            raise_on_error=False,
        )
    assert not result.is_error and result.structured_content["stdout"].strip() == "done"
    assert seen, "expected progress notifications while the command ran"
    assert all(p >= 0 for p, _, _ in seen)


async def test_stale_git_locks_heal_and_reset_always_recovers(make_runtime, forge, tmp_path):
    repo = "octo-org/ws-heal"
    forge.seed_repo(repo, FILES, branches={"work": FILES})
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    args = {"full_name": repo, "ref": "work"}
    async with mcp_client(rt) as client:
        is_error, clone = await call_tool(client, "ensure_workspace_clone", args)
        assert not is_error, clone
        path = Path(clone["path"])
        (path / "edit.txt").write_text("e\n")
        locks = [
            ".git/index.lock",
            ".git/HEAD.lock",
            ".git/refs/heads/work.lock",
            ".git/gc.log.lock",
        ]
        # A git-like holder in the clone, then a container-style kill of its whole group.
        holder = subprocess.Popen(
            ["sh", "-c", " ".join(f": > {lock};" for lock in locks) + " exec sleep 600"],
            cwd=path,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 120
            while not all((path / lock).exists() for lock in locks):
                assert time.monotonic() < deadline
                time.sleep(0.01)
            # While it lives, its locks are not stale: nothing is removed.
            is_error, payload = await call_tool(
                client, "commit_workspace", {**args, "message": "m", "push": True}
            )
            assert is_error, payload
            assert all((path / lock).exists() for lock in locks)
        finally:
            os.killpg(holder.pid, signal.SIGKILL)
            holder.wait()
        is_error, commit = await call_tool(
            client, "commit_workspace", {**args, "message": "after the kill", "push": True}
        )
        assert not is_error, commit
        assert not any((path / lock).exists() for lock in locks)
        owner, name = repo.split("/")
        assert forge.state.repo(owner, name).git.read_ref("refs/heads/work") == commit["commit_sha"]
        # A clone broken beyond a lock: reset=true re-clones it.
        (path / ".git" / "HEAD").write_text("garbage\n")
        (path / ".git" / "index").write_bytes(b"not an index")
        is_error, fresh = await call_tool(client, "ensure_workspace_clone", {**args, "reset": True})
        assert not is_error, fresh
        assert fresh["head_sha"] == commit["commit_sha"] and fresh["dirty"] is False


@pytest.mark.parametrize(
    "args",
    [
        {"full_name": "../outside", "ref": "main"},
        {"full_name": "octo-org/..", "ref": "main"},
        {"full_name": "octo-org/x", "ref": "../../outside"},
        {"full_name": "octo-org/x", "ref": "./main"},
        {"full_name": "octo-org/x", "ref": "main/../../outside"},
    ],
)
async def test_remove_workspace_clone_cannot_leave_the_workspace(ws_runtime, ws_repo, args):
    """The one tool that deletes a directory: traversal spellings are refused before any
    path is built, and the directory beside the workspace root is still there."""
    root = ws_runtime.settings.workspace_dir
    root.mkdir(parents=True, exist_ok=True)
    sentinel = root.parent / "outside"
    sentinel.mkdir(exist_ok=True)
    (sentinel / "keep.txt").write_text("keep\n")
    async with mcp_client(ws_runtime) as client:
        is_error, payload = await call_tool(client, "remove_workspace_clone", args)
    assert is_error and error_code(payload) == "invalid_input", payload
    assert (sentinel / "keep.txt").read_text() == "keep\n"
