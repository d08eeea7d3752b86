"""What a workspace commit will contain, for a human to approve before it is made, and the
check that the commit made is that one (pipeline/approval_binding.py).

The tree is computed in a scratch index (the clone's own index is not touched): HEAD plus
the working tree's changes at `paths` (or everywhere but the venv), exactly what
`commit_changes` stages. The approval names that tree and its parent; the commit made
after the approval must have both, or it is undone before anything is pushed."""

from __future__ import annotations

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.workspace._repo import RepoOps
from github_mcp.services.workspace._results import PendingCommit, PendingFile
from github_mcp.services.workspace._status import VENV_DIR
from github_mcp.services.workspace._types import Workspace

MAX_DIFF_CHARS = 1_000_000  # past this the page shows the counts without the diff
_INDEX = "mcp-approval-index"


async def pending_commit(ops: RepoOps, ws: Workspace, paths: list[str] | None) -> PendingCommit:
    """The tree, parent and files (with their line counts and diffs) of the commit to come."""
    index = ws.repo / ".git" / _INDEX
    env = {"GIT_LITERAL_PATHSPECS": "1", "GIT_INDEX_FILE": str(index)}
    try:
        await ops.out(ws, ["read-tree", "HEAD"], "stage", extra_env=env)
        await ops.out(ws, ["add", "-A", "--", *(paths or ["."])], "stage", extra_env=env)
        await ops.run(ws, ["reset", "-q", "--", VENV_DIR], extra_env=env)
        tree = (await ops.out(ws, ["write-tree"], "stage", extra_env=env)).strip()
    finally:
        index.unlink(missing_ok=True)
    parent = await ops.head(ws)
    numstat = await ops.out(ws, ["diff", "--numstat", "-z", "--no-renames", parent, tree], "diff")
    diff = await ops.out(ws, ["diff", "--no-renames", parent, tree], "diff")
    patches = _split(diff) if len(diff) <= MAX_DIFF_CHARS else {}
    files = []
    for entry in (e for e in numstat.split("\0") if e):
        added, removed, path = entry.split("\t", 2)
        files.append(
            PendingFile(
                path, int(added) if added.isdigit() else 0,
                int(removed) if removed.isdigit() else 0, patches.get(path),
            )
        )  # fmt: skip
    return PendingCommit(tree, parent, files)


async def require_commit(ops: RepoOps, ws: Workspace, sha: str, approved: dict[str, str]) -> None:
    """The commit just made must have the approved tree and parent; else it is undone (its
    changes stay staged) and nothing is pushed."""
    tree = (await ops.out(ws, ["rev-parse", f"{sha}^{{tree}}"], "verify")).strip()
    parent = (await ops.out(ws, ["rev-parse", f"{sha}^"], "verify")).strip()
    if tree == approved.get("tree") and parent == approved.get("parent"):
        return
    await ops.out(ws, ["reset", "-q", "--soft", parent], "undo")
    raise GitHubMCPError(
        ErrorCode.CONFLICT,
        "The workspace changed since the human approved this commit (tree "
        f"{approved.get('tree', '')[:12]} on {approved.get('parent', '')[:12]} approved, "
        f"{tree[:12]} on {parent[:12]} found); the commit was undone and nothing was pushed.",
        hint="A fresh approval is needed: call commit_workspace again so the human sees "
        "the workspace's changes as they are now.",
        approved=approved,
    )


def _split(diff: str) -> dict[str, str]:
    """A `git diff` split per file (keyed by the `b/` path of its header)."""
    out: dict[str, str] = {}
    for chunk in diff.split("\ndiff --git ")[0:]:
        text = chunk if chunk.startswith("diff --git ") else "diff --git " + chunk
        header = text.splitlines()[0] if text else ""
        path = header.rpartition(" b/")[2]
        if path:
            out[path] = text
    return out
