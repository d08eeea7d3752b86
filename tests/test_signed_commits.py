"""Commits GitHub signs (GITHUB_MCP_SIGNED_COMMITS), through a real MCP client against the
forge. Evidence comes from the forge: the branch head, its tree, the commit's REST
`verification`, and the request log (which path made the commit)."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx
import pytest

from sandbox_forge import Forge
from sandbox_forge.git.store import TreeChange
from sandbox_forge.stores.collab import Protection, collab
from sandbox_forge.stores.rulesets import add_ruleset
from tests.conftest import call_tool, error_code, mcp_client, requests_matching, settled_requests
from tests.test_tools_write import head, new_repo, tree_files

SIGNED_RULE = [{"type": "required_signatures"}]


def require_signatures(forge: Forge, full_name: str, include: list[str]) -> None:
    record = forge.state.repo(*full_name.split("/"))
    assert record is not None
    add_ruleset(record, "signed", SIGNED_RULE, include)


def rest_commit(forge: Forge, token: str, full_name: str, sha: str) -> dict[str, Any]:
    response = httpx.get(
        f"{forge.base_url}/repos/{full_name}/commits/{sha}",
        headers={"Authorization": f"token {token}"},
    )
    assert response.status_code == 200, response.text
    return response.json()


def commit_paths(forge: Forge) -> dict[str, int]:
    """How many commits each path made since the log was cleared."""
    log = settled_requests(forge)
    return {
        "graphql": sum(
            1 for r in log if r["path"] == "/graphql" and r.get("graphql") == "mutation"
        ),
        "git_data": sum(
            1 for r in log if r["method"] == "POST" and r["path"].endswith("/git/commits")
        ),
        "rules": sum(1 for r in log if "/rules/branches/" in r["path"]),
    }


async def commit_files(rt, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    async with mcp_client(rt) as client:
        return await call_tool(client, "commit_files", args)


FILES = [
    {"path": "docs/new.md", "content": "# New\n"},
    {"path": "README.md", "content": "# changed\n"},
]


async def test_auto_signs_when_the_rules_require_it(make_runtime, forge, forge_token):
    repo = new_repo(forge, {"README.md": "# hello\n", "old.txt": "bye\n"})
    require_signatures(forge, repo, ["refs/heads/feature"])
    before = head(forge, repo, "feature")
    forge.clear_requests()
    files = [*FILES, {"path": "old.txt", "delete": True}]
    is_error, result = await commit_files(
        make_runtime(),
        {"full_name": repo, "branch": "feature", "message": "Sign\n\nBody", "files": files},
    )
    assert not is_error, result
    sha = head(forge, repo, "feature")
    assert result["commit_sha"] == sha and sha != before
    assert tree_files(forge, repo, sha) == {"README.md": b"# changed\n", "docs/new.md": b"# New\n"}
    commit = rest_commit(forge, forge_token, repo, sha)
    assert commit["commit"]["verification"]["verified"] is True
    assert commit["commit"]["verification"]["reason"] == "valid"
    assert commit["commit"]["message"] == "Sign\n\nBody"
    assert [p["sha"] for p in commit["parents"]] == [before]
    assert result["signature"] == {
        "verified": True,
        "reason": "valid",
        "via": "createCommitOnBranch",
    }
    assert result["verification"]["verified"] is True
    assert commit_paths(forge) == {"graphql": 1, "git_data": 0, "rules": 1}


async def test_auto_reads_the_classic_protection_too(make_runtime, forge, forge_token):
    repo = new_repo(forge)
    record = forge.state.repo(*repo.split("/"))
    assert record is not None
    collab(record).protection["feature"] = Protection("feature", required_signatures=True)
    forge.clear_requests()
    is_error, result = await commit_files(
        make_runtime(), {"full_name": repo, "branch": "feature", "message": "m", "files": FILES}
    )
    assert not is_error, result
    sha = head(forge, repo, "feature")
    assert rest_commit(forge, forge_token, repo, sha)["commit"]["verification"]["verified"] is True
    assert result["signature"]["via"] == "createCommitOnBranch"
    assert requests_matching(forge, "GET", "/protection/required_signatures")


async def test_auto_uses_the_git_data_api_when_signatures_are_not_required(
    make_runtime, forge, forge_token
):
    repo = new_repo(forge)
    require_signatures(forge, repo, ["refs/heads/other"])  # a rule for another branch only
    forge.clear_requests()
    is_error, result = await commit_files(
        make_runtime(), {"full_name": repo, "branch": "feature", "message": "plain", "files": FILES}
    )
    assert not is_error, result
    sha = head(forge, repo, "feature")
    verification = rest_commit(forge, forge_token, repo, sha)["commit"]["verification"]
    assert verification["verified"] is False and verification["reason"] == "unsigned"
    assert result["signature"] == {"verified": False, "reason": "unsigned", "via": "git_data"}
    assert commit_paths(forge) == {"graphql": 0, "git_data": 1, "rules": 1}


async def test_never_uses_the_git_data_api_and_is_refused_clearly(make_runtime, forge):
    repo = new_repo(forge)
    require_signatures(forge, repo, ["~ALL"])
    before = head(forge, repo, "feature")
    forge.clear_requests()
    is_error, result = await commit_files(
        make_runtime(signed_commits="never"),
        {"full_name": repo, "branch": "feature", "message": "unsigned", "files": FILES},
    )
    assert is_error and error_code(result) == "rule_violation", result
    assert "Commits must have verified signatures" in result["error"]["message"]
    assert "GITHUB_MCP_SIGNED_COMMITS" in result["error"]["hint"]
    assert head(forge, repo, "feature") == before
    # One attempt, not retried as a race; no rules read in `never`.
    assert commit_paths(forge) == {"graphql": 0, "git_data": 1, "rules": 0}


async def test_always_signs_without_any_rule(make_runtime, forge, forge_token):
    repo = new_repo(forge)
    forge.clear_requests()
    is_error, result = await commit_files(
        make_runtime(signed_commits="always"),
        {"full_name": repo, "branch": "feature", "message": "signed anyway", "files": FILES},
    )
    assert not is_error, result
    sha = head(forge, repo, "feature")
    assert rest_commit(forge, forge_token, repo, sha)["commit"]["verification"]["verified"] is True
    assert tree_files(forge, repo, sha) == {"README.md": b"# changed\n", "docs/new.md": b"# New\n"}
    assert commit_paths(forge)["graphql"] == 1


def commit_on(forge: Forge, full_name: str, branch: str, path: str, data: bytes, mode: str) -> str:
    """A commit made behind the server's back (another writer), with any file mode."""
    record = forge.state.repo(*full_name.split("/"))
    assert record is not None
    git, ref = record.git, f"refs/heads/{branch}"
    old = git.read_ref(ref)
    assert old is not None
    tree = git.build_tree(git.read_commit(old).tree, [TreeChange(path, mode, git.write_blob(data))])
    sig = git.read_commit(old).author
    sha = git.create_commit(tree, [old], f"touch {path}\n", sig, sig)
    assert git.update_ref(ref, sha, old)
    return sha


async def test_executable_file_is_refused_when_signatures_are_required(make_runtime, forge):
    repo = new_repo(forge)
    before = commit_on(forge, repo, "feature", "run.sh", b"#!/bin/sh\n", "100755")
    require_signatures(forge, repo, ["refs/heads/feature"])
    forge.clear_requests()
    is_error, result = await commit_files(
        make_runtime(),
        {"full_name": repo, "branch": "feature", "message": "x", "files": [
            {"path": "run.sh", "content": "#!/bin/sh\necho hi\n"},
            {"path": "other.txt", "content": "fine\n"},
        ]},
    )  # fmt: skip
    assert is_error and error_code(result) == "unprocessable", result
    assert "run.sh: is an executable file" in result["error"]["files"]
    assert "createCommitOnBranch" in result["error"]["message"]
    assert head(forge, repo, "feature") == before
    assert commit_paths(forge) == {"graphql": 0, "git_data": 0, "rules": 1}


async def test_executable_file_falls_back_to_the_git_data_api_when_not_required(
    make_runtime, forge
):
    repo = new_repo(forge)
    commit_on(forge, repo, "feature", "run.sh", b"#!/bin/sh\n", "100755")
    forge.clear_requests()
    is_error, result = await commit_files(
        make_runtime(signed_commits="always"),
        {"full_name": repo, "branch": "feature", "message": "x", "files": [
            {"path": "run.sh", "content": "#!/bin/sh\necho hi\n"},
        ]},
    )  # fmt: skip
    assert not is_error, result
    assert result["signature"]["via"] == "git_data"
    assert tree_files(forge, repo, "feature")["run.sh"] == b"#!/bin/sh\necho hi\n"
    assert commit_paths(forge) == {"graphql": 0, "git_data": 1, "rules": 1}


def stale_branch_answer(forge: Forge, token: str, full_name: str, branch: str) -> None:
    """Make the next GET of the branch answer with its current head, then move the branch:
    the server commits against a head that is no longer there (a deterministic race)."""
    answer = httpx.get(
        f"{forge.base_url}/repos/{full_name}/branches/{branch}",
        headers={"Authorization": f"token {token}"},
    ).json()
    forge.add_fault(path=f"/branches/{branch}$", method="GET", status=200, body=answer, times=1)


async def test_expected_head_mismatch_moves_nothing(make_runtime, forge, forge_token):
    repo = new_repo(forge)
    require_signatures(forge, repo, ["refs/heads/feature"])
    old = head(forge, repo, "feature")
    stale_branch_answer(forge, forge_token, repo, "feature")
    other = commit_on(forge, repo, "feature", "theirs.txt", b"theirs\n", "100644")
    forge.clear_requests()
    is_error, result = await commit_files(
        make_runtime(),
        {"full_name": repo, "branch": "feature", "message": "mine", "files": FILES,
         "expected_head_sha": old},
    )  # fmt: skip
    assert is_error and error_code(result) == "conflict", result
    assert head(forge, repo, "feature") == other
    mutations = [r for r in settled_requests(forge) if r["path"] == "/graphql" and r.get("graphql")]
    assert len(mutations) == 1  # the mutation was sent, and GitHub refused it as stale


async def test_moved_branch_is_reapplied_when_other_files_changed(make_runtime, forge, forge_token):
    repo = new_repo(forge)
    require_signatures(forge, repo, ["refs/heads/feature"])
    stale_branch_answer(forge, forge_token, repo, "feature")
    other = commit_on(forge, repo, "feature", "theirs.txt", b"theirs\n", "100644")
    is_error, result = await commit_files(
        make_runtime(), {"full_name": repo, "branch": "feature", "message": "mine", "files": FILES}
    )
    assert not is_error, result
    sha = head(forge, repo, "feature")
    assert result["rebased_onto"] == [other]
    assert tree_files(forge, repo, sha) == {
        "README.md": b"# changed\n",
        "docs/new.md": b"# New\n",
        "theirs.txt": b"theirs\n",
    }
    assert rest_commit(forge, forge_token, repo, sha)["commit"]["verification"]["verified"] is True


async def test_a_repeated_write_makes_no_second_commit(make_runtime, forge):
    repo = new_repo(forge)
    require_signatures(forge, repo, ["refs/heads/feature"])
    rt = make_runtime()
    args = {"full_name": repo, "branch": "feature", "message": "once", "files": FILES}
    _, first = await commit_files(rt, args)
    is_error, again = await commit_files(rt, args)
    assert not is_error, again
    assert again["status"] == "no_change"
    assert head(forge, repo, "feature") == first["commit_sha"] == again["commit_sha"]


WRITE_TOOLS: list[tuple[str, dict[str, Any]]] = [
    ("apply_text_update_and_commit", {"path": "a.txt", "new_content": "A\n"}),
    ("apply_patch_and_commit", {"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"}),
    (
        "update_file_sections_and_commit",
        {"path": "a.txt", "sections": [{"start_line": 1, "end_line": 1, "new_text": "A\n"}]},
    ),
    ("commit_files", {"files": [{"path": "a.txt", "content": "A\n"}]}),
    ("delete_file", {"path": "a.txt"}),
    ("move_file", {"path": "a.txt", "new_path": "moved/a.txt"}),
]


@pytest.mark.parametrize(("tool", "args"), WRITE_TOOLS, ids=[t for t, _ in WRITE_TOOLS])
async def test_every_write_tool_commits_signed_when_required(
    make_runtime, forge, forge_token, tool, args
):
    repo = new_repo(forge, {"a.txt": "a\n", "keep.txt": "k\n"})
    require_signatures(forge, repo, ["~ALL"])
    before = head(forge, repo, "feature")
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client, tool, {"full_name": repo, "branch": "feature", "message": tool, **args}
        )
    assert not is_error, result
    sha = head(forge, repo, "feature")
    assert sha != before and result["commit_sha"] == sha
    assert rest_commit(forge, forge_token, repo, sha)["commit"]["verification"]["verified"] is True
    assert result["signature"]["verified"] is True
    files = tree_files(forge, repo, sha)
    assert files["keep.txt"] == b"k\n"
    assert files.get("a.txt") in (b"A\n", None)


async def test_update_files_and_open_pr_signs_on_a_new_branch(make_runtime, forge, forge_token):
    repo = new_repo(forge)
    require_signatures(forge, repo, ["refs/heads/signed/*"])
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client,
            "update_files_and_open_pr",
            {
                "full_name": repo,
                "branch": "signed/one",
                "files": FILES,
                "title": "Signed change",
                "message": "signed change",
            },
        )
    assert not is_error, result
    sha = head(forge, repo, "signed/one")
    assert result["commit"]["created_branch"] is True
    assert result["pull_request"]["head_sha"] == sha
    assert rest_commit(forge, forge_token, repo, sha)["commit"]["verification"]["verified"] is True
    assert [p["sha"] for p in rest_commit(forge, forge_token, repo, sha)["parents"]] == [
        head(forge, repo, "main")
    ]


async def test_a_refused_mutation_leaves_no_new_branch_behind(make_runtime, forge):
    repo = new_repo(forge)
    require_signatures(forge, repo, ["refs/heads/signed/*"])
    forge.add_fault(path="^/graphql$", method="POST", status=200, times=1, body={
        "data": {"createCommitOnBranch": None},
        "errors": [{"type": "FORBIDDEN", "message": "Resource not accessible by integration"}],
    })  # fmt: skip
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client,
            "update_files_and_open_pr",
            {
                "full_name": repo,
                "branch": "signed/two",
                "message": "m",
                "files": FILES,
                "title": "t",
            },
        )
    assert is_error and error_code(result) == "unprocessable", result
    assert "Resource not accessible" in result["error"]["message"]
    assert head(forge, repo, "signed/two") is None


async def test_binary_content_survives_the_signed_path(make_runtime, forge, forge_token):
    png = b"\x89PNG\r\n\x1a\n\x00binary\xff"
    repo = new_repo(forge, {"img/logo.png": png})
    require_signatures(forge, repo, ["~ALL"])
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client,
            "move_file",
            {"full_name": repo, "branch": "feature", "path": "img/logo.png",
             "new_path": "logo.png", "message": "move"},
        )  # fmt: skip
    assert not is_error, result
    assert tree_files(forge, repo, "feature") == {"logo.png": png}
    assert result["signature"]["verified"] is True


async def test_other_rules_refuse_the_signed_commit_with_rule_violation(make_runtime, forge):
    repo = new_repo(forge)
    record = forge.state.repo(*repo.split("/"))
    assert record is not None
    add_ruleset(record, "locked", [*SIGNED_RULE, {"type": "update"}], ["refs/heads/feature"])
    before = head(forge, repo, "feature")
    forge.clear_requests()
    is_error, result = await commit_files(
        make_runtime(), {"full_name": repo, "branch": "feature", "message": "m", "files": FILES}
    )
    assert is_error and error_code(result) == "rule_violation", result
    assert head(forge, repo, "feature") == before
    assert commit_paths(forge) == {"graphql": 1, "git_data": 0, "rules": 1}


@pytest.mark.parametrize("fault", [{"status": 502}, {"drop_connection": True}])
async def test_a_lost_mutation_answer_is_read_back(make_runtime, forge, forge_token, fault):
    repo = new_repo(forge)
    require_signatures(forge, repo, ["refs/heads/feature"])
    before = head(forge, repo, "feature")
    forge.add_fault(path="^/graphql$", method="POST", phase="after", times=1, **fault)
    is_error, result = await commit_files(
        make_runtime(), {"full_name": repo, "branch": "feature", "message": "m", "files": FILES}
    )
    assert not is_error, result
    sha = head(forge, repo, "feature")
    assert result["commit_sha"] == sha and result["verification"]["verified"] is True
    assert [p["sha"] for p in rest_commit(forge, forge_token, repo, sha)["parents"]] == [before]
    assert rest_commit(forge, forge_token, repo, sha)["commit"]["verification"]["verified"] is True


async def test_a_mutation_that_failed_before_writing_reports_the_error(make_runtime, forge):
    repo = new_repo(forge)
    require_signatures(forge, repo, ["refs/heads/feature"])
    before = head(forge, repo, "feature")
    forge.add_fault(path="^/graphql$", method="POST", status=502, times=1)
    is_error, result = await commit_files(
        make_runtime(), {"full_name": repo, "branch": "feature", "message": "m", "files": FILES}
    )
    assert is_error and result["error"]["retryable"] is True, result
    assert head(forge, repo, "feature") == before
