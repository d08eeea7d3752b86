"""list_reactions through a real MCP client against the forge: reactions two people added
(through add_reaction, each with their own token) come back grouped by content, filtered
by content and paged; a subject that is not there is not_found; a repository outside the
allow-list is refused before any request. Responses checked against GitHub's OpenAPI
description."""

from __future__ import annotations

from sandbox_forge.admin.seed_collab import add_issue_comment, create_issue
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, settled_requests
from tests.forge.contract import validate_records
from tests.test_tools_reactions import reactions
from tests.test_tools_write import new_repo


async def react(make_runtime, token: str, args: dict) -> None:
    rt = make_runtime(auto_approve=True, github_token=token)
    async with mcp_client(rt) as client:
        is_error, answer = await call_tool(client, "add_reaction", args)
    assert not is_error, answer


async def test_listing_groups_filters_and_pages(make_runtime, forge, forge_token):
    repo = new_repo(forge, prefix="reactions-list-org")
    issue = create_issue(forge, repo, "Slow start")
    comment = add_issue_comment(forge, repo, issue["number"], "Same here")
    on_issue = {"full_name": repo, "on": "issue", "subject_id": issue["number"]}
    bob = forge.create_token(login="rx-bob")
    await react(make_runtime, forge_token, on_issue | {"content": "+1"})
    await react(make_runtime, bob, on_issue | {"content": "+1"})
    await react(make_runtime, bob, on_issue | {"content": "rocket"})
    # the forge's own record is the evidence the listing is read against
    assert reactions(forge, repo, f"issue:{issue['number']}") == [
        ("octocat", "+1"),
        ("rx-bob", "+1"),
        ("rx-bob", "rocket"),
    ]
    forge.clear_responses()
    async with mcp_client(make_runtime()) as client:
        _, grouped = await call_tool(client, "list_reactions", on_issue)
        _, only = await call_tool(client, "list_reactions", on_issue | {"content": "rocket"})
        _, first = await call_tool(client, "list_reactions", on_issue | {"limit": 2})
        _, rest = await call_tool(
            client, "list_reactions", on_issue | {"limit": 2, "cursor": first["next_cursor"]}
        )
        _, none = await call_tool(
            client,
            "list_reactions",
            {"full_name": repo, "on": "issue_comment", "subject_id": comment["id"]},
        )
        _, missing = await call_tool(
            client,
            "list_reactions",
            {"full_name": repo, "on": "review_comment", "subject_id": 987654321},
        )
    assert grouped == {"by_content": {"+1": ["octocat", "rx-bob"], "rocket": ["rx-bob"]}}
    assert only == {"by_content": {"rocket": ["rx-bob"]}}
    assert first["by_content"] == {"+1": ["octocat", "rx-bob"]} and first["next_cursor"]
    assert rest == {"by_content": {"rocket": ["rx-bob"]}}
    assert none == {"by_content": {}}
    assert error_code(missing) == "not_found"
    records = [r for r in forge.responses() if r["path"].endswith("/reactions")]
    assert records and validate_records(records) == []


async def test_bad_input_is_refused_before_any_request(make_runtime, forge):
    rt = make_runtime(repo_allowlist="someone-else/*")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, outside = await call_tool(
            client, "list_reactions", {"full_name": DEMO_REPO, "on": "issue", "subject_id": 1}
        )
        outside_requests = settled_requests(forge)
        bad = [
            {"full_name": DEMO_REPO, "on": "commit", "subject_id": 1},
            {"full_name": DEMO_REPO, "on": "issue", "subject_id": 0},
            {"full_name": DEMO_REPO, "on": "issue", "subject_id": 1, "content": "thumbsup"},
            {"full_name": "../../etc/passwd", "on": "issue", "subject_id": 1},
        ]
        answers = [await call_tool(client, "list_reactions", args) for args in bad]
        bad_requests = settled_requests(forge)
    assert error_code(outside) == "repo_not_allowed" and outside_requests == []
    assert all(is_error for is_error, _ in answers) and bad_requests == []


async def test_the_demo_bug_lists_its_reactions(make_runtime, forge):
    bug = forge.state.extensions["collab_demo"]["issues"]["bug"]
    async with mcp_client(make_runtime()) as client:
        _, listed = await call_tool(
            client, "list_reactions", {"full_name": DEMO_REPO, "on": "issue", "subject_id": bug}
        )
    assert listed == {"by_content": {"+1": ["alice"], "eyes": ["bob"]}}
