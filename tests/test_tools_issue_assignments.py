"""Assignees and milestones through a real MCP client against the forge: update_issue sets
and clears them (an unscoped write that needs approval, like any issue edit), and
list_milestones reads them with their issue counts. Evidence from the forge's issue
records; requests and responses checked against GitHub's OpenAPI description."""

from __future__ import annotations

from sandbox_forge.admin.seed_collab import create_issue
from sandbox_forge.stores.milestones import create_milestone
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import new_repo, write_requests


def record(forge, full_name: str, number: int):
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    return repo, repo.extra["collab"].issues[number]


async def test_assignees_and_milestone_set_and_cleared(make_runtime, forge):
    full_name = new_repo(forge, prefix="assign-org")
    forge.state.ensure_user("alice")
    number = create_issue(forge, full_name, "Flaky login")["number"]
    repo, issue = record(forge, full_name, number)
    milestone = create_milestone(
        forge.state, repo, "octocat", "v1.0", due_on="2030-01-01T00:00:00Z"
    )
    args = {"full_name": full_name, "number": number}
    set_both = {**args, "assignees": ["alice", "octocat"], "milestone": milestone.number}
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "update_issue", set_both)
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed" and writes == []
    assert issue.assignees == [] and issue.milestone is None

    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, both = await call_tool(client, "update_issue", set_both)
        assert issue.assignees == ["alice", "octocat"] and issue.milestone == milestone.number
        _, listed = await call_tool(client, "list_milestones", {"full_name": full_name})
        _, unknown = await call_tool(client, "update_issue", {**args, "milestone": 99})
        _, bad_login = await call_tool(client, "update_issue", {**args, "assignees": ["a b"]})
        _, cleared = await call_tool(
            client, "update_issue", {**args, "assignees": [], "milestone": 0}
        )
    assert both["assignees"] == ["alice", "octocat"] and both["milestone"] == "v1.0"
    assert listed["milestones"][0]["title"] == "v1.0"
    assert listed["milestones"][0]["open_issues"] == 1
    assert error_code(unknown) == "unprocessable"
    assert error_code(bad_login) == "invalid_input"
    assert cleared.get("assignees", []) == [] and cleared.get("milestone") is None
    assert issue.assignees == [] and issue.milestone is None
    records = [r for r in forge.responses() if "/issues/" in r["path"] or "milestones" in r["path"]]
    assert records and validate_records(records) == [] and validate_request_bodies(records) == []


async def test_demo_milestones_are_listed_by_state(make_runtime, forge):
    demo = forge.state.extensions["planning_demo"]["milestones"]
    async with mcp_client(make_runtime()) as client:
        _, open_ones = await call_tool(client, "list_milestones", {"full_name": DEMO_REPO})
        _, closed = await call_tool(
            client, "list_milestones", {"full_name": DEMO_REPO, "state": "closed"}
        )
    assert [m["number"] for m in open_ones["milestones"]] == [demo["open"]]
    assert [m["number"] for m in closed["milestones"]] == [demo["closed"]]
    assert open_ones["milestones"][0]["open_issues"] == 2
    assert closed["milestones"][0]["closed_issues"] == 1
