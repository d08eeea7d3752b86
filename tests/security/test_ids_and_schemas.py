"""Ids cannot traverse, search counts stay inside the allow-list, schemas state the
constraints the calls enforce, and every refusal carries a call_id.

Driven through a real MCP client against the forge; the evidence is the forge's
request log and repositories."""

from __future__ import annotations

import subprocess
import uuid
from typing import Any

import pytest

from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, settled_requests

SECRET_REPO = "octocat/secret-repo"

TRAVERSING_IDS = [
    "commit:octo-org/demo-app@../../../octocat/secret-repo/commits/main",
    "commit:octo-org/demo-app@../../../octocat/secret-repo",
    "file:octo-org/demo-app@main:../../../octocat/secret-repo/contents/README.md",
    "file:octo-org/demo-app@../../../octocat/secret-repo/contents:README.md",
    "file:octo-org/demo-app@%2e%2e/%2e%2e:README.md",
    "file:octo-org/demo-app@./main:README.md",
    "issue:octo-org/demo-app#1/../../../../octocat/secret-repo/issues/1",
    "pr:octo-org/demo-app#1?x=../../octocat/secret-repo",
    "repo:octo-org/../octocat/secret-repo",
    "repo:../octocat/secret-repo",
    "repo:octo-org/demo-app/../../octocat/secret-repo",
    "commit:octo-org/demo-app@main",  # commits are named by SHA only
]


@pytest.fixture
def secret_repo(forge) -> str:
    if forge.state.repo(*SECRET_REPO.split("/")) is None:
        forge.seed_repo(SECRET_REPO, {"README.md": "secret zebraquartz\n"})
    return SECRET_REPO


async def test_fetch_ids_cannot_leave_the_allow_list(make_runtime, forge, secret_repo):
    rt = make_runtime(repo_allowlist="octo-org/*")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        for doc_id in TRAVERSING_IDS:
            is_error, payload = await call_tool(client, "fetch", {"id": doc_id})
            assert is_error and error_code(payload) == "invalid_input", (doc_id, payload)
            assert payload["error"]["call_id"]
        is_error, payload = await call_tool(client, "fetch", {"id": f"repo:{secret_repo}"})
        assert error_code(payload) == "repo_not_allowed"
        assert [r["path"] for r in settled_requests(forge) if "secret" in r["path"]] == []
        assert settled_requests(forge) == []  # none of these cost a request at all
        # well-formed ids still read
        is_error, doc = await call_tool(client, "fetch", {"id": f"repo:{DEMO_REPO}"})
        assert not is_error, doc
        is_error, doc = await call_tool(
            client, "fetch", {"id": f"file:{DEMO_REPO}@refs/heads/main:README.md"}
        )
        assert not is_error and "demo-app" in doc["text"], doc
    assert [r["path"] for r in settled_requests(forge) if "secret" in r["path"]] == []


async def test_search_reports_no_counts_outside_the_allow_list(make_runtime, forge, secret_repo):
    allowed = f"octo-org/search-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(allowed, {"a.txt": "zebraquartz here\n"})
    # the secret repo holds more hits than the allowed one
    rt = make_runtime(repo_allowlist=f"{allowed},{DEMO_REPO}")
    async with mcp_client(rt) as client:
        is_error, found = await call_tool(client, "search", {"query": "zebraquartz"})
        assert not is_error, found
        assert {hit["id"].split("@")[0] for hit in found["results"]} <= {f"file:{allowed}"}
        assert "total" not in found  # GitHub's count would include the secret repo
        is_error, found = await call_tool(
            client, "search", {"query": "zebraquartz", "full_name": allowed}
        )
        assert not is_error and found["total"] == len(found["results"]) == 1, found
        for query in (
            f"zebraquartz repo:{secret_repo}",
            "zebraquartz user:octocat",
            "zebraquartz org:octo-org",  # the allow-list names repositories, not the owner
            f'zebraquartz repo:"{secret_repo}"',
        ):
            forge.clear_requests()
            is_error, payload = await call_tool(
                client, "search", {"query": query, "full_name": allowed}
            )
            assert is_error and error_code(payload) == "repo_not_allowed", (query, payload)
            assert [r for r in settled_requests(forge) if "/search/" in r["path"]] == []


async def test_owner_wildcard_allows_an_org_scoped_count(make_runtime, forge, secret_repo):
    rt = make_runtime(repo_allowlist="octo-org/*")
    async with mcp_client(rt) as client:
        is_error, found = await call_tool(client, "search", {"query": "zebraquartz org:octo-org"})
        assert not is_error, found
        assert all(not hit["id"].startswith(f"file:{secret_repo}") for hit in found["results"])
        assert found.get("total") == len(found["results"])


# (tool, arguments) that the call refuses; validate_tool_args must say so too.
BAD_INPUTS: list[tuple[str, dict[str, Any]]] = [
    ("create_branch", {"full_name": "", "branch": "x"}),
    ("create_branch", {"full_name": "../demo-app", "branch": "x"}),
    ("create_branch", {"full_name": "octo-org/..", "branch": "x"}),
    ("create_branch", {"full_name": "octo-org", "branch": "x"}),
    *[
        ("create_branch", {"full_name": DEMO_REPO, "branch": bad})
        for bad in (
            "a..b",
            "./main",
            "main/.",
            "%2e/main",
            "ma\u200bin",
            "main\u202e",
            "a b",
            "main\n",
            "-x",
            "a.lock",
            "a/b.lock/c",
            "@",
            "a@{1}",
            "x/",
            "/x",
            "a//b",
            "main#x",
            "a~1",
            "a:b",
            ".hidden",
            "",
            "x" * 256,
        )
    ],
    *[
        ("get_file_contents", {"full_name": DEMO_REPO, "path": bad})
        for bad in ("../secret", "a/../b", "/etc/passwd", "a/./b", "a\\b", "..", ".")
    ],
    ("get_file_contents", {"full_name": DEMO_REPO, "path": "README.md", "ref": "./main"}),
    ("list_commits", {"full_name": DEMO_REPO, "ref": "a..b"}),
    (
        "commit_files",
        {
            "full_name": DEMO_REPO,
            "branch": "feature-x",
            "message": "m",
            "files": [{"path": "../escape", "content": "x"}],
        },
    ),
]
GOOD_INPUTS: list[tuple[str, dict[str, Any]]] = [
    ("create_branch", {"full_name": DEMO_REPO, "branch": "feature/x-1.2"}),
    ("create_branch", {"full_name": DEMO_REPO, "branch": "refs/heads/feature/y"}),
    ("create_branch", {"full_name": DEMO_REPO, "branch": "исправление"}),
    ("get_file_contents", {"full_name": DEMO_REPO, "path": ".github/workflows/ci.yml"}),
    ("get_file_contents", {"full_name": DEMO_REPO, "path": "README.md", "ref": "v1.0"}),
]


async def test_validate_tool_args_agrees_with_the_call(make_runtime, forge):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        for tool, args in BAD_INPUTS:
            is_error, verdict = await call_tool(
                client, "validate_tool_args", {"name": tool, "args": args}
            )
            assert not is_error and verdict["valid"] is False, (tool, args, verdict)
            forge.clear_requests()
            is_error, payload = await call_tool(client, tool, args)
            assert is_error and error_code(payload) == "invalid_input", (tool, args, payload)
            assert payload["error"].get("call_id"), payload
            assert settled_requests(forge) == [], (tool, args)
        for tool, args in GOOD_INPUTS:
            is_error, verdict = await call_tool(
                client, "validate_tool_args", {"name": tool, "args": args}
            )
            assert not is_error and verdict["valid"] is True, (tool, args, verdict)


async def test_argument_errors_carry_distinct_call_ids(make_runtime):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        ids = set()
        for args in ({"full_name": ""}, {"full_name": 5}, {}, {"full_name": DEMO_REPO, "x": 1}):
            is_error, payload = await call_tool(client, "get_repository", args)
            if not is_error:
                continue  # unknown extra keys may be ignored
            assert error_code(payload) == "invalid_input"
            ids.add(payload["error"]["call_id"])
        is_error, payload = await call_tool(client, "no_such_tool", {})
        assert is_error and payload["error"]["call_id"]
        ids.add(payload["error"]["call_id"])
    assert len(ids) >= 4


async def test_commit_messages_lose_invisible_characters(make_runtime, forge):
    full_name = f"refs-org/msg-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(full_name, {"README.md": "x\n"}, branches={"feature": {}})
    rt = make_runtime()
    message = "fix\u200b the \u202eevil\u202c bug\ufeff\n\nbody\u2060 line\tkept"
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(
            client,
            "commit_files",
            {
                "full_name": full_name,
                "branch": "feature",
                "message": message,
                "files": [{"path": "README.md", "content": "y\n"}],
            },
        )
        assert not is_error, payload
    repo = forge.state.repo(*full_name.split("/"))
    stored = subprocess.run(
        ["git", f"--git-dir={repo.git.path}", "log", "-1", "--format=%B", "refs/heads/feature"],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    assert stored.strip() == "fix the evil bug\n\nbody line\tkept"
