"""What the pull-request automation services share: reading a PR, waiting (bounded) for
GitHub to compute its mergeability, reviews per reviewer, and how a PR is named in the
tool calls they suggest.

The services themselves: `pr_comments` (unresolved review threads), `pr_conflicts`
(conflicting files), `pr_readiness` (merge readiness), `pr_stack` (stacked PRs).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from github_mcp.github.client import (
    GitHubClient,
)
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services import actions as ci
from github_mcp.services.pulls._service import get_pull
from github_mcp.services.shared.github_json import PullRequest, PullReview
from github_mcp.services.shared.repo_facts import (
    repo_path,
)

ProgressFn = Callable[[float, float | None, str], Awaitable[None]]
MAX_WAIT_SECONDS = 600.0


def pr_label(full_name: str, number: int) -> str:
    return f"{full_name}#{number}"


def is_bot(login: str | None, typename: str | None = None) -> bool:
    return typename == "Bot" or bool(login and login.endswith("[bot]"))


async def wait_mergeable(
    github: GitHubClient,
    full_name: str,
    number: int,
    *,
    timeout_s: float,
    interval_s: float,
    on_progress: ProgressFn | None = None,
) -> tuple[PullRequest, bool]:
    """The PR once GitHub has computed `mergeable` (or the deadline passed): (pr, computed).

    GitHub computes mergeability in the background after a push and answers null until
    then; each GET nudges it."""

    async def load() -> PullRequest:
        return await get_pull(github, full_name, number)

    def computed(pr: PullRequest) -> bool:
        return pr.get("state") != "open" or pr.get("mergeable") is not None

    async def report(pr: PullRequest, polls: int, elapsed: float) -> None:
        if on_progress is not None and not computed(pr):
            await on_progress(elapsed, timeout_s, f"waiting for GitHub's mergeability (#{polls})")

    polled = await ci.poll(
        load,
        computed,
        timeout_s=min(timeout_s, MAX_WAIT_SECONDS),
        interval_s=interval_s,
        max_interval_s=5.0,
        on_poll=report,
    )
    return polled.value, polled.done


def latest_reviews(reviews: list[PullReview]) -> dict[str, PullReview]:
    """Each reviewer's deciding review, as GitHub counts them: the latest APPROVED,
    CHANGES_REQUESTED or DISMISSED one; a later COMMENTED review changes nothing."""
    deciding = ("APPROVED", "CHANGES_REQUESTED", "DISMISSED")
    latest: dict[str, PullReview] = {}
    ordered = sorted(reviews, key=lambda r: (r.get("submitted_at") or "", r.get("id") or 0))
    for review in ordered:
        login = user["login"] if (user := review.get("user")) else None
        if not login or review.get("state") == "PENDING":
            continue
        if review.get("state") in deciding or login not in latest:
            latest[login] = review
    return latest


async def pull_reviews(github: GitHubClient, full_name: str, number: int) -> list[PullReview]:
    reviews: list[PullReview] = await github.collect(
        f"{repo_path(full_name)}/pulls/{number}/reviews", max_items=500
    )
    return reviews


def require_open(pr: PullRequest, full_name: str) -> None:
    if pr.get("state") != "open":
        state = "merged" if pr.get("merged_at") else "closed"
        raise GitHubMCPError(
            ErrorCode.UNPROCESSABLE,
            f"{pr_label(full_name, pr['number'])} is {state}.",
            hint="This needs an open pull request.",
        )
