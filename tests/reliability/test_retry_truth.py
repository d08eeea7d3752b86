"""Truthful answers on retry: a client whose answer was lost retries a merge, a close or
a branch delete that already happened. The retry says so, names the merge commit, and
says whether this principal's own earlier call did it (by the audit record); a thread
already resolved is reported unchanged. Evidence comes from the forge's state."""

from __future__ import annotations

import json

from tests.conftest import call_tool, error_code, mcp_client
from tests.test_tools_issues_prs import forge_pulls
from tests.test_tools_write import git, head, new_repo

PREFIX = "retry-truth-org"


async def _open_pr(client, repo: str) -> int:
    is_error, pr = await call_tool(
        client,
        "create_pull_request",
        {"full_name": repo, "head": "feature", "base": "main", "title": "Merge me"},
    )
    assert not is_error, pr
    return pr["number"]


def _audit_call_ids(rt, tool: str) -> list[str]:
    lines = rt.settings.audit_log.read_text().splitlines()
    return [e["call_id"] for e in map(json.loads, lines) if e["tool"] == tool]


async def test_merge_retried_after_a_lost_answer_reports_already_merged(make_runtime, forge):
    repo = new_repo(
        forge, {"README.md": "# r\n"}, branches={"feature": {"f.txt": "f\n"}}, prefix=PREFIX
    )
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        number = await _open_pr(client, repo)
        args = {"full_name": repo, "number": number}
        is_error, first = await call_tool(client, "merge_pull_request", args)
        assert not is_error, first
        # the client never saw `first`; it retries
        is_error, retry = await call_tool(client, "merge_pull_request", args)
    (pull,) = [p for p in forge_pulls(forge, repo) if p["number"] == number]
    merge_commit = pull["merge_commit_sha"]
    assert pull["merged_at"] and merge_commit == head(forge, repo, "main")
    assert len(git(forge, repo, "rev-list", "--first-parent", "main").split()) == 2  # one merge
    assert not is_error, retry
    assert retry["merged"] is True and retry["already_merged"] is True
    assert retry["sha"] == merge_commit
    assert retry["by_this_principal"] is True
    assert retry["earlier_call_id"] == _audit_call_ids(rt, "merge_pull_request")[0]
    assert "already merged" in retry["message"]


async def test_merge_done_elsewhere_is_reported_as_not_this_principals(make_runtime, forge):
    repo = new_repo(
        forge, {"README.md": "# r\n"}, branches={"feature": {"f.txt": "f\n"}}, prefix=PREFIX
    )
    async with mcp_client(make_runtime(auto_approve=True)) as elsewhere:
        number = await _open_pr(elsewhere, repo)
        is_error, first = await call_tool(
            elsewhere, "merge_pull_request", {"full_name": repo, "number": number}
        )
        assert not is_error, first
    # another server (its own audit record) retries the same merge
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, retry = await call_tool(
            client, "merge_pull_request", {"full_name": repo, "number": number}
        )
    assert not is_error, retry
    assert retry["already_merged"] is True and retry["sha"] == head(forge, repo, "main")
    assert retry["by_this_principal"] is False and retry.get("earlier_call_id") is None


async def test_close_retried_reports_already_closed(make_runtime, forge):
    repo = new_repo(
        forge, {"README.md": "# r\n"}, branches={"feature": {"f.txt": "f\n"}}, prefix=PREFIX
    )
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        number = await _open_pr(client, repo)
        args = {"full_name": repo, "number": number}
        is_error, first = await call_tool(client, "close_pull_request", args)
        assert not is_error, first
        forge.clear_requests()
        is_error, retry = await call_tool(client, "close_pull_request", args)
    (pull,) = [p for p in forge_pulls(forge, repo) if p["number"] == number]
    assert pull["state"] == "closed" and not pull["merged_at"]
    assert first["state"] == "closed" and first["already_closed"] is False
    assert not is_error, retry
    assert retry["already_closed"] is True and retry["by_this_principal"] is True
    assert retry["earlier_call_id"] == _audit_call_ids(rt, "close_pull_request")[0]
    assert not [r for r in forge.requests() if r["method"] == "PATCH"]  # nothing sent again


async def test_delete_of_a_branch_never_deleted_here_is_not_found(make_runtime, forge):
    repo = new_repo(forge, branches={"gone": {"x.txt": "x\n"}}, prefix=PREFIX)
    git(forge, repo, "update-ref", "-d", "refs/heads/gone")  # deleted by someone else
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, result = await call_tool(
            client, "delete_remote_branch", {"full_name": repo, "branch": "gone"}
        )
    assert error_code(result) == "not_found"
    assert "no earlier call of yours" in result["error"]["message"]
