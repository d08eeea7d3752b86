"""Branch creation and deletion through the Git refs API."""

from __future__ import annotations

from typing import TypedDict

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, conflict
from github_mcp.services.shared.commit_checks import current_ref
from github_mcp.services.shared.repo_facts import repo_path, resolve_commit_sha


class CreatedBranch(TypedDict):
    """The create_branch tool's BranchCreated fields."""

    branch: str
    sha: str
    created: bool  # False: it already pointed there


async def create_branch(
    github: GitHubClient, full_name: str, branch: str, from_ref: str
) -> CreatedBranch:
    """Create `branch` at `from_ref`; idempotent when it already points there."""
    sha = await resolve_commit_sha(github, full_name, from_ref)
    base = repo_path(full_name)
    try:
        await github.request_json(
            "POST", f"{base}/git/refs", json_body={"ref": f"refs/heads/{branch}", "sha": sha}
        )
    except GitHubMCPError as exc:
        # A refused creation (422: it exists) or a lost answer (5xx, dropped connection,
        # timeout): either way the ref as it now stands tells what happened.
        current = await current_ref(github, full_name, branch)
        if current is None:
            raise  # nothing was created
        if current != sha:
            raise GitHubMCPError(
                ErrorCode.CONFLICT,
                f"Branch {branch} already exists at {current[:12]}, not at {sha[:12]}.",
                hint="Use another branch name, or work on the existing branch.",
                existing_sha=current,
            ) from None
        # After a 422 it was there before us; after a lost answer it is our creation.
        created = exc.code != ErrorCode.UNPROCESSABLE
        return {"branch": branch, "sha": sha, "created": created}
    return {"branch": branch, "sha": sha, "created": True}


async def delete_branch(
    github: GitHubClient, full_name: str, branch: str, expected_sha: str | None = None
) -> str:
    """Delete a branch; returns the SHA it pointed at (to restore it if needed). With
    `expected_sha` (the approved head) a branch that moved is left alone: `conflict`."""
    ref_path = f"{repo_path(full_name)}/git/refs/heads/{encode_path(branch)}"
    current = await github.request_json("GET", ref_path.replace("/git/refs/", "/git/ref/"))
    sha = str(current["object"]["sha"])
    if expected_sha is not None and sha != expected_sha:
        raise conflict(
            f"{branch} is at {sha[:12]} now, not at the approved {expected_sha[:12]}; "
            "nothing was deleted.",
            hint="A fresh approval is needed: call the tool again so the human sees it.",
            approved_sha=expected_sha,
            actual_sha=sha,
        )
    await github.request_json("DELETE", ref_path)
    return sha


async def branch_head(github: GitHubClient, full_name: str, branch: str) -> str | None:
    """The SHA the branch points at on GitHub, or None when there is no such branch."""
    return await current_ref(github, full_name, branch)
