"""A write's effects happen in the pipeline, whichever tool wrote: the repository's cached
reads go, and a clean workspace clone of the branch that moved follows it, even when no
workspace tool has run in this process (clones outlive a restart)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import call_tool, mcp_client, traversable

REPO = "octo-org/effects-demo"
FILES = {"README.md": "one\ntwo\nthree\n", "src/app.py": "print('hi')\n"}
PATCH = """--- a/README.md
+++ b/README.md
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
"""


def forge_head(forge, full_name: str, branch: str) -> str:
    repo = forge.state.repo(*full_name.split("/"))
    return {ref: sha for ref, sha, _ in repo.git.list_refs()}[f"refs/heads/{branch}"]


def clone_head(path: Path) -> str:
    return subprocess.run(
        ["git", "-c", "safe.directory=*", "-C", str(path), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


async def _clone(make_runtime, workspace_dir: Path, full_name: str, branch: str) -> Path:
    """A clone made by an earlier run of the server."""
    earlier = make_runtime(workspace_dir=workspace_dir, workspace_sandbox="none")
    async with mcp_client(earlier) as client:
        is_error, clone = await call_tool(
            client, "ensure_workspace_clone", {"full_name": full_name, "ref": branch}
        )
    assert not is_error, clone
    return Path(clone["path"])


async def test_a_write_is_seen_by_the_next_read_and_a_clean_clone_follows(
    forge, make_runtime, tmp_path
):
    forge.seed_repo(REPO, FILES, branches={"work": FILES})
    workspace_dir = traversable(tmp_path) / "ws"
    clone = await _clone(make_runtime, workspace_dir, REPO, "work")
    before = forge_head(forge, REPO, "work")
    assert clone_head(clone) == before

    # A new server over the same workspace root: no workspace tool runs in it.
    rt = make_runtime(workspace_dir=workspace_dir, workspace_sandbox="none", cache_ttl_seconds=600)
    async with mcp_client(rt) as client:
        read = {"full_name": REPO, "path": "README.md", "ref": "work"}
        is_error, first = await call_tool(client, "get_file_contents", read)
        assert not is_error and first["content"] == FILES["README.md"]
        is_error, commit = await call_tool(
            client,
            "apply_patch_and_commit",
            {"full_name": REPO, "branch": "work", "patch": PATCH, "message": "capitals"},
        )
        assert not is_error, commit
        is_error, second = await call_tool(client, "get_file_contents", read)
    assert not is_error and second["content"] == "one\nTWO\nthree\n"  # not the cached read
    assert forge_head(forge, REPO, "work") == commit["commit_sha"] != before
    assert clone_head(clone) == commit["commit_sha"]
    assert (clone / "README.md").read_text() == "one\nTWO\nthree\n"


async def test_a_dirty_clone_is_left_as_it_is_and_the_write_still_succeeds(
    forge, make_runtime, tmp_path
):
    full_name = "octo-org/effects-dirty"
    forge.seed_repo(full_name, FILES, branches={"work": FILES})
    workspace_dir = traversable(tmp_path) / "ws"
    clone = await _clone(make_runtime, workspace_dir, full_name, "work")
    before = clone_head(clone)
    (clone / "src" / "app.py").write_text("print('local work')\n")

    rt = make_runtime(workspace_dir=workspace_dir, workspace_sandbox="none")
    async with mcp_client(rt) as client:
        is_error, commit = await call_tool(
            client,
            "commit_files",
            {
                "full_name": full_name,
                "branch": "work",
                "message": "add notes",
                "files": [{"path": "NOTES.md", "content": "notes\n"}],
            },
        )
    assert not is_error, commit
    assert forge_head(forge, full_name, "work") == commit["commit_sha"]
    assert clone_head(clone) == before  # the local edit is not lost to a fast-forward
    assert (clone / "src" / "app.py").read_text() == "print('local work')\n"


async def test_every_tool_that_moves_a_branch_names_it_for_the_pipeline(
    forge, make_runtime, tmp_path
):
    """create_branch and a merge name the branch they moved: a clone of it follows."""
    full_name = "octo-org/effects-merge"
    forge.seed_repo(full_name, FILES, branches={"feature": FILES})
    workspace_dir = traversable(tmp_path) / "ws"
    clone = await _clone(make_runtime, workspace_dir, full_name, "main")

    rt = make_runtime(workspace_dir=workspace_dir, workspace_sandbox="none")
    async with mcp_client(rt) as client:
        is_error, commit = await call_tool(
            client,
            "apply_text_update_and_commit",
            {
                "full_name": full_name,
                "branch": "feature",
                "path": "src/app.py",
                "new_content": "print('merged')\n",
                "message": "change",
            },
        )
        assert not is_error, commit
        is_error, pr = await call_tool(
            client,
            "create_pull_request",
            {"full_name": full_name, "head": "feature", "base": "main", "title": "Change"},
        )
        assert not is_error, pr
        is_error, approval = await call_tool(client, "authorize_write_actions", {"approved": True})
        assert not is_error, approval
        is_error, merged = await call_tool(
            client, "merge_pull_request", {"pr": f"{full_name}#{pr['number']}"}
        )
    assert not is_error, merged
    assert forge_head(forge, full_name, "main") == merged["sha"]
    assert clone_head(clone) == merged["sha"]
    assert (clone / "src" / "app.py").read_text() == "print('merged')\n"
