"""Reconciling a merge whose answer was lost: the pull request itself says what happened."""

from __future__ import annotations

from typing import Any

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.repos import repo_path

# Failures after which the merge may have happened all the same: a 5xx, a dropped
# connection or a timeout can come after GitHub merged. A refusal (405, 409, 422) cannot.
AMBIGUOUS = {ErrorCode.UPSTREAM_ERROR, ErrorCode.TIMEOUT}


async def merged_after_failure(
    github: GitHubClient,
    full_name: str,
    number: int,
    expected_head_sha: str | None,
    failure: GitHubMCPError,
) -> dict[str, Any] | None:
    """The merge answer to report if the PR is merged despite `failure`, else None.

    A PR merged with the head we were told to merge is ours to report: the caller asked
    for that exact merge, and reporting it failed would make a retry fail as "not
    mergeable" on a PR that is merged."""
    if failure.code not in AMBIGUOUS:
        return None
    try:
        pr = await github.request_json("GET", f"{repo_path(full_name)}/pulls/{number}")
    except GitHubMCPError:
        return None  # cannot tell; the original failure stands
    if not pr.get("merged") or not pr.get("merge_commit_sha"):
        return None
    if expected_head_sha and pr.get("head", {}).get("sha") != expected_head_sha:
        return None
    return {
        "merged": True,
        "sha": pr["merge_commit_sha"],
        "message": "The pull request is merged (read back after the merge answer was lost).",
    }


async def already_merged(
    github: GitHubClient, full_name: str, number: int, failure: GitHubMCPError
) -> dict[str, Any] | None:
    """The answer to a merge refused because the pull request is merged already (a retry
    after a lost answer, say): the merge commit and who merged it, else None."""
    if failure.details.get("status") not in (405, 409, 422):
        return None
    try:
        pr = await github.request_json("GET", f"{repo_path(full_name)}/pulls/{number}")
    except GitHubMCPError:
        return None  # cannot tell; the refusal stands
    if not pr.get("merged") or not pr.get("merge_commit_sha"):
        return None
    return {
        "merged": True,
        "already_merged": True,
        "sha": pr["merge_commit_sha"],
        "merged_by": (pr.get("merged_by") or {}).get("login"),
        "message": "The pull request was already merged; nothing was merged by this call.",
    }
