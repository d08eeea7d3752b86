"""add_reaction through a real MCP client against the forge: on an issue, an issue comment
and a review comment, an unscoped write that needs a human's approval; evidence from the
forge's reaction records; requests and responses checked against GitHub's OpenAPI
description."""

from __future__ import annotations

from sandbox_forge.admin.seed_collab import add_issue_comment, create_issue
from sandbox_forge.stores.reactions import reactions_of
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import new_repo, write_requests


def reactions(forge, full_name: str, subject: str) -> list[tuple[str, str]]:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    return [(r.user, r.content) for r in reactions_of(repo, subject)]


async def test_reactions_need_approval_then_land_once(make_runtime, forge):
    repo = new_repo(forge, prefix="reactions-org")
    issue = create_issue(forge, repo, "Flaky test")
    comment = add_issue_comment(forge, repo, issue["number"], "Seen it too")
    args = {"full_name": repo, "on": "issue", "subject_id": issue["number"], "content": "+1"}
    refused_rt = make_runtime()
    async with mcp_client(refused_rt) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "add_reaction", args)
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed" and writes == []
    assert reactions(forge, repo, f"issue:{issue['number']}") == []

    forge.clear_responses()
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        _, first = await call_tool(client, "add_reaction", args)
        _, again = await call_tool(client, "add_reaction", args)
        _, on_comment = await call_tool(
            client,
            "add_reaction",
            {
                "full_name": repo,
                "on": "issue_comment",
                "subject_id": comment["id"],
                "content": "heart",
            },
        )
        _, missing = await call_tool(
            client,
            "add_reaction",
            {"full_name": repo, "on": "review_comment", "subject_id": 999999, "content": "eyes"},
        )
    assert first["content"] == "+1" and first["user"] == "octocat" and again["id"] == first["id"]
    assert reactions(forge, repo, f"issue:{issue['number']}") == [("octocat", "+1")]
    assert reactions(forge, repo, f"issue_comment:{comment['id']}") == [("octocat", "heart")]
    assert on_comment["content"] == "heart"
    assert error_code(missing) == "not_found"
    records = [r for r in forge.responses() if r["path"].endswith("/reactions")]
    assert records and validate_records(records) == [] and validate_request_bodies(records) == []


def test_the_demo_bug_has_reactions(forge):
    bug = forge.state.extensions["collab_demo"]["issues"]["bug"]
    assert reactions(forge, DEMO_REPO, f"issue:{bug}") == [("alice", "+1"), ("bob", "eyes")]
