"""Reading what a commit holds, for the commit engine (`commits`) and the signed path
(`signed_commits`): tree entries at given paths (recursive listing, walked level by level
when GitHub truncates it), where a branch points, and the check that a commit landed with
exactly the blobs that were sent."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.content import git_blob_sha
from github_mcp.services.github_json import GitRef
from github_mcp.services.repos import repo_path

if TYPE_CHECKING:
    from github_mcp.services.commits import Change


async def _tree(github: GitHubClient, full_name: str, tree_sha: str, recursive: bool) -> Any:
    return await github.get_json(
        f"{repo_path(full_name)}/git/trees/{tree_sha}",
        params={"recursive": "1"} if recursive else None,
        immutable=True,
        repo=full_name,
    )


async def tree_listing(
    github: GitHubClient, full_name: str, tree_sha: str, paths: set[str]
) -> dict[str, dict[str, Any]]:
    """The tree entries (path, mode, type, sha) of `paths` in a tree; absent ones left out."""
    data = await _tree(github, full_name, tree_sha, True)
    found = {e["path"]: e for e in data.get("tree", []) if e["path"] in paths}
    if data.get("truncated"):
        # A truncated listing may miss them: walk down to each, one level at a time.
        missing = sorted(paths - set(found))
        got = await asyncio.gather(*(_walk(github, full_name, tree_sha, p) for p in missing))
        found |= {p: entry for p, entry in zip(missing, got, strict=True) if entry}
    return found


async def blob_shas(
    github: GitHubClient, full_name: str, tree_sha: str, paths: set[str]
) -> dict[str, str]:
    """Blob shas of `paths` in a tree (paths that are not blobs there are left out)."""
    listing = await tree_listing(github, full_name, tree_sha, paths)
    return {p: e["sha"] for p, e in listing.items() if e.get("type") == "blob"}


async def _walk(
    github: GitHubClient, full_name: str, tree_sha: str, path: str
) -> dict[str, Any] | None:
    *dirs, name = path.split("/")
    entry: dict[str, Any] | None = None
    for last, segment in [*((False, d) for d in dirs), (True, name)]:
        entries = (await _tree(github, full_name, tree_sha, False)).get("tree", [])
        entry = next((e for e in entries if e["path"] == segment), None)
        if entry is None or (not last and entry.get("type") != "tree"):
            return None
        tree_sha = entry["sha"]
    return None if entry is None else {**entry, "path": path}


async def current_ref(github: GitHubClient, full_name: str, branch: str) -> str | None:
    try:
        data: GitRef = await github.request_json(
            "GET", f"{repo_path(full_name)}/git/ref/heads/{encode_path(branch)}"
        )
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:
            return None
        raise
    return data["object"]["sha"]


async def contains(github: GitHubClient, full_name: str, branch_sha: str, commit_sha: str) -> bool:
    """Whether commit_sha is in branch_sha's history (another write landed right after ours)."""
    data = await github.request_json(
        "GET", f"{repo_path(full_name)}/compare/{commit_sha}...{branch_sha}"
    )
    return data.get("status") in ("ahead", "identical")


async def verify_commit(
    github: GitHubClient,
    full_name: str,
    branch: str,
    commit_sha: str,
    branch_sha: str | None,
    actual: dict[str, str],
    changes: list[Change],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Check the branch points at the commit (or has moved on from it) and each blob hash
    in the commit's tree matches the git hash of what we sent.

    `branch_sha` is where GitHub's answer to the ref update says the branch now points
    (read afresh when it did not say); `actual` maps paths to blob shas in the new tree."""
    ref_sha = branch_sha or await current_ref(github, full_name, branch)
    landed = ref_sha == commit_sha or (
        ref_sha is not None and await contains(github, full_name, ref_sha, commit_sha)
    )
    files, all_ok = [], landed
    for change in changes:
        data = change.data
        expected = git_blob_sha(data) if data is not None else None
        got = actual.get(change.path)
        ok = got == expected
        all_ok &= ok
        files.append(
            {
                "path": change.path,
                "status": "deleted" if data is None else "written",
                "sha": got,
                "ok": ok,
            }
        )
    return {
        "verified": all_ok,
        "commit_sha": commit_sha,
        "branch_sha": ref_sha,
        "files_checked": len(files),
    }, files
