"""A merge's outcome, and reconciling a merge whose answer was lost: the pull request
itself says what happened."""

from __future__ import annotations

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.shared.github_json import PullRequest
from github_mcp.services.shared.repo_facts import repo_path

# Failures after which the merge may have happened all the same: a 5xx, a dropped
# connection or a timeout can come after GitHub merged. A refusal (405, 409, 422) cannot.
AMBIGUOUS = {ErrorCode.UPSTREAM_ERROR, ErrorCode.TIMEOUT}


class PullMerge(BaseModel):  # what a merge did: its commit, and the base it went into
    merged: bool
    sha: str
    message: str = ""
    method: str
    base: str | None = Field(None, description="The base branch merged into.")
    already_merged: bool = Field(
        False, description="The PR was merged before this call; this call merged nothing."
    )
    merged_by: str | None = Field(None, description="Who merged it (GitHub login).")


async def _merged_pull(github: GitHubClient, full_name: str, number: int) -> PullRequest | None:
    """The PR if it reads back merged with a merge commit; None if not, or unreadable."""
    try:
        pr: PullRequest = await github.request_json("GET", f"{repo_path(full_name)}/pulls/{number}")
    except GitHubMCPError:
        return None  # cannot tell; the original failure stands
    return pr if pr.get("merged") and pr.get("merge_commit_sha") else None


async def merged_after_failure(
    github: GitHubClient,
    full_name: str,
    number: int,
    expected_head_sha: str | None,
    failure: GitHubMCPError,
    method: str,
) -> PullMerge | None:
    """The merge answer to report if the PR is merged despite `failure`, else None.

    A PR merged with the head we were told to merge is ours to report: the caller asked
    for that exact merge, and reporting it failed would make a retry fail as "not
    mergeable" on a PR that is merged."""
    if failure.code not in AMBIGUOUS:
        return None
    pr = await _merged_pull(github, full_name, number)
    if pr is None or (expected_head_sha and pr["head"]["sha"] != expected_head_sha):
        return None
    return PullMerge(
        merged=True,
        sha=pr.get("merge_commit_sha") or "",
        message="The pull request is merged (read back after the merge answer was lost).",
        method=method,
    )


async def already_merged(
    github: GitHubClient, full_name: str, number: int, failure: GitHubMCPError, method: str
) -> PullMerge | None:
    """The answer to a merge refused because the pull request is merged already (a retry
    after a lost answer, say): the merge commit and who merged it, else None."""
    if failure.details.get("status") not in (405, 409, 422):
        return None
    pr = await _merged_pull(github, full_name, number)
    if pr is None:
        return None
    return PullMerge(
        merged=True,
        already_merged=True,
        sha=pr.get("merge_commit_sha") or "",
        merged_by=by["login"] if (by := pr.get("merged_by")) else None,
        message="The pull request was already merged; nothing was merged by this call.",
        method=method,
    )
