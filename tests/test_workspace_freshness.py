"""A reused workspace clone follows its branch: ensure_workspace_clone (no reset) after the
branch moved on the forge fast-forwards a clean clone to the forge's head and says what
changed, and leaves a clone with local work in place, saying why it is stale. Evidence:
the forge's branch head and the clone's own git, not only the tool's answer."""

from __future__ import annotations

import base64
import itertools
import subprocess
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.conftest import call_tool, mcp_client, traversable

FILES = {"README.md": "fresh clones\n", "app.py": "VALUE = 1\n"}
_numbers = itertools.count(1)


@pytest.fixture
def moving_repo(forge) -> str:
    name = f"octo-org/ws-fresh-{next(_numbers)}"
    forge.seed_repo(name, FILES, branches={"work": FILES})
    return name


def forge_commit(forge: Any, repo: str, branch: str, path: str, text: str) -> str:
    """A commit made on the forge outside the server (another person's push)."""
    token = forge.create_token(login="octocat")
    with httpx.Client(
        base_url=forge.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=10
    ) as api:
        current = api.get(f"/repos/{repo}/contents/{path}", params={"ref": branch})
        body: dict[str, Any] = {
            "message": f"outside edit of {path}",
            "content": base64.b64encode(text.encode()).decode(),
            "branch": branch,
        }
        if current.status_code == 200:
            body["sha"] = current.json()["sha"]
        answer = api.put(f"/repos/{repo}/contents/{path}", json=body)
        assert answer.status_code in (200, 201), answer.text
        return str(answer.json()["commit"]["sha"])


def forge_head(forge: Any, repo: str, branch: str) -> str:
    owner, name = repo.split("/")
    record = forge.state.repo(owner, name)
    sha = record.git.read_ref(f"refs/heads/{branch}")
    assert sha is not None
    return str(sha)


def clone_git(path: str, *args: str) -> str:
    cmd = ["git", "-c", "safe.directory=*", "-C", path, *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()


async def ensure(client: Any, repo: str) -> dict[str, Any]:
    is_error, state = await call_tool(
        client, "ensure_workspace_clone", {"full_name": repo, "ref": "work"}
    )
    assert not is_error, state
    return state


async def test_reused_clone_is_fast_forwarded_to_the_forge_head(
    make_runtime, moving_repo, forge, tmp_path
):
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        first = await ensure(client, moving_repo)
        assert first["refresh"] == "cloned"
        old = first["head_sha"]
        forge_commit(forge, moving_repo, "work", "app.py", "VALUE = 2\n")
        forge_commit(forge, moving_repo, "work", "NEW.md", "added outside\n")
        again = await ensure(client, moving_repo)
        head = forge_head(forge, moving_repo, "work")
        assert clone_git(again["path"], "rev-parse", "HEAD") == head
        assert (Path(again["path"]) / "app.py").read_text() == "VALUE = 2\n"
        assert again["head_sha"] == head and again["behind"] == 0
        assert again["refresh"] == "fast_forwarded"
        assert again["previous_head_sha"] == old and again["new_commits"] == 2
        settled = await ensure(client, moving_repo)
        assert settled["refresh"] == "up_to_date" and settled["new_commits"] == 0


async def test_uncommitted_work_is_kept_and_the_clone_reported_stale(
    make_runtime, moving_repo, forge, tmp_path
):
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        first = await ensure(client, moving_repo)
        (Path(first["path"]) / "app.py").write_text("VALUE = 'mine'\n")
        forge_commit(forge, moving_repo, "work", "app.py", "VALUE = 3\n")
        again = await ensure(client, moving_repo)
        assert clone_git(again["path"], "rev-parse", "HEAD") == first["head_sha"]
        assert (Path(again["path"]) / "app.py").read_text() == "VALUE = 'mine'\n"
        assert again["refresh"] == "dirty_left_behind"
        assert "uncommitted" in again["stale_reason"] and again["new_commits"] == 1
        assert again["remote_sha"] == forge_head(forge, moving_repo, "work")


async def test_local_commits_are_kept_and_the_clone_reported_diverged(
    make_runtime, moving_repo, forge, tmp_path
):
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        first = await ensure(client, moving_repo)
        is_error, local = await call_tool(
            client,
            "terminal_command",
            {"full_name": moving_repo, "ref": "work", "command": "echo mine > LOCAL.md"},
        )
        assert not is_error, local
        is_error, commit = await call_tool(
            client,
            "commit_workspace",
            {"full_name": moving_repo, "ref": "work", "message": "local", "push": False},
        )
        assert not is_error, commit
        forge_commit(forge, moving_repo, "work", "app.py", "VALUE = 4\n")
        again = await ensure(client, moving_repo)
        assert clone_git(again["path"], "rev-parse", "HEAD") == commit["commit_sha"]
        assert again["refresh"] == "diverged_left_behind"
        assert "1 local commit" in again["stale_reason"]
        assert again["ahead"] == 1 and again["behind"] == 1
        assert first["head_sha"] != forge_head(forge, moving_repo, "work")


async def test_a_moved_tag_is_reported_not_followed(make_runtime, moving_repo, forge, tmp_path):
    first = forge_head(forge, moving_repo, "work")
    token = forge.create_token(login="octocat")
    with httpx.Client(
        base_url=forge.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=10
    ) as api:
        made = api.post(
            f"/repos/{moving_repo}/git/refs", json={"ref": "refs/tags/v1", "sha": first}
        )
        assert made.status_code == 201, made.text
        rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
        async with mcp_client(rt) as client:
            args = {"full_name": moving_repo, "ref": "v1"}
            is_error, clone = await call_tool(client, "ensure_workspace_clone", args)
            assert not is_error and clone["head_sha"] == first, clone
            newer = forge_commit(forge, moving_repo, "work", "app.py", "VALUE = 5\n")
            moved = api.patch(
                f"/repos/{moving_repo}/git/refs/tags/v1", json={"sha": newer, "force": True}
            )
            assert moved.status_code == 200, moved.text
            is_error, again = await call_tool(client, "ensure_workspace_clone", args)
            assert not is_error, again
    assert clone_git(again["path"], "rev-parse", "HEAD") == first
    assert again["refresh"] == "diverged_left_behind" and again["remote_sha"] == newer
    assert "reset=true" in again["stale_reason"]
