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


# -- one call for a new area: find_tools lists what it found ------------------------------


def _stdio(tmp_path, steps, **env):
    import sys

    from tests.conftest import ROOT
    from tests.perf.test_tool_catalog import environment
    from tests.stdio_session import run

    session = run(
        [sys.executable, "main.py", "serve"], steps, cwd=ROOT,
        env=environment(tmp_path, **env), timeout_s=300,
    )  # fmt: skip
    assert session.returncode == 0
    return session


def test_find_tools_lists_the_toolset_it_found_in_the_same_call(tmp_path):
    """A client with a session (stdio): the best match's toolset is listed at once, the
    client is told (tools/list_changed), and its next tools/list has the tool."""
    from tests.stdio_session import opening, request, tool_call

    session = _stdio(
        tmp_path,
        [*opening(), [tool_call(3, "find_tools", {"query": "trigger a workflow dispatch"})],
         [request(4, "tools/list")]],
    )  # fmt: skip
    before = {t["name"] for t in session.result(2)["tools"]}
    found = session.result(3)["structuredContent"]
    after = {t["name"] for t in session.result(4)["tools"]}
    assert found["tools"][0]["name"] == "trigger_workflow_dispatch"
    assert "trigger_workflow_dispatch" not in before
    assert found["enabled"] == ["actions"] and found["tools"][0]["listed"] is True
    assert "Listed for this session now: actions." in found["hint"]
    assert {"trigger_workflow_dispatch", "get_job_logs", "list_workflow_runs"} <= after - before
    changed = [f for f in session.frames if f.get("method") == "notifications/tools/list_changed"]
    assert len(changed) == 1


def test_find_tools_with_enable_false_only_finds(tmp_path):
    from tests.stdio_session import opening, request, tool_call

    args = {"query": "trigger a workflow dispatch", "enable": False}
    session = _stdio(
        tmp_path, [*opening(), [tool_call(3, "find_tools", args)], [request(4, "tools/list")]]
    )
    found = session.result(3)["structuredContent"]
    assert found["enabled"] == [] and found["tools"][0]["listed"] is False
    assert "enable_toolset lists these: " in found["hint"] and "actions" in found["hint"]
    assert session.result(4)["tools"] == session.result(2)["tools"]
    assert not [f for f in session.frames if f.get("method") == "notifications/tools/list_changed"]


async def test_a_sessionless_client_is_told_to_call_what_it_found_by_name(make_runtime):
    """The 2026 revision keeps no session: nothing can be listed for it, and the found tool
    is callable by name all the same."""
    from github_mcp.serving.loopback import serve_in_thread
    from github_mcp.serving.server import build_http_app

    token = "find-tools-token-0123456789"
    rt = make_runtime(toolsets="default", auth_tokens=token)
    with serve_in_thread(build_http_app(rt)) as url:
        from fastmcp import Client
        from fastmcp.client.transports import StreamableHttpTransport

        async with Client(StreamableHttpTransport(f"{url}/mcp", auth=token)) as client:
            _, found = await call_tool(client, "find_tools", {"query": "list workflow runs"})
            listed = {t.name for t in await client.list_tools()}
            is_error, runs = await call_tool(
                client, "list_workflow_runs", {"full_name": "octo-org/demo-app"}
            )
    assert found["tools"][0]["name"] == "list_workflow_runs" and found["enabled"] == []
    assert found["hint"] == "This connection keeps no session: call these tools by name."
    assert "list_workflow_runs" not in listed
    assert not is_error and runs["runs"]
