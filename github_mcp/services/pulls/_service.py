"""Pull-request operations: idempotent creation, updates, merges, reviews."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from github_mcp.github.client import (
    GitHubClient,
    Page,
)
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, conflict
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.pulls._reconcile import PullMerge, already_merged, merged_after_failure
from github_mcp.services.shared.approved_state import new_commits
from github_mcp.services.shared.github_json import PullRequest, PullReview
from github_mcp.services.shared.repo_facts import get_pull as get_pull  # the package face
from github_mcp.services.shared.repo_facts import (
    repo_path,
)

OPEN_RETRIES = 3


async def find_open_pr(
    github: GitHubClient, full_name: str, head: str, base: str | None
) -> PullRequest | None:
    owner = full_name.split("/", 1)[0]
    params: dict[str, Any] = {"state": "open", "head": f"{owner}:{head}", "per_page": 10}
    if base:
        params["base"] = base
    items: list[PullRequest] = await github.request_json(
        "GET", f"{repo_path(full_name)}/pulls", params=params
    )
    return items[0] if items else None


async def open_pull_request(
    github: GitHubClient,
    full_name: str,
    *,
    head: str,
    base: str,
    title: str,
    body: str = "",
    draft: bool = False,
    known_absent: bool = False,
) -> tuple[PullRequest, bool]:
    """Open a PR, or return the open one for the same head and base.

    POST /pulls is not idempotent, so a failed attempt is retried only after a
    pre-check shows no PR was created. `known_absent` skips the first pre-check when
    the caller just made it (a PR created meanwhile makes the POST fail with 422, and
    is then found and returned). Returns (pr, already_existed)."""
    existing = None if known_absent else await find_open_pr(github, full_name, head, base)
    if existing:
        return existing, True
    last: GitHubMCPError | None = None
    for _ in range(OPEN_RETRIES):
        try:
            pr: PullRequest = await github.request_json(
                "POST",
                f"{repo_path(full_name)}/pulls",
                json_body={
                    "head": head,
                    "base": base,
                    "title": title,
                    "body": body,
                    "draft": draft,
                },
            )
            return pr, False
        except GitHubMCPError as exc:
            last = exc
            if exc.code not in (
                ErrorCode.UPSTREAM_ERROR,
                ErrorCode.TIMEOUT,
                ErrorCode.UNPROCESSABLE,
            ):
                raise
            existing = await find_open_pr(github, full_name, head, base)
            if existing:
                # After a lost answer the PR found is our own; after a 422 it is a racer's.
                return existing, exc.code == ErrorCode.UNPROCESSABLE
            if exc.code == ErrorCode.UNPROCESSABLE:
                raise
    assert last is not None
    raise last


async def merge_pull(
    github: GitHubClient,
    full_name: str,
    number: int,
    *,
    method: str,
    expected_head_sha: str | None,
    commit_title: str | None,
    commit_message: str | None,
    expected_base: str | None = None,
) -> PullMerge:
    """Merge a PR. With `expected_base` (the base the write was authorised for), the
    PR is re-read uncached first and the merge refused with `conflict` if its base
    changed: GitHub's merge call itself has no base precondition. The result names
    the base read back after the merge, so the audit trail records the real one."""
    if expected_base is not None:
        await _require_base(github, full_name, number, expected_base)
    body: dict[str, Any] = {"merge_method": method, "sha": expected_head_sha}
    body |= {"commit_title": commit_title, "commit_message": commit_message}
    body = {key: value for key, value in body.items() if value}
    try:
        answer = await github.request_json(
            "PUT", f"{repo_path(full_name)}/pulls/{number}/merge", json_body=body
        )
    except GitHubMCPError as exc:
        merged = await merged_after_failure(
            github, full_name, number, expected_head_sha, exc, method
        )
        if merged is None:
            merged = await already_merged(github, full_name, number, exc, method)
        if merged is not None:
            return merged
        raise await _merge_refused(github, full_name, number, expected_head_sha, exc) from None
    result = PullMerge(
        merged=bool(answer.get("merged")),
        sha=answer.get("sha", ""),
        message=answer.get("message", ""),
        method=method,
    )
    if expected_base is not None:
        result.base = await _base_after_merge(github, full_name, number)
    return result


async def _merge_refused(
    github: GitHubClient,
    full_name: str,
    number: int,
    expected_head_sha: str | None,
    exc: GitHubMCPError,
) -> GitHubMCPError:
    """What a merge GitHub refused (and that did not happen) is reported as."""
    if exc.details.get("status") == 409 and expected_head_sha:
        return await _head_moved(github, full_name, number, expected_head_sha)
    if exc.details.get("status") == 405 and exc.code != ErrorCode.RULE_VIOLATION:
        return GitHubMCPError(
            ErrorCode.UNPROCESSABLE,
            "The pull request is not mergeable.",
            hint="check_merge_readiness lists what blocks it.",
        )
    return exc


async def _head_moved(
    github: GitHubClient, full_name: str, number: int, expected: str
) -> GitHubMCPError:
    """GitHub's 409 "Head branch was modified": the head is not the approved one. The
    error names the commits that arrived since."""
    try:
        now = str((await get_pull(github, full_name, number))["head"]["sha"])
    except GitHubMCPError:
        now = "unknown"
    commits = await new_commits(github, full_name, expected, now) if now != "unknown" else []
    listed = "; new commits: " + ", ".join(commits) if commits else ""
    return conflict(
        f"The PR head moved from {expected[:12]} (the approved head) to {now[:12]}{listed}. "
        "Nothing was merged.",
        hint="A fresh approval is needed: review the new commits, then call the tool again "
        "so the human sees the new head.",
        approved_head_sha=expected,
        head_sha=now,
        new_commits=commits,
    )


async def _require_base(github: GitHubClient, full_name: str, number: int, expected: str) -> None:
    current = await get_pull(github, full_name, number)
    actual = current["base"]["ref"]
    if actual != expected:
        raise conflict(
            f"The pull request's base is now {actual}, not {expected}, the branch this "
            "merge was authorised for; nothing was merged.",
            hint="Re-read the PR (get_pr_overview) and merge again if the new base is right.",
            actual_base=actual,
        )


async def _base_after_merge(github: GitHubClient, full_name: str, number: int) -> str | None:
    try:
        return (await get_pull(github, full_name, number))["base"]["ref"]
    except GitHubMCPError:
        return None  # the merge happened; a failed read-back must not turn it into an error


# A pull request in a line: what the PR tools answer with (no docstring: it would be
# listed as the output schema's description).
class PullRequestRef(BaseModel):
    number: int
    title: str
    state: str
    draft: bool
    head: str
    head_sha: str
    base: str
    author: str | None = None
    url: str
    already_existed: bool = False


def compact_pr(pr: Mapping[str, Any], already_existed: bool = False) -> PullRequestRef:
    return PullRequestRef(
        number=pr["number"],
        title=strip_invisible(pr.get("title") or ""),
        state="merged" if pr.get("merged_at") else pr["state"],
        draft=bool(pr.get("draft")),
        head=pr["head"]["ref"],
        head_sha=pr["head"]["sha"],
        base=pr["base"]["ref"],
        author=(pr.get("user") or {}).get("login"),
        url=pr["html_url"],
        already_existed=already_existed,
    )


async def list_pulls(
    github: GitHubClient, full_name: str, params: dict[str, Any], *, limit: int, cursor: str | None
) -> Page:
    return await github.paginate(
        f"{repo_path(full_name)}/pulls", params=params, limit=limit, cursor=cursor
    )


async def pull_files(
    github: GitHubClient, full_name: str, number: int, *, limit: int, cursor: str | None
) -> Page:
    return await github.paginate(
        f"{repo_path(full_name)}/pulls/{number}/files", limit=limit, cursor=cursor
    )


async def review_comments(
    github: GitHubClient, full_name: str, number: int, *, limit: int, cursor: str | None
) -> Page:
    return await github.paginate(
        f"{repo_path(full_name)}/pulls/{number}/comments", limit=limit, cursor=cursor
    )


async def update_pull(
    github: GitHubClient, full_name: str, number: int, fields: dict[str, Any]
) -> PullRequest:
    data: PullRequest = await github.request_json(
        "PATCH", f"{repo_path(full_name)}/pulls/{number}", json_body=fields
    )
    return data


class ReviewRef(BaseModel):
    id: int
    state: str
    comments: int


async def create_review(
    github: GitHubClient,
    full_name: str,
    number: int,
    *,
    event: str,
    body: str,
    comments: list[dict[str, Any]],
    commit_id: str | None = None,
) -> ReviewRef:
    """Submit a review with its line comments (path, line, side, body each), of
    `commit_id` when given (the head an approval names) rather than the PR's latest."""
    payload: dict[str, Any] = {"event": event, "body": body}
    if commit_id:
        payload["commit_id"] = commit_id
    if comments:
        payload["comments"] = comments
    data: PullReview = await github.request_json(
        "POST", f"{repo_path(full_name)}/pulls/{number}/reviews", json_body=payload
    )
    return ReviewRef(id=data["id"], state=data["state"], comments=len(comments))
