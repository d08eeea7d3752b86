"""Our write tools against a forge that enforces repository rules: each one either meets
the branch's rules or stops with the structured `rule_violation` error (the rules GitHub
listed, a hint), and the evidence is the forge's own state: branch heads unchanged, no
pull request opened, refused ref updates in the request log.

Commits made through the Git data API are unsigned, so a branch that requires verified
signatures refuses them: with GITHUB_MCP_SIGNED_COMMITS=never (no createCommitOnBranch),
that is what these tests expect. tests/test_signed_commits.py shows `auto` meeting it."""

from __future__ import annotations

import base64
import os
import subprocess
from typing import Any

from sandbox_forge.stores.rulesets import add_ruleset
from tests.conftest import call_tool, error_code, mcp_client, settled_requests
from tests.test_tools_write import head, new_repo

PULL_REQUEST = {
    "type": "pull_request",
    "parameters": {
        "required_approving_review_count": 1,
        "dismiss_stale_reviews_on_push": False,
        "require_code_owner_review": False,
        "require_last_push_approval": False,
        "required_review_thread_resolution": False,
    },
}
SIGNED = {"type": "required_signatures"}
SIGNATURES_RULE = "Commits must have verified signatures."
PR_RULE = "Changes must be made through a pull request."


def _rules(forge, full_name: str, *rules: dict[str, Any], include: list[str]) -> None:
    owner, name = full_name.split("/")
    record = forge.state.repo(owner, name)
    assert record is not None
    add_ruleset(record, "test rules", list(rules), include)


def _runtime(make_runtime, **overrides: Any):
    """A server whose commits go through the Git data API (unsigned)."""
    return make_runtime(signed_commits="never", **overrides)


def _refused(payload: dict[str, Any], *rules: str) -> None:
    assert error_code(payload) == "rule_violation", payload
    for rule in rules:
        assert rule in payload["error"]["rules"], payload
    assert "nothing was changed" in payload["error"]["hint"]


def _ref_writes(forge, full_name: str) -> list[dict[str, Any]]:
    return [
        r
        for r in settled_requests(forge)
        if f"/repos/{full_name}/git/refs" in r["path"] and r["method"] != "GET"
    ]


COMMIT_CALLS = [
    (
        "commit_files",
        {"files": [{"path": "a.txt", "content": "a\n"}], "message": "files"},
    ),
    (
        "apply_text_update_and_commit",
        {"path": "README.md", "new_content": "# hello, rules\n", "message": "text"},
    ),
    (
        "apply_patch_and_commit",
        {
            "patch": "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# hello\n+# patched\n",
            "message": "patch",
        },
    ),
    (
        "update_file_sections_and_commit",
        {
            "path": "README.md",
            "sections": [{"start_line": 1, "end_line": 1, "new_text": "# sections\n"}],
            "message": "sections",
        },
    ),
    ("delete_file", {"path": "README.md", "message": "delete"}),
    ("move_file", {"path": "README.md", "new_path": "docs/README.md", "message": "move"}),
]


async def test_every_commit_tool_stops_on_required_signatures(make_runtime, forge):
    repo = new_repo(forge)
    _rules(forge, repo, SIGNED, include=["refs/heads/feature"])
    before = head(forge, repo, "feature")
    async with mcp_client(_runtime(make_runtime)) as client:
        forge.clear_requests()
        for tool, args in COMMIT_CALLS:
            is_error, payload = await call_tool(
                client, tool, {"full_name": repo, "branch": "feature", **args}
            )
            assert is_error, (tool, payload)
            _refused(payload, SIGNATURES_RULE)
            assert head(forge, repo, "feature") == before, tool
    refused = _ref_writes(forge, repo)
    assert refused and all(r["status"] == 422 for r in refused)


async def test_update_files_and_open_pr_opens_nothing_on_a_ruled_branch(make_runtime, forge):
    repo = new_repo(forge)
    _rules(forge, repo, SIGNED, include=["refs/heads/topic/*"])
    async with mcp_client(_runtime(make_runtime)) as client:
        is_error, payload = await call_tool(
            client,
            "update_files_and_open_pr",
            {
                "full_name": repo,
                "branch": "topic/one",
                "files": [{"path": "a.txt", "content": "a\n"}],
                "title": "A change",
                "message": "A change",
            },
        )
    assert is_error
    _refused(payload, SIGNATURES_RULE)
    assert head(forge, repo, "topic/one") is None  # no branch left behind
    pulls = [r for r in settled_requests(forge) if r["path"] == f"/repos/{repo}/pulls"]
    assert not [r for r in pulls if r["method"] == "POST"]


async def test_a_pull_request_rule_refuses_direct_commits(make_runtime, forge):
    repo = new_repo(forge)
    _rules(forge, repo, PULL_REQUEST, include=["refs/heads/feature"])
    before = head(forge, repo, "feature")
    async with mcp_client(make_runtime()) as client:
        is_error, payload = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "files": [{"path": "a.txt", "content": "a\n"}],
                "message": "direct",
            },
        )
    assert is_error
    _refused(payload, PR_RULE)
    assert head(forge, repo, "feature") == before


async def test_branch_creation_and_deletion_rules(make_runtime, forge):
    repo = new_repo(forge, branches={"feature": {}, "keep/this": {}})
    _rules(forge, repo, {"type": "creation"}, include=["refs/heads/release/**"])
    _rules(forge, repo, {"type": "deletion"}, include=["refs/heads/keep/*"])
    kept = head(forge, repo, "keep/this")
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, created = await call_tool(
            client, "create_branch", {"full_name": repo, "branch": "release/1.0"}
        )
        _, deleted = await call_tool(
            client, "delete_remote_branch", {"full_name": repo, "branch": "keep/this"}
        )
        is_error, allowed = await call_tool(
            client, "create_branch", {"full_name": repo, "branch": "other"}
        )
    _refused(created, "Cannot create ref due to creations being restricted.")
    _refused(deleted, "Cannot delete this branch")
    assert head(forge, repo, "release/1.0") is None
    assert head(forge, repo, "keep/this") == kept
    assert not is_error and allowed["created"] is True


async def test_merge_waits_for_the_rules_required_review(make_runtime, forge):
    repo = new_repo(forge, branches={"feature": {"f.txt": "f\n"}, "release": {}})
    _rules(forge, repo, PULL_REQUEST, include=["refs/heads/release"])
    base = head(forge, repo, "release")
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, pr = await call_tool(
            client,
            "create_pull_request",
            {"full_name": repo, "head": "feature", "base": "release", "title": "Feature"},
        )
        assert not is_error, pr
        number = pr.get("number") or pr["pull_request"]["number"]
        _, merged = await call_tool(
            client, "merge_pull_request", {"full_name": repo, "number": number}
        )
    _refused(merged, "At least 1 approving review is required by reviewers with write access.")
    assert head(forge, repo, "release") == base


def _git(*args: str, cwd, token: str) -> subprocess.CompletedProcess:
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(
        ["git", "-c", f"http.extraHeader=Authorization: Basic {basic}", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def test_commit_workspace_push_refused_by_rules_is_a_rule_violation(make_runtime, forge):
    repo = new_repo(forge)
    _rules(forge, repo, SIGNED, include=["refs/heads/feature"])
    before = head(forge, repo, "feature")
    rt = _runtime(make_runtime)
    async with mcp_client(rt) as client:
        is_error, clone = await call_tool(
            client, "ensure_workspace_clone", {"full_name": repo, "ref": "feature"}
        )
        assert not is_error, clone
        is_error, _ = await call_tool(
            client,
            "terminal_command",
            {"full_name": repo, "ref": "feature", "command": "echo hi > pushed.txt"},
        )
        assert not is_error
        is_error, payload = await call_tool(
            client,
            "commit_workspace",
            {"full_name": repo, "ref": "feature", "message": "ws", "push": True},
        )
    assert is_error
    _refused(payload, SIGNATURES_RULE)
    assert payload["error"]["commit_sha"] != before
    assert head(forge, repo, "feature") == before
