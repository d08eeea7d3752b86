"""find_tools ranks by name, parameters and description: 20 everyday requests and the tool
each must return first, through MCP as a model would ask."""

from __future__ import annotations

import pytest

from tests.conftest import call_tool, mcp_client

FIRST = {
    "comment on an issue": "comment_on_issue",
    "approve writes": "authorize_write_actions",
    "set labels on a pull request": "add_pr_labels",
    "why is CI failing on my PR": "get_failing_tests",
    "merge conflicts": "detect_merge_conflicts",
    "is the PR ready to merge": "check_merge_readiness",
    "unresolved review comments": "find_unresolved_comments",
    "reply to a review thread": "reply_to_review_thread",
    "resolve a review thread": "resolve_review_thread",
    "read a file": "get_file_contents",
    "fetch several files at once": "fetch_files",
    "open a pull request": "create_pull_request",
    "create a branch": "create_branch",
    "apply a unified diff": "apply_patch_and_commit",
    "logs of a failed job": "get_job_logs",
    "rerun failed jobs": "rerun_failed_jobs",
    "search code": "search",
    "list workflow runs": "list_workflow_runs",
    "run a shell command in a clone": "terminal_command",
    "rate limit": "get_rate_limit",
    "who am I": "get_me",
    "rebase stacked pull requests": "manage_stacked_prs",
    "compare two branches": "compare_refs",
    "directory tree of a repository": "list_repository_tree",
}


@pytest.fixture(scope="module")
def anyio_backend():
    return "asyncio"


async def test_each_request_finds_its_tool_first(make_runtime):
    missed = {}
    async with mcp_client(make_runtime(tools="core")) as client:
        for query, expected in FIRST.items():
            is_error, found = await call_tool(client, "find_tools", {"query": query, "limit": 5})
            assert not is_error, found
            names = [f["name"] for f in found["tools"]]
            if not names or names[0] != expected:
                missed[query] = names
    assert len(FIRST) >= 20
    assert missed == {}, "\n".join(f"{q}: {n}" for q, n in missed.items())


async def test_comment_and_labels_do_not_rank_ci_tools(make_runtime):
    async with mcp_client(make_runtime(tools="core")) as client:
        _, found = await call_tool(client, "find_tools", {"query": "comment on issue labels"})
    names = [f["name"] for f in found["tools"]]
    assert names[0] == "comment_on_issue"
    assert {"update_issue", "create_issue"} & set(names[:4])  # the tools that set labels
    assert "get_failing_tests" not in names
