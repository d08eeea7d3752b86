"""One canonical branch name, decided before the gate.

Every attack goes through a real MCP client against the forge; the evidence is the
forge's own state (its refs, read with git) and its request log, never the tool's answer.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from github_mcp.catalog.tool_catalog import view_of
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.pipeline.peer import Peer
from github_mcp.pipeline.registry import REGISTRY
from github_mcp.pipeline.running import run_tool
from tests.conftest import call_tool, error_code, mcp_client, settled_requests

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
PROTECTED = "release/1.0"

# Spellings that name `main` (or the protected release branch) to a lenient parser.
MAIN_SPELLINGS = [
    "./main",
    "main/.",
    "%2e/main",
    "%2E/main",
    "main/%2e",
    "ma\u200bin",  # zero-width space
    "\u202emain",  # right-to-left override
    "main\u00ad",  # soft hyphen
    "\ufeffmain",  # byte-order mark
    "main\u2060",  # word joiner
    "feature/../main",
    "refs/heads/./main",
    "refs/heads/refs/heads/main",
    "HEAD",
    "main#x",
    "main.lock",
    "main/",
    "/main",
]
RELEASE_SPELLINGS = ["./release/1.0", "release/./1.0", "release//1.0", "release/1.0/."]


def seed(forge) -> str:
    full_name = f"refs-org/r-{uuid.uuid4().hex[:10]}"
    forge.seed_repo(
        full_name,
        {"README.md": "# hello\n"},
        branches={PROTECTED: {}, "feature": {}},
    )
    return full_name


def refs_of(forge, full_name: str) -> dict[str, str]:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    return {ref: sha for ref, sha, _ in repo.git.list_refs()}


def writes_to(forge, full_name: str) -> list[dict[str, Any]]:
    return [
        r
        for r in settled_requests(forge)
        if r["method"] in WRITE_METHODS and full_name.split("/")[1] in r["path"]
    ]


def attack_args(tool: str, full_name: str, branch: str) -> dict[str, Any]:
    if tool == "commit_files":
        return {
            "full_name": full_name,
            "branch": branch,
            "message": "owned",
            "files": [{"path": "README.md", "content": "owned\n"}],
        }
    if tool == "apply_text_update_and_commit":
        return {
            "full_name": full_name,
            "branch": branch,
            "path": "README.md",
            "new_content": "owned\n",
            "message": "owned",
        }
    if tool == "create_branch":
        return {"full_name": full_name, "branch": branch}
    if tool == "update_files_and_open_pr":
        return {
            "full_name": full_name,
            "branch": branch,
            "title": "t",
            "message": "owned",
            "files": [{"path": "README.md", "content": "owned\n"}],
        }
    return {"full_name": full_name, "branch": branch}  # delete_remote_branch, delete_file...


ATTACK_TOOLS = [
    "commit_files",
    "apply_text_update_and_commit",
    "delete_remote_branch",
    "create_branch",
    "update_files_and_open_pr",
]


@pytest.mark.parametrize("tool", ATTACK_TOOLS)
async def test_dot_encoded_and_invisible_spellings_never_touch_protected_branches(
    make_runtime, forge, tool
):
    full_name = seed(forge)
    before = refs_of(forge, full_name)
    rt = make_runtime(protected_branches="release/*")
    async with mcp_client(rt) as client:
        for spelling in MAIN_SPELLINGS + RELEASE_SPELLINGS:
            forge.clear_requests()
            is_error, payload = await call_tool(
                client, tool, attack_args(tool, full_name, spelling)
            )
            assert is_error, (tool, spelling, payload)
            assert error_code(payload) in ("invalid_input", "write_not_allowed"), (
                tool,
                spelling,
                payload,
            )
            assert payload["error"].get("call_id"), payload
            assert writes_to(forge, full_name) == [], (tool, spelling)
            assert refs_of(forge, full_name) == before, (tool, spelling)


@pytest.mark.parametrize("tool", ATTACK_TOOLS)
async def test_full_ref_spelling_is_canonicalised_and_gated(make_runtime, forge, tool):
    full_name = seed(forge)
    before = refs_of(forge, full_name)
    rt = make_runtime(protected_branches="release/*")
    async with mcp_client(rt) as client:
        for spelling, reason in (
            ("refs/heads/main", "default_branch"),
            (f"refs/heads/{PROTECTED}", "protected_glob"),
        ):
            forge.clear_requests()
            is_error, payload = await call_tool(
                client, tool, attack_args(tool, full_name, spelling)
            )
            assert is_error and error_code(payload) == "write_not_allowed", (tool, payload)
            assert payload["error"]["reason"] == reason
            assert writes_to(forge, full_name) == []
    assert refs_of(forge, full_name) == before
    # the gate's log and the audit trail name the canonical branch only
    denied = [d for d in rt.metrics.recent_denials if d.get("repo") == full_name]
    assert {d.get("ref") for d in denied} <= {"main", PROTECTED}


async def test_canonical_full_ref_writes_to_the_short_name(make_runtime, forge):
    full_name = seed(forge)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(
            client,
            "commit_files",
            attack_args("commit_files", full_name, "refs/heads/feature"),
        )
        assert not is_error, payload
        assert payload["branch"] == "feature"
    refs = refs_of(forge, full_name)
    assert refs["refs/heads/feature"] == payload["commit_sha"]
    assert "refs/heads/refs/heads/feature" not in refs
    import json

    audit = [json.loads(line) for line in rt.settings.audit_log.read_text().splitlines()]
    assert audit[-1]["ref"] == "feature"


async def test_confusable_branch_names_are_refused_on_creation(make_runtime, forge):
    full_name = seed(forge)
    before = refs_of(forge, full_name)
    rt = make_runtime(protected_branches="release/*")
    names = [
        "m\u0430in",  # Cyrillic a inside a Latin word
        "\uff4d\uff41\uff49\uff4e",  # fullwidth "main"
        "r\u0435lease/2.0",  # Cyrillic e: a look-alike of release/*
        "\uff52\uff45\uff4c\uff45\uff41\uff53\uff45/2.0",  # fullwidth release/2.0
    ]
    async with mcp_client(rt) as client:
        for name in names:
            for tool in ("create_branch", "commit_files", "update_files_and_open_pr"):
                forge.clear_requests()
                is_error, payload = await call_tool(
                    client, tool, attack_args(tool, full_name, name)
                )
                assert is_error and error_code(payload) == "invalid_input", (name, payload)
                assert writes_to(forge, full_name) == []
    assert refs_of(forge, full_name) == before
    # a name in one script that imitates nothing is still fine
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(
            client, "create_branch", {"full_name": full_name, "branch": "исправление/café"}
        )
        assert not is_error, payload
    assert "refs/heads/исправление/café" in refs_of(forge, full_name)


async def test_registry_canonicalises_before_the_gate_for_direct_callers(make_runtime, forge):
    # the pipeline below the seam's validation must refuse and canonicalise on its own
    full_name = seed(forge)
    before = refs_of(forge, full_name)
    rt = make_runtime(protected_branches="release/*")
    spec = REGISTRY["delete_remote_branch"]
    peer = Peer(view_of(rt.settings, {}))
    for spelling in ("./main", "%2e/main", "ma\u200bin", "./release/1.0"):
        forge.clear_requests()
        result = await run_tool(spec, rt, {"full_name": full_name, "branch": spelling}, peer)
        assert result.is_error
        assert result.structured["error"]["code"] == "invalid_input"
        assert writes_to(forge, full_name) == []
    result = await run_tool(spec, rt, {"full_name": full_name, "branch": "refs/heads/main"}, peer)
    # stdio-like direct call: the process scope, no approval
    assert result.structured["error"]["code"] == "write_not_allowed"
    assert refs_of(forge, full_name) == before


async def test_resource_template_refuses_dot_segments(make_runtime, forge):
    full_name = seed(forge)
    rt = make_runtime()
    owner, name = full_name.split("/")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        with pytest.raises(Exception, match=r"invalid|segment|ref"):
            await client.read_resource(f"repo://{owner}/{name}/blob/%2E%2Fmain/README.md")
        assert [r for r in settled_requests(forge) if "/./" in r["path"]] == []


async def test_client_refuses_paths_that_normalisation_would_change(forge, make_runtime):
    rt = make_runtime()
    full_name = "octo-org/demo-app"
    bad_paths = [
        f"/repos/{full_name}/git/refs/heads/./main",
        f"/repos/{full_name}/git/refs/heads/%2e/main",
        f"/repos/{full_name}/git/refs/heads/%2E%2E/x",
        f"/repos/{full_name}/contents/a%2Fb",
        f"/repos/{full_name}/contents/a%2fb",
        f"/repos/{full_name}/contents/a\\b",
        f"/repos/{full_name}/git/refs/heads//main",
        f"/repos/{full_name}/git/refs/heads/main#x",
        f"/repos/{full_name}/commits/../../../octocat/secret-repo/commits/main",
        f"{rt.settings.github_api_url}/repos/{full_name}/./branches",
    ]
    forge.clear_requests()
    for path in bad_paths:
        for method in ("GET", "DELETE", "PATCH"):
            with pytest.raises(GitHubMCPError) as info:
                await rt.github.request_json(method, path)
            assert info.value.code.value == "invalid_input", path
    await rt.github.request_json("GET", f"/repos/{full_name}")  # a clean path still goes out
    assert [r["path"] for r in settled_requests(forge)] == [f"/repos/{full_name}"]


CORPUS = [
    *MAIN_SPELLINGS,
    *RELEASE_SPELLINGS,
    "main",
    "feature/x-1.2",
    "release/1.0",
    "v1.2.3",
    "a@b",
    "user/fix_1",
    "исправление",
    "café",
    "a..b",
    "a/.b",
    "a.",
    "@",
    "a@{1}",
    "-x",
    "a b",
    "a\tb",
    "a\x7fb",
    "a~1",
    "a^",
    "a:b",
    "a?",
    "a*",
    "a[b",
    "a\\b",
    "x.lock/y",
]


@pytest.mark.parametrize("name", CORPUS)
def test_everything_accepted_is_a_name_git_accepts(name):
    import subprocess

    from github_mcp.kernel.refnames import canonical_branch

    try:
        canonical = canonical_branch(name)
    except ValueError:
        return
    git = subprocess.run(
        ["git", "check-ref-format", "--branch", canonical], capture_output=True, check=False
    )
    assert git.returncode == 0, (name, canonical)
    assert canonical_branch(canonical) == canonical  # canonical is a fixed point
