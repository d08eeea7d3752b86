"""The core flows against real GitHub: read, write, pull request, CI and workspace.

Run with `make test-live` (see live_tests/conftest.py for the variables). Everything a
test creates (a branch, a pull request, a clone) is removed at its end, also on failure.
"""

from __future__ import annotations

import contextlib

from live_tests.conftest import call


async def test_reads(live_client, live_repo):
    repo = await call(live_client, "get_repository", {"full_name": live_repo})
    assert repo["full_name"].lower() == live_repo.lower()
    default = repo["default_branch"]
    branches = await call(live_client, "list_branches", {"full_name": live_repo})
    assert default in [b["name"] for b in branches["branches"]]
    tree = await call(live_client, "list_repository_tree", {"full_name": live_repo})
    assert tree["file_tree"], "the scratch repository needs at least one file"
    commits = await call(live_client, "list_commits", {"full_name": live_repo, "limit": 1})
    assert len(commits["commits"]) == 1


async def test_write_pull_request_and_cleanup(live_client, live_repo, scratch_branch):
    default = (await call(live_client, "get_repository", {"full_name": live_repo}))[
        "default_branch"
    ]
    number = None
    try:
        done = await call(
            live_client,
            "update_files_and_open_pr",
            {
                "full_name": live_repo,
                "branch": scratch_branch,
                "base": default,
                "message": "github-mcp live test",
                "title": "github-mcp live test (closed automatically)",
                "files": [{"path": "github-mcp-live.txt", "content": scratch_branch + "\n"}],
            },
        )
        assert done["commit"]["verification"]["verified"] is True
        number = done["pull_request"]["number"]
        read = await call(
            live_client,
            "get_file_contents",
            {"full_name": live_repo, "path": "github-mcp-live.txt", "ref": scratch_branch},
        )
        assert read["content"] == scratch_branch + "\n"
        overview = await call(
            live_client, "get_pr_overview", {"full_name": live_repo, "number": number}
        )
        assert overview["head"] == scratch_branch and overview["state"] == "open"
        status = await call(
            live_client,
            "get_latest_branch_status",
            {"full_name": live_repo, "branch": scratch_branch},
        )
        assert status["head_sha"] == done["commit"]["commit_sha"]
        runs = await call(
            live_client,
            "list_workflow_runs",
            {"full_name": live_repo, "branch": scratch_branch, "limit": 5},
        )
        assert isinstance(runs["runs"], list)  # a repository without workflows has none
        closed = await call(
            live_client, "close_pull_request", {"full_name": live_repo, "number": number}
        )
        assert closed["state"] == "closed"
    finally:
        if number is not None:
            with contextlib.suppress(Exception):
                await live_client.call_tool(
                    "close_pull_request", {"full_name": live_repo, "number": number}
                )
        deleted = await live_client.call_tool(
            "delete_remote_branch",
            {"full_name": live_repo, "branch": scratch_branch},
            raise_on_error=False,
        )
    assert not deleted.is_error, deleted.structured_content


async def test_workspace_clone_and_command(live_client, live_repo):
    try:
        clone = await call(live_client, "ensure_workspace_clone", {"full_name": live_repo})
        assert clone["head_sha"]
        ran = await call(
            live_client,
            "terminal_command",
            {"full_name": live_repo, "command": "git rev-parse HEAD"},
        )
        assert ran["exit_code"] == 0 and clone["head_sha"] in ran["stdout"]
    finally:
        await live_client.call_tool(
            "remove_workspace_clone", {"full_name": live_repo}, raise_on_error=False
        )
