"""Reliability: concurrent writers lose nothing, and a flaky upstream
(5xx, answers lost after the work was done) never doubles a commit or a pull request."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tests.conftest import call_tool, error_code, mcp_client
from tests.test_tools_issues_prs import forge_pulls
from tests.test_tools_write import git, hash_object, head, new_repo, tree_files

WRITERS = 20
DIFFERENT_FILE_WRITERS = 30


async def test_concurrent_writers_lose_nothing(make_runtime, forge):
    repo = new_repo(
        forge, {"shared.txt": "initial\n", "README.md": "# r\n"}, prefix="reliability-org"
    )
    start = head(forge, repo, "feature")
    assert start is not None
    rt = make_runtime()

    def args(i: int) -> dict[str, Any]:
        same = i % 2 == 0
        path = "shared.txt" if same else f"files/w{i:02d}.txt"
        return {
            "full_name": repo,
            "branch": "feature",
            "message": f"writer {i}",
            "files": [{"path": path, "content": f"written by writer {i}\n"}],
        }

    async with mcp_client(rt) as client:
        results = await asyncio.gather(
            *(call_tool(client, "commit_files", args(i)) for i in range(WRITERS))
        )

    landed: dict[int, dict[str, Any]] = {}
    for i, (is_error, payload) in enumerate(results):
        if is_error:
            assert error_code(payload) == "conflict", (i, payload)
        else:
            landed[i] = payload
    assert landed, "at least one writer must land"
    # Every landed commit is on the branch, once, in one linear history; nothing else is.
    history = git(forge, repo, "rev-list", "--first-parent", f"{start}..feature").split()
    assert sorted(history) == sorted(p["commit_sha"] for p in landed.values())
    assert len(git(forge, repo, "rev-list", f"{start}..feature").split()) == len(history)
    for i, payload in landed.items():
        assert payload["verification"]["verified"] is True, payload
        path = args(i)["files"][0]["path"]
        assert payload["files"] == [
            {
                "path": path,
                "status": "written",
                "sha": hash_object(f"written by writer {i}\n"),
                "ok": True,
            }
        ]
    # The final tree is exactly what the landed commits describe.
    final = tree_files(forge, repo, "feature")
    different = {i for i in range(WRITERS) if i % 2}
    expected = {"README.md": b"# r\n"}
    expected |= {
        f"files/w{i:02d}.txt": f"written by writer {i}\n".encode() for i in different & set(landed)
    }
    same_landed = [i for i in landed if i % 2 == 0]
    if same_landed:
        newest = min(same_landed, key=lambda i: history.index(landed[i]["commit_sha"]))
        expected["shared.txt"] = f"written by writer {newest}\n".encode()
    else:
        expected["shared.txt"] = b"initial\n"
    assert final == expected
    # A writer of a different file never conflicts over files; only if the branch kept moving.
    for i in different - set(landed):
        error = results[i][1]["error"]
        assert "files" not in error and "kept moving" in error["message"], error
    print(
        f"landed {len(landed)}/{WRITERS}: same-file {len(same_landed)}, "
        f"different-file {len(different & set(landed))}"
    )


async def test_without_redis_every_different_file_writer_lands(make_runtime, forge):
    """No shared state: the per-branch lock is in-process, so 30 writers of 30 different
    files all land, one after another, and none gives up after re-applying."""
    repo = new_repo(forge, {"README.md": "# r\n"}, prefix="reliability-org")
    start = head(forge, repo, "feature")
    rt = make_runtime()
    assert rt.shared is None

    def args(i: int) -> dict[str, Any]:
        return {
            "full_name": repo,
            "branch": "feature",
            "message": f"writer {i}",
            "files": [{"path": f"files/w{i:02d}.txt", "content": f"writer {i}\n"}],
        }

    async with mcp_client(rt) as client:
        results = await asyncio.gather(
            *(call_tool(client, "commit_files", args(i)) for i in range(DIFFERENT_FILE_WRITERS))
        )
    failed = [payload for is_error, payload in results if is_error]
    assert failed == []
    history = git(forge, repo, "rev-list", "--first-parent", f"{start}..feature").split()
    assert sorted(history) == sorted(payload["commit_sha"] for _, payload in results)
    expected = {f"files/w{i:02d}.txt": f"writer {i}\n".encode() for i in range(30)}
    assert tree_files(forge, repo, "feature") == {"README.md": b"# r\n"} | expected
    assert len(rt.github.ref_locks) == 0  # every lock was dropped once its writers were done


async def test_commit_verifies_when_the_branch_moves_on_right_after(make_runtime, forge):
    """Another writer lands between our ref update and our verification read: our commit
    is still on the branch, so it verified (and a PR would still be opened)."""
    repo = new_repo(forge, {"a.txt": "a\n"}, prefix="reliability-org")
    start = head(forge, repo, "feature")
    forge.add_fault(method="GET", path=r".*/git/ref/heads/feature$", latency_ms=1500, times=1)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        first = asyncio.ensure_future(
            call_tool(
                client,
                "commit_files",
                {
                    "full_name": repo,
                    "branch": "feature",
                    "message": "first",
                    "files": [{"path": "first.txt", "content": "1\n"}],
                },
            )
        )
        deadline = time.monotonic() + 120
        while head(forge, repo, "feature") == start and not first.done():
            assert time.monotonic() < deadline, "the first write never moved the branch"
            await asyncio.sleep(0.01)
        is_error, second = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "second",
                "files": [{"path": "second.txt", "content": "2\n"}],
            },
        )
        assert not is_error, second
        is_error, result = await first
    assert not is_error, result
    assert second["parent_sha"] == result["commit_sha"]  # it really landed in between
    assert head(forge, repo, "feature") == second["commit_sha"]
    assert result["verification"]["verified"] is True, result["verification"]


FLAKY_FILES = [
    {"path": "src/app.py", "content": "print('flaky')\n"},
    {"path": "CHANGELOG.md", "content": "- flaky upstream\n"},
]


def _count_new(forge, repo: str, start: str, branch: str) -> int:
    return len(git(forge, repo, "rev-list", f"{start}..{branch}").split())


@pytest.mark.parametrize("branch_exists", [True, False], ids=["existing-branch", "new-branch"])
async def test_flaky_upstream_one_commit_one_pr(make_runtime, forge, branch_exists):
    branches = {"feat/flaky": {}} if branch_exists else {}
    repo = new_repo(forge, {"README.md": "# r\n"}, branches=branches, prefix="reliability-org")
    start = head(forge, repo, "main")
    assert start is not None
    forge.clear_requests()
    forge.add_fault(method="POST", path=r".*/pulls$", status=502, times=1)
    if branch_exists:
        forge.add_fault(
            method="PATCH",
            path=r".*/git/refs/heads/feat/flaky$",
            drop_connection=True,
            phase="after",
            times=1,
        )
    else:
        forge.add_fault(
            method="POST", path=r".*/git/refs$", drop_connection=True, phase="after", times=1
        )
    start = head(forge, repo, "feat/flaky") or start
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "update_files_and_open_pr",
            {
                "full_name": repo,
                "branch": "feat/flaky",
                "files": FLAKY_FILES,
                "title": "Flaky",
                "message": "flaky change",
            },
        )
    assert not is_error, result
    faulted = [e for e in forge.requests() if e.get("fault") or e.get("dropped")]
    assert len(faulted) == 2, faulted  # both faults really fired
    assert _count_new(forge, repo, start, "feat/flaky") == 1
    assert head(forge, repo, "feat/flaky") == result["commit"]["commit_sha"]
    assert result["commit"]["verification"]["verified"] is True
    pulls = [p for p in forge_pulls(forge, repo) if p["head"]["ref"] == "feat/flaky"]
    assert len(pulls) == 1
    assert result["pull_request"]["number"] == pulls[0]["number"]
    assert result["pull_request"]["already_existed"] is False


async def test_pr_created_but_answer_lost_is_not_duplicated(make_runtime, forge):
    repo = new_repo(forge, {"README.md": "# r\n"}, branches={}, prefix="reliability-org")
    forge.add_fault(method="POST", path=r".*/pulls$", drop_connection=True, phase="after", times=1)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "update_files_and_open_pr",
            {
                "full_name": repo,
                "branch": "feat/lost",
                "files": FLAKY_FILES,
                "title": "Lost answer",
                "message": "m",
            },
        )
    assert not is_error, result
    pulls = [p for p in forge_pulls(forge, repo) if p["head"]["ref"] == "feat/lost"]
    assert len(pulls) == 1
    assert result["pull_request"]["number"] == pulls[0]["number"]


async def test_read_retries_5xx(make_runtime, forge):
    repo = new_repo(forge, {"a.txt": "alpha\n"}, prefix="reliability-org")
    # First reads are one GraphQL query (the REST contents API only for bytes GraphQL cannot
    # give whole), so the faults go where the read really goes.
    forge.add_fault(method="POST", path=r".*/graphql$", status=503, times=2)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, read = await call_tool(
            client, "get_file_contents", {"full_name": repo, "path": "a.txt", "ref": "main"}
        )
        forge.add_fault(method="POST", path=r".*/graphql$", status=502, times=None)
        _, failing = await call_tool(
            client, "get_file_contents", {"full_name": repo, "path": "a.txt", "ref": "feature"}
        )
    assert not is_error, read
    assert read["content"] == "alpha\n"
    assert error_code(failing) == "upstream_error" and failing["error"]["retryable"] is True


async def test_read_retries_a_connection_dropped_mid_body(make_runtime, forge):
    repo = new_repo(forge, {"a.txt": "alpha\n"}, prefix="reliability-org")
    forge.add_fault(method="GET", path=r".*/contents/a\.txt$", drop_connection=True, times=1)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, read = await call_tool(
            client, "get_file_contents", {"full_name": repo, "path": "a.txt", "ref": "main"}
        )
    assert not is_error, read
    assert read["content"] == "alpha\n"
