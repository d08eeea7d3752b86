"""The write tools end to end: branches, verified
commits from text, patches, sections and file lists, PRs, deletes and moves. Every
write goes to a feature branch of a repository seeded for the test; the result is
checked in the forge's bare repository with real git."""

from __future__ import annotations

import subprocess
import uuid
from typing import Any

import pytest

from github_mcp.config import Settings
from github_mcp.pipeline.runtime import Runtime
from sandbox_forge import Forge
from tests.conftest import call_tool, error_code, mcp_client, settled_requests

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


# --- helpers (also used by the issue/PR and reliability tests) -----------------------------


def new_repo(
    forge: Forge,
    files: dict[str, str | bytes] | None = None,
    branches: dict[str, dict[str, str | bytes]] | None = None,
    prefix: str = "writes-org",
) -> str:
    """Seed a fresh repository (main plus a `feature` branch by default)."""
    full_name = f"{prefix}/r-{uuid.uuid4().hex[:10]}"
    forge.seed_repo(
        full_name,
        files or {"README.md": "# hello\n"},
        branches=branches if branches is not None else {"feature": {}},
    )
    return full_name


def git(forge: Forge, full_name: str, *args: str, input: bytes | None = None) -> str:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None, full_name
    out = subprocess.run(
        ["git", f"--git-dir={repo.git.path}", *args], input=input, capture_output=True, check=True
    )
    return out.stdout.decode()


def head(forge: Forge, full_name: str, branch: str) -> str | None:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    return repo.git.read_ref(f"refs/heads/{branch}")


def file_at(forge: Forge, full_name: str, ref: str, path: str) -> bytes | None:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    proc = subprocess.run(
        ["git", f"--git-dir={repo.git.path}", "show", f"{ref}:{path}"],
        capture_output=True,
        check=False,
    )
    return proc.stdout if proc.returncode == 0 else None


def tree_files(forge: Forge, full_name: str, ref: str) -> dict[str, bytes]:
    names = git(forge, full_name, "ls-tree", "-r", "--name-only", ref).splitlines()
    return {n: file_at(forge, full_name, ref, n) or b"" for n in names}


def commits_between(forge: Forge, full_name: str, old: str, new: str) -> int:
    return int(git(forge, full_name, "rev-list", "--count", f"{old}..{new}").strip())


def changed_in(forge: Forge, full_name: str, sha: str) -> set[str]:
    out = git(forge, full_name, "diff-tree", "--no-commit-id", "-r", "--name-only", "-M", sha)
    return set(out.split())


def hash_object(data: str | bytes) -> str:
    raw = data.encode() if isinstance(data, str) else data
    out = subprocess.run(
        ["git", "hash-object", "--stdin"], input=raw, capture_output=True, check=True
    )
    return out.stdout.decode().strip()


def write_requests(forge: Forge) -> list[dict[str, Any]]:
    """Requests that can change state: GraphQL queries are POSTs too, but only read."""
    return [
        r
        for r in settled_requests(forge)
        if r["method"] in WRITE_METHODS and r.get("graphql") != "query"
    ]


def assert_verified(
    result: dict[str, Any], forge: Forge, full_name: str, branch: str | None = None
) -> None:
    """The commit verified, its blob SHAs are git's own, and (given a branch) it is the head."""
    commit = result["commit_sha"]
    assert result["verification"]["verified"] is True, result
    assert result["verification"]["commit_sha"] == commit
    if branch is not None:
        assert head(forge, full_name, branch) == commit
    for f in result["files"]:
        assert f["ok"] is True, f
        if f["status"] == "written":
            assert f["sha"] == hash_object(file_at(forge, full_name, commit, f["path"]) or b"")
        else:
            assert file_at(forge, full_name, commit, f["path"]) is None


# --- create_branch -----------------------------------------------------------------------


async def test_create_branch_idempotent_and_conflict(make_runtime, forge):
    repo = new_repo(forge, branches={"other": {"o.txt": "other\n"}})
    main, other = head(forge, repo, "main"), head(forge, repo, "other")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, made = await call_tool(
            client, "create_branch", {"full_name": repo, "branch": "topic"}
        )
        _, again = await call_tool(client, "create_branch", {"full_name": repo, "branch": "topic"})
        _, elsewhere = await call_tool(
            client, "create_branch", {"full_name": repo, "branch": "topic", "from_ref": "other"}
        )
        _, from_other = await call_tool(
            client, "create_branch", {"full_name": repo, "branch": "topic-2", "from_ref": "other"}
        )
        _, missing = await call_tool(
            client, "create_branch", {"full_name": repo, "branch": "t3", "from_ref": "nope"}
        )
        _, bad_name = await call_tool(
            client, "create_branch", {"full_name": repo, "branch": "bad..name"}
        )
    assert not is_error, made
    assert made == {"branch": "topic", "sha": main, "created": True}
    assert again == {"branch": "topic", "sha": main, "created": False}
    assert error_code(elsewhere) == "conflict"
    assert elsewhere["error"]["existing_sha"] == main
    assert head(forge, repo, "topic") == main  # the conflict changed nothing
    assert from_other["sha"] == other and head(forge, repo, "topic-2") == other
    assert error_code(missing) == "not_found"
    assert error_code(bad_name) == "invalid_input"


# --- apply_text_update_and_commit ----------------------------------------------------------


async def test_text_update_creates_and_updates_verified(make_runtime, forge):
    repo = new_repo(forge, {"README.md": "# hello\nold line\n"})
    start = head(forge, repo, "feature")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, created = await call_tool(
            client,
            "apply_text_update_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "notes/new file.md",
                "new_content": "brand new ✓\n",
                "message": "Add notes",
            },
        )
        assert not is_error, created
        _, updated = await call_tool(
            client,
            "apply_text_update_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "README.md",
                "new_content": "# hello\nnew line\n",
                "message": "Update README",
                "return_diff": True,
            },
        )
        _, read_back = await call_tool(
            client, "get_file_contents", {"full_name": repo, "path": "README.md", "ref": "feature"}
        )
    assert created["parent_sha"] == start
    assert created["files"] == [
        {
            "path": "notes/new file.md",
            "status": "written",
            "sha": hash_object("brand new ✓\n"),
            "ok": True,
        }
    ]
    assert_verified(created, forge, repo)
    assert file_at(forge, repo, "feature", "notes/new file.md") == "brand new ✓\n".encode()
    assert updated["parent_sha"] == created["commit_sha"]
    assert_verified(updated, forge, repo, "feature")
    assert commits_between(forge, repo, start, "feature") == 2
    assert "-old line" in updated["diff"] and "+new line" in updated["diff"]
    assert "diff" not in created
    assert read_back["content"] == "# hello\nnew line\n"  # the write invalidated the cache
    assert head(forge, repo, "main") != head(forge, repo, "feature")


async def test_text_update_shrink_guard(make_runtime, forge):
    big = "".join(f"line {i:04d} of a long file\n" for i in range(150))  # ~3.8 KB
    repo = new_repo(forge, {"big.txt": big})
    before = head(forge, repo, "feature")
    args = {
        "full_name": repo,
        "branch": "feature",
        "path": "big.txt",
        "new_content": "tiny\n",
        "message": "shrink",
    }
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        is_error, refused = await call_tool(client, "apply_text_update_and_commit", args)
        assert write_requests(forge) == []
        assert head(forge, repo, "feature") == before
        _, mild = await call_tool(
            client,
            "apply_text_update_and_commit",
            {**args, "new_content": big[: len(big) * 2 // 3]},
        )
        _, allowed = await call_tool(
            client, "apply_text_update_and_commit", {**args, "allow_large_shrink": True}
        )
    assert is_error and error_code(refused) == "invalid_input"
    assert refused["error"]["old_bytes"] == len(big) and refused["error"]["new_bytes"] == 5
    assert "allow_large_shrink" in refused["error"]["hint"]
    assert mild["verification"]["verified"] is True  # down to 2/3: no guard
    assert_verified(allowed, forge, repo, "feature")
    assert file_at(forge, repo, "feature", "big.txt") == b"tiny\n"


async def test_text_update_expected_sha_mismatch_is_conflict(make_runtime, forge):
    repo = new_repo(forge, {"a.txt": "a\n"})
    before = head(forge, repo, "feature")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, stale = await call_tool(
            client,
            "apply_text_update_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "a.txt",
                "new_content": "b\n",
                "message": "m",
                "expected_sha": hash_object("not a\n"),
            },
        )
        _, fresh = await call_tool(
            client,
            "apply_text_update_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "a.txt",
                "new_content": "b\n",
                "message": "m",
                "expected_sha": hash_object("a\n"),
            },
        )
        _, no_branch = await call_tool(
            client,
            "apply_text_update_and_commit",
            {
                "full_name": repo,
                "branch": "no-such-branch",
                "path": "a.txt",
                "new_content": "b\n",
                "message": "m",
            },
        )
    assert error_code(stale) == "conflict"
    assert stale["error"]["current_shas"] == {"a.txt": hash_object("a\n")}
    assert fresh["parent_sha"] == before
    assert_verified(fresh, forge, repo, "feature")
    assert error_code(no_branch) == "not_found"


# --- apply_patch_and_commit --------------------------------------------------------------

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
CALC_PATCH = """--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a + b
+    return b + a
"""
NOTES_PATCH = """--- a/docs/notes.md
+++ b/docs/notes.md
@@ -1,3 +1,4 @@
 # Notes
+Added line.
 one
 two
"""


async def test_patch_single_file(make_runtime, forge):
    repo = new_repo(forge, {"calc.py": CALC})
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "patch": CALC_PATCH,
                "message": "swap",
            },
        )
    assert not is_error, result
    assert_verified(result, forge, repo, "feature")
    assert file_at(forge, repo, "feature", "calc.py") == CALC.replace("a + b", "b + a").encode()


async def test_multi_file_patch_is_one_commit(make_runtime, forge):
    repo = new_repo(forge, {"calc.py": CALC, "docs/notes.md": "# Notes\none\ntwo\n"})
    before = head(forge, repo, "feature")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "patch": CALC_PATCH + NOTES_PATCH,
                "message": "two files",
                "expected_head_sha": before,
            },
        )
    assert not is_error, result
    assert commits_between(forge, repo, before, "feature") == 1
    assert changed_in(forge, repo, result["commit_sha"]) == {"calc.py", "docs/notes.md"}
    assert file_at(forge, repo, "feature", "docs/notes.md") == b"# Notes\nAdded line.\none\ntwo\n"
    assert_verified(result, forge, repo, "feature")


async def test_patch_fenced_and_escaped_input(make_runtime, forge):
    repo = new_repo(forge, {"calc.py": CALC, "docs/notes.md": "# Notes\none\ntwo\n"})
    fenced = f"Here is the change:\n\n```diff\n{CALC_PATCH}```\n\nLet me know!"
    escaped = NOTES_PATCH.replace("\n", "\\n")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, one = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "patch": fenced,
                "message": "fenced",
            },
        )
        _, two = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "patch": escaped,
                "message": "escaped",
            },
        )
    assert one["verification"]["verified"] is True, one
    assert two["verification"]["verified"] is True, two
    assert b"return b + a" in (file_at(forge, repo, "feature", "calc.py") or b"")
    assert file_at(forge, repo, "feature", "docs/notes.md") == b"# Notes\nAdded line.\none\ntwo\n"


async def test_patch_keeps_crlf_line_endings(make_runtime, forge):
    repo = new_repo(forge, {"win.txt": "alpha\r\nbeta\r\ngamma\r\n"})
    patch = "--- a/win.txt\n+++ b/win.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "patch": patch,
                "message": "crlf",
            },
        )
    assert not is_error, result
    assert file_at(forge, repo, "feature", "win.txt") == b"alpha\r\nBETA\r\ngamma\r\n"
    assert_verified(result, forge, repo, "feature")


async def test_patch_mismatch_names_the_hunk_and_shows_actual_lines(make_runtime, forge):
    repo = new_repo(forge, {"calc.py": CALC})
    before = head(forge, repo, "feature")
    patch = CALC_PATCH + "@@ -5,2 +5,2 @@\n def sub(a, b):\n-    return a + b\n+    return 0\n"
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        is_error, payload = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "patch": patch,
                "message": "bad",
            },
        )
        assert write_requests(forge) == []
        _, missing_file = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "m",
                "patch": CALC_PATCH.replace("calc.py", "nope.py"),
            },
        )
        _, not_a_patch = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "m",
                "patch": "just prose",
            },
        )
    assert is_error and error_code(payload) == "patch_does_not_apply"
    err = payload["error"]
    assert err["hunk"] == 2 and err["path"] == "calc.py"
    assert err["hunk_header"].startswith("@@ -5,2 +5,2 @@")
    assert err["expected"] == ["def sub(a, b):", "    return a + b"]
    assert err["actual"] == ["def sub(a, b):", "    return a - b"]
    assert "hunk 2" in err["message"]
    assert head(forge, repo, "feature") == before  # nothing was committed, not even hunk 1
    assert error_code(missing_file) == "patch_does_not_apply"
    assert error_code(not_a_patch) in ("invalid_input", "patch_does_not_apply")


async def test_patch_creates_deletes_and_renames_in_one_commit(make_runtime, forge):
    repo = new_repo(forge, {"old.txt": "bye\n", "move/me.txt": "keep me\nsame\n"})
    before = head(forge, repo, "feature")
    patch = (
        "--- /dev/null\n+++ b/created.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n"
        "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
        "diff --git a/move/me.txt b/moved/me.txt\nsimilarity index 100%\n"
        "rename from move/me.txt\nrename to moved/me.txt\n"
    )
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "patch": patch,
                "message": "cdr",
            },
        )
        _, exists = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "again",
                "patch": "--- /dev/null\n+++ b/created.txt\n@@ -0,0 +1 @@\n+x\n",
            },
        )
    assert not is_error, result
    assert commits_between(forge, repo, before, "feature") == 1
    files = tree_files(forge, repo, "feature")
    assert files["created.txt"] == b"hello\nworld\n"
    assert "old.txt" not in files and "move/me.txt" not in files
    assert files["moved/me.txt"] == b"keep me\nsame\n"
    statuses = {f["path"]: f["status"] for f in result["files"]}
    assert statuses == {
        "created.txt": "written",
        "old.txt": "deleted",
        "move/me.txt": "deleted",
        "moved/me.txt": "written",
    }
    assert_verified(result, forge, repo, "feature")
    assert error_code(exists) == "patch_does_not_apply"


# --- update_file_sections_and_commit -------------------------------------------------------

TEN = "".join(f"line {i}\n" for i in range(1, 11))


async def test_sections_valid(make_runtime, forge):
    repo = new_repo(forge, {"ten.txt": TEN})
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "update_file_sections_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "ten.txt",
                "message": "sections",
                "return_diff": True,
                "sections": [
                    {"start_line": 1, "end_line": 0, "new_text": "inserted at the top"},
                    {"start_line": 2, "end_line": 3, "new_text": "two and three\n"},
                    {"start_line": 10, "end_line": 10, "new_text": "last\nreally last\n"},
                ],
            },
        )
    assert not is_error, result
    expected = (
        "inserted at the top\nline 1\ntwo and three\n"
        + "".join(f"line {i}\n" for i in range(4, 10))
        + "last\nreally last\n"
    )
    assert file_at(forge, repo, "feature", "ten.txt") == expected.encode()
    assert "+two and three" in result["diff"]
    assert_verified(result, forge, repo, "feature")


@pytest.mark.parametrize(
    "sections",
    [
        [
            {"start_line": 2, "end_line": 4, "new_text": "x"},
            {"start_line": 4, "end_line": 5, "new_text": "y"},
        ],  # overlapping
        [
            {"start_line": 6, "end_line": 6, "new_text": "x"},
            {"start_line": 2, "end_line": 2, "new_text": "y"},
        ],  # unsorted
        [{"start_line": 9, "end_line": 11, "new_text": "x"}],  # beyond the end
        [{"start_line": 5, "end_line": 3, "new_text": "x"}],  # end before start
        [{"start_line": 0, "end_line": 1, "new_text": "x"}],  # lines are 1-based
        [],  # nothing to do
    ],
)
async def test_sections_invalid(make_runtime, forge, sections):
    repo = new_repo(forge, {"ten.txt": TEN})
    before = head(forge, repo, "feature")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        is_error, payload = await call_tool(
            client,
            "update_file_sections_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "ten.txt",
                "message": "m",
                "sections": sections,
            },
        )
        assert write_requests(forge) == []
    assert is_error and error_code(payload) == "invalid_input", payload
    assert head(forge, repo, "feature") == before


async def test_sections_missing_file(make_runtime, forge):
    repo = new_repo(forge)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, payload = await call_tool(
            client,
            "update_file_sections_and_commit",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "nope.txt",
                "message": "m",
                "sections": [{"start_line": 1, "end_line": 1, "new_text": "x"}],
            },
        )
    assert error_code(payload) == "not_found"


# --- commit_files -------------------------------------------------------------------------


async def test_commit_files_create_update_delete_in_one_commit(make_runtime, forge):
    repo = new_repo(forge, {"keep.txt": "keep\n", "edit.txt": "old\n", "gone.txt": "bye\n"})
    before = head(forge, repo, "feature")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "mixed",
                "expected_head_sha": before,
                "files": [
                    {"path": "new/dir/added.txt", "content": "added\n"},
                    {"path": "edit.txt", "content": "new\n", "expected_sha": hash_object("old\n")},
                    {"path": "gone.txt", "delete": True},
                ],
            },
        )
    assert not is_error, result
    assert result["parent_sha"] == before
    assert commits_between(forge, repo, before, "feature") == 1
    assert tree_files(forge, repo, "feature") == {
        "keep.txt": b"keep\n",
        "edit.txt": b"new\n",
        "new/dir/added.txt": b"added\n",
    }
    assert_verified(result, forge, repo, "feature")
    assert {f["path"]: f["status"] for f in result["files"]} == {
        "new/dir/added.txt": "written",
        "edit.txt": "written",
        "gone.txt": "deleted",
    }


async def test_commit_files_preconditions_are_conflicts(make_runtime, forge):
    repo = new_repo(forge, {"a.txt": "a\n"})
    before = head(forge, repo, "feature")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, stale_head = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "m",
                "expected_head_sha": "0" * 40,
                "files": [{"path": "a.txt", "content": "b\n"}],
            },
        )
        _, stale_file = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "m",
                "files": [{"path": "a.txt", "content": "b\n", "expected_sha": "1" * 40}],
            },
        )
        _, new_file_expected = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "m",
                "files": [{"path": "nope.txt", "content": "b\n", "expected_sha": "1" * 40}],
            },
        )
        _, delete_missing = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "m",
                "files": [
                    {"path": "a.txt", "content": "b\n"},
                    {"path": "nope.txt", "delete": True},
                ],
            },
        )
        assert write_requests(forge) == []
        _, both = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "m",
                "files": [{"path": "a.txt", "content": "b\n", "delete": True}],
            },
        )
        _, twice = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "m",
                "files": [{"path": "a.txt", "content": "b\n"}, {"path": "a.txt", "content": "c\n"}],
            },
        )
    assert error_code(stale_head) == "conflict"
    assert stale_head["error"]["head_sha"] == before
    assert error_code(stale_file) == "conflict"
    assert stale_file["error"]["current_shas"] == {"a.txt": hash_object("a\n")}
    assert error_code(new_file_expected) == "conflict"
    assert error_code(delete_missing) == "not_found"
    assert delete_missing["error"]["files"] == ["nope.txt"]
    assert error_code(both) == "invalid_input"
    assert error_code(twice) == "invalid_input"
    assert head(forge, repo, "feature") == before


async def test_commit_files_binary_content_rejected_paths(make_runtime, forge):
    repo = new_repo(forge)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        for bad in ("/abs.txt", "a/../b.txt", "a\\b.txt", "./x.txt"):
            is_error, payload = await call_tool(
                client,
                "commit_files",
                {
                    "full_name": repo,
                    "branch": "feature",
                    "message": "m",
                    "files": [{"path": bad, "content": "x"}],
                },
            )
            assert is_error and error_code(payload) == "invalid_input", bad
        assert settled_requests(forge) == []


@pytest.fixture(scope="module")
def truncating_forge():
    instance = Forge(tree_truncate_limit=5)
    instance.start()
    yield instance
    instance.stop()


async def test_commit_verifies_in_a_repo_whose_trees_are_truncated(make_runtime, truncating_forge):
    forge = truncating_forge
    files = {f"pkg{d}/sub/f{i}.txt": f"{d}{i}\n" for d in range(3) for i in range(4)}
    repo = new_repo(forge, files)
    rt = make_runtime(github_api_url=forge.base_url, github_token=forge.create_token("octocat"))
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "deep",
                "files": [
                    {
                        "path": "pkg2/sub/f3.txt",
                        "content": "changed\n",
                        "expected_sha": hash_object("23\n"),
                    },
                    {"path": "pkg1/sub/new.txt", "content": "new\n"},
                    {"path": "pkg0/sub/f0.txt", "delete": True},
                ],
            },
        )
        _, stale = await call_tool(
            client,
            "commit_files",
            {
                "full_name": repo,
                "branch": "feature",
                "message": "stale",
                "files": [
                    {
                        "path": "pkg2/sub/f2.txt",
                        "content": "x\n",
                        "expected_sha": hash_object("not it\n"),
                    }
                ],
            },
        )
    assert any("/git/trees/" in e["path"] and e["status"] == 200 for e in forge.requests())
    assert not is_error, result
    assert_verified(result, forge, repo, "feature")
    assert file_at(forge, repo, "feature", "pkg2/sub/f3.txt") == b"changed\n"
    assert file_at(forge, repo, "feature", "pkg0/sub/f0.txt") is None
    assert error_code(stale) == "conflict"
    assert stale["error"]["current_shas"] == {"pkg2/sub/f2.txt": hash_object("22\n")}


# --- update_files_and_open_pr --------------------------------------------------------------


async def test_update_files_and_open_pr_then_idempotent(make_runtime, forge):
    repo = new_repo(forge, {"app.py": "print('v1')\n"}, branches={})
    base_head = head(forge, repo, "main")
    args = {
        "full_name": repo,
        "branch": "feat/pr-1",
        "title": "Bump to v2",
        "message": "v2",
        "body": "Why: testing.",
        "files": [
            {"path": "app.py", "content": "print('v2')\n"},
            {"path": "CHANGELOG.md", "content": "- v2\n"},
        ],
    }
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, first = await call_tool(client, "update_files_and_open_pr", args)
        assert not is_error, first
        _, second = await call_tool(client, "update_files_and_open_pr", args)
        _, listed = await call_tool(
            client, "list_pull_requests", {"full_name": repo, "head": "feat/pr-1"}
        )
    commit, pr = first["commit"], first["pull_request"]
    assert commit["created_branch"] is True
    assert commit["parent_sha"] == base_head
    assert commits_between(forge, repo, "main", commit["commit_sha"]) == 1
    assert commit["verification"]["verified"] is True
    assert pr["head"] == "feat/pr-1" and pr["base"] == "main" and pr["state"] == "open"
    assert pr["title"] == "Bump to v2" and pr["already_existed"] is False
    assert pr["head_sha"] == commit["commit_sha"]
    assert head(forge, repo, "main") == base_head  # the base was not touched
    assert second["pull_request"]["number"] == pr["number"]
    assert second["pull_request"]["already_existed"] is True
    assert second["pull_request"]["head_sha"] == second["commit"]["commit_sha"]  # fresh data
    assert "created_branch" not in second["commit"]
    assert [p["number"] for p in listed["pull_requests"]] == [pr["number"]]


async def test_update_files_and_open_pr_missing_base(make_runtime, forge):
    repo = new_repo(forge, branches={})
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, payload = await call_tool(
            client,
            "update_files_and_open_pr",
            {
                "full_name": repo,
                "branch": "feat/x",
                "base": "no-such-base",
                "title": "t",
                "message": "m",
                "files": [{"path": "a.txt", "content": "a"}],
            },
        )
    assert error_code(payload) == "not_found"
    assert write_requests(forge) == []
    assert head(forge, repo, "feat/x") is None


# --- extra tools: delete_file, move_file, delete_remote_branch -----------------------------


async def test_delete_and_move_file(make_runtime, forge):
    png = b"\x89PNG\r\n\x1a\n\x00binary\xff"
    repo = new_repo(forge, {"a.txt": "a\n", "img/logo.png": png, "b.txt": "b\n"})
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, deleted = await call_tool(
            client,
            "delete_file",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "a.txt",
                "message": "rm a",
            },
        )
        assert not is_error, deleted
        _, moved = await call_tool(
            client,
            "move_file",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "img/logo.png",
                "new_path": "assets/logo.png",
                "message": "mv logo",
            },
        )
        _, missing = await call_tool(
            client,
            "delete_file",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "a.txt",
                "message": "again",
            },
        )
        _, same = await call_tool(
            client,
            "move_file",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "b.txt",
                "new_path": "b.txt",
                "message": "noop",
            },
        )
        _, move_missing = await call_tool(
            client,
            "move_file",
            {
                "full_name": repo,
                "branch": "feature",
                "path": "zzz.txt",
                "new_path": "y.txt",
                "message": "m",
            },
        )
    assert_verified(deleted, forge, repo)
    assert_verified(moved, forge, repo, "feature")
    files = tree_files(forge, repo, "feature")
    assert "a.txt" not in files and "img/logo.png" not in files
    assert files["assets/logo.png"] == png  # bytes unchanged, binary included
    assert commits_between(forge, repo, deleted["commit_sha"], moved["commit_sha"]) == 1
    assert error_code(missing) == "not_found"  # not an empty commit that "verifies"
    assert error_code(same) == "invalid_input"
    assert error_code(move_missing) == "not_found"


async def test_delete_remote_branch(make_runtime, forge):
    repo = new_repo(forge, branches={"doomed": {"x.txt": "x\n"}})
    sha = head(forge, repo, "doomed")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        tools = {t.name: t for t in await client.list_tools()}
        is_error, result = await call_tool(
            client, "delete_remote_branch", {"full_name": repo, "branch": "doomed"}
        )
        _, again = await call_tool(
            client, "delete_remote_branch", {"full_name": repo, "branch": "doomed"}
        )
        _, default = await call_tool(
            client, "delete_remote_branch", {"full_name": repo, "branch": "main"}
        )
    for name in ("delete_remote_branch", "delete_file", "move_file", "merge_pull_request"):
        assert tools[name].annotations.destructiveHint is True, name
        assert tools[name].annotations.readOnlyHint is False, name
    assert tools["commit_files"].annotations.destructiveHint is False
    assert tools["get_file_contents"].annotations.readOnlyHint is True
    assert not is_error, result
    assert result["commit_sha"] == sha  # the SHA it pointed at, to restore it
    assert head(forge, repo, "doomed") is None
    # the retry finds the branch gone by this principal's own earlier call: it says so
    assert again["already_deleted"] is True and again["commit_sha"] == sha
    assert error_code(default) == "write_not_allowed"
    assert head(forge, repo, "main") is not None


# --- input limits: refused before any GitHub request ---------------------------

TOO_MUCH_CONTENT = "x" * (2 * 1024 * 1024 + 1)
TOO_MANY_BYTES = "é" * (1024 * 1024 + 1)  # under 2 Mi characters, over 2 MiB of UTF-8
LONG_MESSAGE = "m" * 10_001
LONG_TITLE = "t" * 301
LONG_BODY = "b" * 65_537
MANY_LABELS = [f"l{i}" for i in range(21)]
MANY_FILES = [{"path": f"f{i}.txt", "content": "x"} for i in range(101)]
R = "writes-org/limits"
PR = f"{R}#1"
FILE = [{"path": "a.txt", "content": "a"}]

OVERSIZED: list[tuple[str, dict[str, Any]]] = [
    (
        "apply_text_update_and_commit",
        {"path": "a.txt", "new_content": TOO_MUCH_CONTENT, "message": "m"},
    ),
    (
        "apply_text_update_and_commit",
        {"path": "a.txt", "new_content": TOO_MANY_BYTES, "message": "m"},
    ),
    (
        "apply_text_update_and_commit",
        {"path": "a.txt", "new_content": "x", "message": LONG_MESSAGE},
    ),
    ("apply_patch_and_commit", {"patch": TOO_MUCH_CONTENT, "message": "m"}),
    ("apply_patch_and_commit", {"patch": "--- a/x\n", "message": LONG_MESSAGE}),
    (
        "update_file_sections_and_commit",
        {
            "path": "a.txt",
            "message": "m",
            "sections": [{"start_line": 1, "end_line": 1, "new_text": TOO_MUCH_CONTENT}],
        },
    ),
    (
        "update_file_sections_and_commit",
        {
            "path": "a.txt",
            "message": "m",
            "sections": [{"start_line": 1, "end_line": 1, "new_text": TOO_MANY_BYTES}],
        },
    ),
    (
        "update_file_sections_and_commit",
        {
            "path": "a.txt",
            "message": LONG_MESSAGE,
            "sections": [{"start_line": 1, "end_line": 1, "new_text": "x"}],
        },
    ),
    ("commit_files", {"files": [{"path": "a.txt", "content": TOO_MUCH_CONTENT}], "message": "m"}),
    ("commit_files", {"files": [{"path": "a.txt", "content": TOO_MANY_BYTES}], "message": "m"}),
    ("commit_files", {"files": FILE, "message": LONG_MESSAGE}),
    ("commit_files", {"files": MANY_FILES, "message": "m"}),
    ("update_files_and_open_pr", {"files": MANY_FILES, "message": "m", "title": "t"}),
    ("update_files_and_open_pr", {"files": FILE, "message": "m", "title": LONG_TITLE}),
    ("update_files_and_open_pr", {"files": FILE, "message": "m", "title": "t", "body": LONG_BODY}),
    ("update_files_and_open_pr", {"files": FILE, "message": LONG_MESSAGE, "title": "t"}),
    (
        "update_files_and_open_pr",
        {"files": [{"path": "a", "content": TOO_MUCH_CONTENT}], "message": "m", "title": "t"},
    ),
    ("delete_file", {"path": "a.txt", "message": LONG_MESSAGE}),
    ("move_file", {"path": "a.txt", "new_path": "b.txt", "message": LONG_MESSAGE}),
    ("create_issue", {"title": LONG_TITLE}),
    ("create_issue", {"title": "t", "body": LONG_BODY}),
    ("create_issue", {"title": "t", "labels": MANY_LABELS}),
    ("update_issue", {"number": 1, "title": LONG_TITLE}),
    ("update_issue", {"number": 1, "body": LONG_BODY}),
    ("update_issue", {"number": 1, "labels": MANY_LABELS}),
    ("comment_on_issue", {"number": 1, "body": LONG_BODY}),
    ("create_pull_request", {"head": "x", "title": LONG_TITLE}),
    ("create_pull_request", {"head": "x", "title": "t", "body": LONG_BODY}),
    ("update_pull_request", {"pr": PR, "title": LONG_TITLE}),
    ("update_pull_request", {"pr": PR, "body": LONG_BODY}),
    ("merge_pull_request", {"pr": PR, "commit_title": LONG_TITLE}),
    ("merge_pull_request", {"pr": PR, "commit_message": LONG_BODY}),
    ("comment_on_pull_request", {"pr": PR, "body": LONG_BODY}),
    ("add_pr_labels", {"pr": PR, "labels": MANY_LABELS}),
    ("create_pr_review", {"pr": PR, "event": "COMMENT", "body": LONG_BODY}),
    (
        "create_pr_review",
        {
            "pr": PR,
            "event": "COMMENT",
            "comments": [{"path": "a.txt", "line": 1, "body": LONG_BODY}],
        },
    ),
]


def _limit_id(case: tuple[str, dict[str, Any]]) -> str:
    name, args = case
    big = max(args, key=lambda k: len(repr(args[k])))
    return f"{name}-{big}"


@pytest.fixture(scope="module")
async def approved_client(forge, forge_token, tmp_path_factory):
    """One approved client for the many limit cases (building a server per case is slow)."""
    tmp = tmp_path_factory.mktemp("limits")
    rt = Runtime.create(
        Settings(
            github_api_url=forge.base_url,
            github_token=forge_token,
            audit_log=tmp / "audit.jsonl",
            workspace_dir=tmp / "ws",
            auto_approve=True,
        ),
        retry_base_delay=0.01,
    )
    async with mcp_client(rt) as client:
        yield client
    await rt.aclose()


@pytest.mark.parametrize("case", OVERSIZED, ids=[_limit_id(c) for c in OVERSIZED])
async def test_oversized_arguments_refused_before_any_request(approved_client, forge, case):
    name, args = case
    full = {"full_name": R, **args} if "pr" not in args else dict(args)
    if name in (
        "apply_text_update_and_commit",
        "apply_patch_and_commit",
        "update_file_sections_and_commit",
        "commit_files",
        "delete_file",
        "move_file",
        "update_files_and_open_pr",
    ):
        full["branch"] = "feature"
    forge.clear_requests()
    is_error, payload = await call_tool(approved_client, name, full)
    assert settled_requests(forge) == []
    assert is_error and error_code(payload) == "invalid_input", payload
