"""reopen_pull_request through a real MCP client against the forge: an unscoped write that
needs a human's approval; a closed PR reopens (the forge's record says open), one already
open is reported so without a write, a merged one and one whose head branch is gone are
refused with a clear error. Requests checked against GitHub's OpenAPI description."""

from __future__ import annotations

from sandbox_forge.admin.seed_collab import create_pull
from sandbox_forge.stores.collab import collab
from tests.conftest import call_tool, error_code, mcp_client, requests_matching
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import git, new_repo, write_requests


def forge_state_of(forge, full_name: str, number: int) -> str:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    return collab(repo).issues[number].state


def seeded_pull(forge) -> tuple[str, int]:
    repo = new_repo(forge, prefix="reopen-org", branches={"feature": {"f.txt": "new\n"}})
    pull = create_pull(forge, repo, "feature", "main", "Add f")
    return repo, pull["number"]


async def test_reopen_needs_approval_then_reopens(make_runtime, forge):
    repo, number = seeded_pull(forge)
    ref = {"full_name": repo, "number": number}
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, closed = await call_tool(client, "close_pull_request", ref)
    assert closed["state"] == "closed" and forge_state_of(forge, repo, number) == "closed"

    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "reopen_pull_request", ref)
        refused_writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed" and refused_writes == []
    assert forge_state_of(forge, repo, number) == "closed"

    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, reopened = await call_tool(client, "reopen_pull_request", {"pr": f"{repo}#{number}"})
        forge.clear_requests()
        _, again = await call_tool(client, "reopen_pull_request", ref)
        second_writes = write_requests(forge)
    assert reopened["state"] == "open" and reopened["number"] == number
    assert reopened["already_open"] is False
    assert forge_state_of(forge, repo, number) == "open"
    assert again["already_open"] is True and second_writes == []
    records = [r for r in forge.responses() if r["method"] == "PATCH"]
    assert records and validate_records(records) == [] and validate_request_bodies(records) == []


async def test_merged_and_headless_pulls_stay_closed(make_runtime, forge):
    merged_repo, merged = seeded_pull(forge)
    gone_repo, gone = seeded_pull(forge)
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, merge = await call_tool(
            client, "merge_pull_request", {"full_name": merged_repo, "number": merged}
        )
        assert merge["merged"] is True, merge
        _, closed = await call_tool(
            client, "close_pull_request", {"full_name": gone_repo, "number": gone}
        )
        assert closed["state"] == "closed"
        git(forge, gone_repo, "update-ref", "-d", "refs/heads/feature")
        forge.clear_requests()
        _, on_merged = await call_tool(
            client, "reopen_pull_request", {"full_name": merged_repo, "number": merged}
        )
        merged_patches = requests_matching(forge, "PATCH", "/pulls/")
        _, headless = await call_tool(
            client, "reopen_pull_request", {"full_name": gone_repo, "number": gone}
        )
    assert error_code(on_merged) == "unprocessable" and merged_patches == []
    assert "merged" in on_merged["error"]["message"]
    assert error_code(headless) == "unprocessable"
    assert "head branch" in headless["error"]["message"]
    assert forge_state_of(forge, merged_repo, merged) == "closed"
    assert forge_state_of(forge, gone_repo, gone) == "closed"


async def test_outside_the_allow_list_nothing_is_asked(make_runtime, forge):
    repo, number = seeded_pull(forge)
    async with mcp_client(make_runtime(auto_approve=True, repo_allowlist="other/*")) as client:
        forge.clear_requests()
        _, outside = await call_tool(
            client, "reopen_pull_request", {"full_name": repo, "number": number}
        )
        _, hostile = await call_tool(
            client, "reopen_pull_request", {"pr": "../x#1; rm -rf /", "number": 0}
        )
        sent = write_requests(forge)
    assert error_code(outside) == "repo_not_allowed" and sent == []
    assert hostile["error"]["code"] in ("invalid_input", "validation_error"), hostile
