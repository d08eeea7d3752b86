"""A write that happened is reported as happened: regressions for each lost-answer defect,
driven by the forge's fault injection and judged from the forge's own state."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx2 as httpx
import pytest

from sandbox_forge.admin.collab_seeding import create_issue, repo_named
from sandbox_forge.stores.collab import collab
from tests.conftest import call_tool, error_code, mcp_client, settled_requests
from tests.test_tools_issues_prs import forge_pulls
from tests.test_tools_write import git, hash_object, head, new_repo

PREFIX = "exactly-once-org"


def faulted(forge, rule_id: int) -> list[dict[str, Any]]:
    """Log entries of requests the rule hit (proof the fault really fired)."""
    return [e for e in settled_requests(forge) if e.get("fault") == rule_id]


def new_commits(forge, repo: str, start: str, branch: str) -> list[str]:
    return git(forge, repo, "rev-list", f"{start}..{branch}").split()


async def test_create_branch_answer_lost_reports_created(make_runtime, forge):
    repo = new_repo(forge, {"README.md": "# r\n"}, branches={}, prefix=PREFIX)
    main = head(forge, repo, "main")
    rule = forge.add_fault(
        method="POST", path=r"/git/refs$", drop_connection=True, phase="after", times=1
    )
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, result = await call_tool(
            client, "create_branch", {"full_name": repo, "branch": "topic", "from_ref": "main"}
        )
    assert faulted(forge, rule) and faulted(forge, rule)[0].get("dropped")
    assert head(forge, repo, "topic") == main  # the branch exists: the write happened
    assert not is_error, result
    assert result == {"branch": "topic", "sha": main, "created": True}


async def test_create_branch_refused_before_the_write_is_a_clean_error(make_runtime, forge):
    repo = new_repo(forge, {"README.md": "# r\n"}, branches={}, prefix=PREFIX)
    rule = forge.add_fault(method="POST", path=r"/git/refs$", status=422, times=1)
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, result = await call_tool(
            client, "create_branch", {"full_name": repo, "branch": "topic", "from_ref": "main"}
        )
    assert faulted(forge, rule)
    assert head(forge, repo, "topic") is None
    assert is_error and error_code(result) == "unprocessable", result


async def _open_pr(client, repo: str) -> int:
    is_error, pr = await call_tool(
        client,
        "create_pull_request",
        {"full_name": repo, "head": "feature", "base": "main", "title": "Merge me"},
    )
    assert not is_error, pr
    return pr["number"]


@pytest.mark.parametrize(
    "fault",
    [
        {"drop_connection": True, "phase": "after"},
        {"status": 502, "phase": "after"},
    ],
    ids=["dropped-answer", "502-after-merge"],
)
async def test_merge_answer_lost_reports_merged(make_runtime, forge, fault):
    repo = new_repo(
        forge,
        {"README.md": "# r\n"},
        branches={"feature": {"feature.txt": "new\n"}},
        prefix=PREFIX,
    )
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        number = await _open_pr(client, repo)
        rule = forge.add_fault(method="PUT", path=rf"/pulls/{number}/merge$", times=1, **fault)
        is_error, result = await call_tool(
            client, "merge_pull_request", {"full_name": repo, "number": number}
        )
        assert faulted(forge, rule)
        (pull,) = [p for p in forge_pulls(forge, repo) if p["number"] == number]
        assert pull["merged_at"] and pull["merge_commit_sha"] == head(forge, repo, "main")
        assert not is_error, result
        assert result["merged"] is True and result["sha"] == pull["merge_commit_sha"]
        # Exactly one merge commit on main.
        assert len(git(forge, repo, "rev-list", "--first-parent", "main").split()) == 2


async def test_pr_failing_three_times_names_the_commit_and_a_retry_finishes(make_runtime, forge):
    repo = new_repo(forge, {"README.md": "# r\n"}, branches={}, prefix=PREFIX)
    main = head(forge, repo, "main")
    assert main is not None
    rule = forge.add_fault(method="POST", path=r"/pulls$", status=502, times=3)
    args = {
        "full_name": repo,
        "branch": "feat/pr-fails",
        "files": [{"path": "a.txt", "content": "a\n"}],
        "title": "PR after failures",
        "message": "add a",
    }
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, first = await call_tool(client, "update_files_and_open_pr", args)
        assert len(faulted(forge, rule)) == 3
        made = new_commits(forge, repo, main, "feat/pr-fails")
        assert len(made) == 1 and forge_pulls(forge, repo) == []
        assert is_error, first
        error = first["error"]
        assert error["code"] == "upstream_error" and error["retryable"] is True
        assert error["branch"] == "feat/pr-fails" and error["commit_sha"] == made[0]
        assert error["committed"] is True and error["created_branch"] is True

        is_error, retry = await call_tool(client, "update_files_and_open_pr", args)
    assert not is_error, retry
    assert new_commits(forge, repo, main, "feat/pr-fails") == made  # no second commit
    assert retry["commit"]["status"] == "no_change"
    assert retry["commit"]["commit_sha"] == made[0]
    (pull,) = forge_pulls(forge, repo)
    assert pull["head"]["sha"] == made[0] and retry["pull_request"]["number"] == pull["number"]


@pytest.mark.parametrize("route", ["trees", "commits"])
@pytest.mark.parametrize(
    "fault",
    [
        {"status": 502},
        {"drop_connection": True},
        {"drop_connection": True, "phase": "after"},
    ],
    ids=["502", "dropped-before", "dropped-after"],
)
async def test_tree_and_commit_creation_survive_one_failure(make_runtime, forge, route, fault):
    repo = new_repo(forge, {"README.md": "# r\n"}, prefix=PREFIX)
    start = head(forge, repo, "feature")
    assert start is not None
    rule = forge.add_fault(method="POST", path=rf"/git/{route}$", times=1, **fault)
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, result = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "one",
                "files": [{"path": "one.txt", "content": "1\n"}],
            },
        )
    assert faulted(forge, rule)
    made = new_commits(forge, repo, start, "feature")
    assert len(made) == 1
    assert not is_error, result
    assert result["commit_sha"] == made[0] and result["verification"]["verified"] is True


async def test_lost_answer_then_racing_writer_is_not_a_conflict(make_runtime, forge):
    """A's ref update lands, its answer is lost, B commits on top, A's repeated update is
    refused as not a fast-forward: A's commit is in the branch, so A succeeded. B is another
    process (a second runtime): in one process the branch lock would make B wait for A."""
    repo = new_repo(forge, {"a.txt": "a\n", "b.txt": "b\n"}, prefix=PREFIX)
    start = head(forge, repo, "feature")
    ref = r"/git/refs/heads/feature$"
    lost = forge.add_fault(method="PATCH", path=ref, drop_connection=True, phase="after")
    # A's repeated update waits here while writer B commits.
    held = forge.add_fault(method="PATCH", path=ref, latency_ms=2000)
    other = make_runtime(auto_approve=True)
    async with mcp_client(make_runtime(auto_approve=True)) as client, mcp_client(other) as b_client:
        writer_a = asyncio.ensure_future(
            call_tool(
                client,
                "commit_files",
                {
                    "full_name": repo,
                    "branch": "feature",
                    "message": "A",
                    "files": [{"path": "a.txt", "content": "A\n"}],
                },
            )
        )
        deadline = time.monotonic() + 120
        # The raw log (not the settled one): the held request is still in flight.
        while not any(e.get("fault") == held for e in forge.requests()) and not writer_a.done():
            assert time.monotonic() < deadline, "A never repeated its ref update"
            await asyncio.sleep(0.01)
        a_commit = head(forge, repo, "feature")
        assert a_commit != start and any(e.get("fault") == lost for e in forge.requests())
        is_error, b = await call_tool(
            b_client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "B",
                "files": [{"path": "b.txt", "content": "B\n"}],
            },
        )
        assert not is_error, b
        assert b["parent_sha"] == a_commit  # B really built on A's landed commit
        is_error, a = await writer_a
    refused = [e for e in faulted(forge, held) if e.get("status") == 422]
    assert refused, "A's repeated update must have been refused (the race happened)"
    assert not is_error, a
    assert a["commit_sha"] == a_commit and a["verification"]["verified"] is True
    assert head(forge, repo, "feature") == b["commit_sha"]
    assert new_commits(forge, repo, start, "feature") == [b["commit_sha"], a_commit]


async def test_identical_content_writes_nothing(make_runtime, forge):
    repo = new_repo(forge, {"README.md": "# r\n", "a.txt": "a\n"}, prefix=PREFIX)
    start = head(forge, repo, "feature")
    files = [{"path": "a.txt", "content": "changed\n"}, {"path": "new.txt", "content": "n\n"}]
    args = {"full_name": repo, "branch": "feature", "message": "m", "files": files}
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, first = await call_tool(client, "commit_files", args)
        assert not is_error, first
        assert first["status"] == "committed"
        forge.clear_requests()
        is_error, again = await call_tool(client, "commit_files", args)
        writes_again = [
            e for e in settled_requests(forge) if e["method"] in ("PATCH", "POST", "PUT")
        ]
        is_error_text, same_text = await call_tool(
            client,
            "apply_text_update_and_commit",
            {"full_name": repo, "branch": "feature", "path": "a.txt",
             "new_content": "changed\n", "message": "same again"},
        )  # fmt: skip
    assert not is_error, again
    assert new_commits(forge, repo, start, "feature") == [first["commit_sha"]]
    # Only the content-addressed tree was posted: no commit object, no ref update.
    assert [(e["method"], e["path"].rsplit("/", 2)[-2:]) for e in writes_again] == [
        ("POST", ["git", "trees"])
    ]
    assert again["status"] == "no_change"
    assert again["commit_sha"] == first["commit_sha"] == head(forge, repo, "feature")
    assert again["verification"]["verified"] is True
    assert {f["path"]: (f["status"], f["sha"]) for f in again["files"]} == {
        "a.txt": ("unchanged", hash_object("changed\n")),
        "new.txt": ("unchanged", hash_object("n\n")),
    }
    assert not is_error_text, same_text
    assert same_text["status"] == "no_change" and same_text["commit_sha"] == first["commit_sha"]


async def test_comment_answer_lost_reports_the_comment(make_runtime, forge):
    repo = new_repo(forge, {"README.md": "# r\n"}, prefix=PREFIX)
    number = create_issue(forge, repo, "An issue")["number"]
    rule = forge.add_fault(
        method="POST", path=r"/issues/\d+/comments$", drop_connection=True, phase="after"
    )
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, result = await call_tool(
            client,
            "comment_on_issue",
            {"full_name": repo, "number": number, "body": "posted once"},
        )
    assert faulted(forge, rule)
    comments = list(collab(repo_named(forge, repo)).issue_comments.values())
    assert [c.body for c in comments] == ["posted once"]
    assert not is_error, result
    assert result["id"] == comments[0].id


async def test_forge_answers_422_to_a_nul_in_a_search_query(forge, forge_token):
    response = httpx.get(
        f"{forge.base_url}/search/code",
        params={"q": "needle\x00 repo:octo-org/demo-app"},
        headers={"Authorization": f"Bearer {forge_token}"},
    )
    assert response.status_code == 422, response.text
    assert response.json()["message"] == "Validation Failed"


async def test_a_422_is_never_retried(make_runtime, forge):
    forge.clear_requests()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, result = await call_tool(
            client,
            "search",
            {"query": "needle\x00", "kind": "code", "full_name": "octo-org/demo-app"},
        )
    asked = [e for e in settled_requests(forge) if e["path"].endswith("/search/code")]
    assert [e["status"] for e in asked] == [422]
    assert is_error and error_code(result) == "unprocessable", result
