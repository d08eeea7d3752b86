"""Releases and tags through a real MCP client against the forge: reads of the seeded demo,
a draft with GitHub's generated notes (allowed like a feature-branch write), edits, and
publishing (a human's approval). Evidence comes from the forge's own release records and
refs; every request and response the tools caused is checked against GitHub's OpenAPI
description."""

from __future__ import annotations

from typing import Any

from sandbox_forge.stores import releases as release_store
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, settled_requests
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import new_repo, write_requests


def repo_record(forge, full_name: str):
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    return repo


def forge_release(forge, full_name: str, release_id: int) -> release_store.Release:
    return release_store.releases(repo_record(forge, full_name))[release_id]


def tag_ref(forge, full_name: str, tag: str) -> str | None:
    return repo_record(forge, full_name).git.read_ref(f"refs/tags/{tag}")


def release_records(forge) -> list[dict[str, Any]]:
    return [r for r in forge.responses() if "/releases" in r["path"] or "/tags" in r["path"]]


def check_contract(forge) -> None:
    records = release_records(forge)
    assert records, "no release requests recorded"
    assert validate_records(records) == []
    assert validate_request_bodies(records) == []


async def test_reads_show_the_seeded_demo(make_runtime, forge):
    demo = forge.state.extensions["breadth_demo"]
    rt = make_runtime()
    forge.clear_responses()
    async with mcp_client(rt) as client:
        _, listed = await call_tool(client, "list_releases", {"full_name": DEMO_REPO})
        _, latest = await call_tool(client, "get_release", {"full_name": DEMO_REPO})
        _, rc = await call_tool(
            client, "get_release", {"full_name": DEMO_REPO, "tag": demo["prerelease"]}
        )
        _, draft = await call_tool(
            client, "get_release", {"full_name": DEMO_REPO, "release_id": demo["draft"]["id"]}
        )
        _, draft_by_tag = await call_tool(
            client, "get_release", {"full_name": DEMO_REPO, "tag": demo["draft"]["tag"]}
        )
        _, both = await call_tool(
            client, "get_release", {"full_name": DEMO_REPO, "tag": "v0.1.0", "release_id": 1}
        )
        _, tags = await call_tool(client, "list_tags", {"full_name": DEMO_REPO})
        _, annotated = await call_tool(client, "get_tag", {"full_name": DEMO_REPO, "tag": "v0.1.0"})
        _, light = await call_tool(
            client, "get_tag", {"full_name": DEMO_REPO, "tag": demo["prerelease"]}
        )
        _, missing = await call_tool(client, "get_tag", {"full_name": DEMO_REPO, "tag": "v9.9"})
    repo = repo_record(forge, DEMO_REPO)
    by_tag = {r["tag"]: r for r in listed["releases"]}
    assert {"v0.1.0", "v0.2.0-rc.1", "v0.2.0"} <= set(by_tag)
    assert by_tag["v0.2.0"]["draft"] is True and by_tag["v0.2.0-rc.1"]["prerelease"] is True
    assert latest["tag"] == demo["latest"] and "add" in latest["body"]
    assert rc["prerelease"] is True and rc["draft"] is False
    assert draft["draft"] is True and draft["tag"] == "v0.2.0"
    assert error_code(draft_by_tag) == "not_found"  # GitHub's by-tag lookup skips drafts
    assert error_code(both) == "invalid_input"
    names = {t["name"]: t["sha"] for t in tags["tags"]}
    assert names["v0.1.0"] == repo.git.resolve_commit("refs/tags/v0.1.0")
    assert annotated["annotated"] is True and annotated["message"].startswith("First calculator")
    assert annotated["sha"] == names["v0.1.0"] and annotated["tagger"] == "The Octocat"
    assert light["annotated"] is False and light["sha"] == names[demo["prerelease"]]
    assert error_code(missing) == "not_found"
    check_contract(forge)


async def test_draft_with_generated_notes_needs_no_approval(make_runtime, forge):
    demo = forge.state.extensions["breadth_demo"]
    rt = make_runtime()  # no approval of any kind
    forge.clear_responses()
    async with mcp_client(rt) as client:
        is_error, draft = await call_tool(
            client,
            "draft_release",
            {
                "full_name": DEMO_REPO,
                "tag": "v0.3.0",
                "previous_tag": "v0.1.0",
                "body": "Upgrade notes: none.",
            },
        )
    assert not is_error, draft
    stored = forge_release(forge, DEMO_REPO, draft["id"])
    assert stored.draft is True and stored.tag_name == "v0.3.0"
    assert stored.body is not None and stored.body.startswith("## What's Changed")
    assert f"/pull/{demo['merged_pull']}" in stored.body  # the PR merged since v0.1.0
    assert "compare/v0.1.0...v0.3.0" in stored.body
    assert stored.body.endswith("Upgrade notes: none.")
    assert tag_ref(forge, DEMO_REPO, "v0.3.0") is None  # a draft makes no tag
    assert draft["body"] == stored.body
    check_contract(forge)


async def test_edit_then_publish_with_approval_creates_the_tag(make_runtime, forge):
    repo = new_repo(forge, prefix="releases-org")
    main_head = repo_record(forge, repo).git.read_ref("refs/heads/main")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, draft = await call_tool(
            client, "draft_release", {"full_name": repo, "tag": "v1.0.0", "generate_notes": False}
        )
        _, edited = await call_tool(
            client,
            "update_release",
            {"full_name": repo, "release_id": draft["id"], "name": "One", "body": "Hello"},
        )
        forge.clear_requests()
        _, refused = await call_tool(
            client, "publish_release", {"full_name": repo, "release_id": draft["id"]}
        )
        refused_writes = write_requests(forge)
    assert draft["draft"] is True and edited["name"] == "One"
    assert forge_release(forge, repo, draft["id"]).body == "Hello"
    assert error_code(refused) == "write_not_allowed"
    assert refused_writes == []
    assert forge_release(forge, repo, draft["id"]).draft is True
    assert tag_ref(forge, repo, "v1.0.0") is None

    approved = make_runtime(auto_approve=True)
    async with mcp_client(approved) as client:
        is_error, published = await call_tool(
            client, "publish_release", {"full_name": repo, "release_id": draft["id"]}
        )
        _, again = await call_tool(
            client, "publish_release", {"full_name": repo, "release_id": draft["id"]}
        )
        _, latest = await call_tool(client, "get_release", {"full_name": repo})
    assert not is_error, published
    assert published["draft"] is False and published["published_at"]
    assert forge_release(forge, repo, draft["id"]).draft is False
    assert tag_ref(forge, repo, "v1.0.0") == main_head
    assert error_code(again) == "invalid_input"
    assert latest["id"] == draft["id"]


async def test_editing_a_published_release_needs_approval(make_runtime, forge):
    demo = forge.state.extensions["breadth_demo"]
    stable = release_store.by_tag(repo_record(forge, DEMO_REPO), demo["latest"])
    before = stable.body
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, refused = await call_tool(
            client,
            "update_release",
            {"full_name": DEMO_REPO, "release_id": stable.id, "body": "rewritten history"},
        )
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed"
    assert writes == []
    assert stable.body == before


async def test_a_draft_named_like_the_default_branch_is_gated(make_runtime, forge):
    repo = new_repo(forge, prefix="releases-org")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, refused = await call_tool(
            client, "draft_release", {"full_name": repo, "tag": "main", "generate_notes": False}
        )
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed"
    assert writes == []
    assert release_store.releases(repo_record(forge, repo)) == {}


async def test_the_allow_list_applies(make_runtime, forge):
    repo = new_repo(forge, prefix="releases-org")
    rt = make_runtime(auto_approve=True, repo_allowlist="someone/else")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, read = await call_tool(client, "list_releases", {"full_name": repo})
        _, write = await call_tool(
            client, "draft_release", {"full_name": repo, "tag": "v1", "generate_notes": False}
        )
        touched = [r for r in settled_requests(forge) if repo in r["path"]]
    assert error_code(read) == error_code(write) == "repo_not_allowed"
    assert touched == []
    assert release_store.releases(repo_record(forge, repo)) == {}


async def test_the_common_release_tools_are_listed_by_default_the_rest_found(make_runtime, forge):
    rt = make_runtime(toolsets="default")  # the default list (the tests use "all")
    async with mcp_client(rt) as client:
        listed = {t.name for t in await client.list_tools()}
        _, found = await call_tool(client, "find_tools", {"query": "update a release"})
        _, enabled = await call_tool(client, "enable_toolset", {"name": "releases"})
        _, called = await call_tool(client, "list_releases", {"full_name": DEMO_REPO})
    assert {"list_releases", "get_release", "draft_release", "publish_release"} <= listed
    assert not {"update_release", "get_tag", "list_tags"} & listed
    assert found["tools"][0]["name"] == "update_release"
    assert set(enabled["tools"]) >= {"draft_release", "update_release", "list_tags"}
    assert called["releases"]  # callable by name all along
