"""A pull request as the read tools show it: the overview, the diff and the comments, built
here as the models that are the tools' output schemas, so data and schema cannot drift."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient
from github_mcp.services.actions import FAILED_CONCLUSIONS
from github_mcp.services.issues import issues as issue_service
from github_mcp.services.issues.issue_views import (
    AUTHOR_ASSOCIATION,
    WITHHELD,
    Comment,
    clean,
    comment_model,
)
from github_mcp.services.pulls._overview import (
    CheckRunState,
    OverviewReview,
    PullOverview,
    StatusState,
    pull_overview,
)
from github_mcp.services.pulls._service import compact_pr, pull_files, review_comments
from github_mcp.services.shared.authorship import authored
from github_mcp.services.shared.content import cut_text

SHOWN_FILES = 10


class ChangedFile(BaseModel):
    path: str
    status: str
    additions: int
    deletions: int


class ChecksSummary(BaseModel):
    total: int
    passed: int
    failed: int
    pending: int
    failing: list[str] = []


class ReviewState(BaseModel):
    reviewer: str
    state: str


class PrOverview(BaseModel):
    number: int
    title: str
    state: str
    draft: bool
    author: str | None = None
    author_association: str | None = AUTHOR_ASSOCIATION
    withheld: bool | None = WITHHELD
    head: str
    head_sha: str
    base: str
    url: str
    body: str
    body_truncated: bool | None = None
    mergeable: bool | None = None
    mergeable_state: str | None = None
    commits: int
    changed_files: int
    additions: int
    deletions: int
    files: list[ChangedFile]
    more_files: int | None = None
    checks: ChecksSummary
    reviews: list[ReviewState]


def summarize_checks(runs: list[CheckRunState], statuses: list[StatusState]) -> ChecksSummary:
    passed = failed = pending = 0
    failing: list[str] = []
    for run in runs:
        if run.get("status") != "completed":
            pending += 1
        elif run.get("conclusion") in FAILED_CONCLUSIONS:
            failed += 1
            failing.append(run["name"])
        else:
            passed += 1
    for status in statuses:
        state = status.get("state")
        if state == "pending":
            pending += 1
        elif state in ("failure", "error"):
            failed += 1
            failing.append(status.get("context", "status"))
        else:
            passed += 1
    return ChecksSummary(
        total=passed + failed + pending,
        passed=passed,
        failed=failed,
        pending=pending,
        failing=failing[:10],
    )


def review_states(reviews: list[OverviewReview]) -> list[ReviewState]:
    """Each reviewer's latest deciding review, else their latest one."""
    latest: dict[str, str] = {}
    for review in reviews:
        user = (review.get("user") or {}).get("login") or "?"
        if (
            review.get("state") in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED")
            or user not in latest
        ):
            latest[user] = review.get("state", "COMMENTED")
    return [ReviewState(reviewer=u, state=s) for u, s in sorted(latest.items())]


async def pr_overview(
    github: GitHubClient, full_name: str, number: int, *, lockdown: bool
) -> PrOverview:
    """Metadata, the largest changed files, checks, the latest review per reviewer."""
    return overview_of(await pull_overview(github, full_name, number), lockdown)


def overview_of(found: PullOverview, lockdown: bool) -> PrOverview:
    data, files = found.pull, found.files
    who = authored(data, lockdown)
    body, cut = clean(who.text(data.get("body") or ""), 600)
    shown = sorted(files, key=lambda f: -(f.get("additions", 0) + f.get("deletions", 0)))
    shown = shown[:SHOWN_FILES]
    ref = compact_pr(data)
    return PrOverview(
        number=data["number"],
        title=clean(who.text(ref.title), 300)[0],
        state=ref.state,
        draft=ref.draft,
        author=ref.author,
        **who.fields(),
        head=ref.head,
        head_sha=data["head"]["sha"],
        base=ref.base,
        url=ref.url,
        body=body,
        body_truncated=cut or None,
        mergeable=data.get("mergeable"),
        mergeable_state=data.get("mergeable_state"),
        commits=data.get("commits", 0),
        changed_files=data.get("changed_files", len(files)),
        additions=data.get("additions", 0),
        deletions=data.get("deletions", 0),
        files=[
            ChangedFile(
                path=f["filename"],
                status=f["status"],
                additions=f.get("additions", 0),
                deletions=f.get("deletions", 0),
            )
            for f in shown
        ],
        more_files=(len(files) - len(shown)) or None,
        checks=summarize_checks(found.check_runs, found.statuses),
        reviews=review_states(found.reviews),
    )


class FileDiff(BaseModel):
    path: str
    status: str
    additions: int
    deletions: int
    patch: str | None = None
    patch_truncated: bool | None = None
    previous_path: str | None = None


class PrDiff(BaseModel):
    number: int
    files: list[FileDiff]
    next_cursor: str | None = None
    bytes: int


async def pr_diff(
    github: GitHubClient,
    full_name: str,
    number: int,
    *,
    path: str | None,
    limit: int,
    cursor: str | None,
    max_bytes: int,
) -> PrDiff:
    """A page of the PR's files with their patches, `max_bytes` of patch text in all."""
    page = await pull_files(github, full_name, number, limit=limit, cursor=cursor)
    budget = max_bytes
    out: list[FileDiff] = []
    for f in page.items:
        if path and f["filename"] != path:
            continue
        patch, cut = cut_text(f.get("patch") or "", max(budget, 0))
        budget -= len(patch.encode())
        out.append(
            FileDiff(
                path=f["filename"],
                status=f["status"],
                additions=f.get("additions", 0),
                deletions=f.get("deletions", 0),
                patch=patch or None,
                patch_truncated=cut or None,
                previous_path=f.get("previous_filename"),
            )
        )
    return PrDiff(
        number=number, files=out, next_cursor=page.next_cursor, bytes=max_bytes - max(budget, 0)
    )


class ReviewComment(Comment):
    path: str | None = None
    line: int | None = None
    in_reply_to: int | None = None


class PrComments(BaseModel):
    review_comments: list[ReviewComment]
    issue_comments: list[Comment]
    next_cursor: str | None = None


async def pr_comments(
    github: GitHubClient,
    full_name: str,
    number: int,
    *,
    limit: int,
    cursor: str | None,
    lockdown: bool,
) -> PrComments:
    """A page of review (line) comments and of conversation comments."""
    review, issue = await asyncio.gather(
        review_comments(github, full_name, number, limit=limit, cursor=cursor),
        issue_service.issue_comments(github, full_name, number, limit=limit, cursor=cursor),
    )
    return PrComments(
        review_comments=[
            ReviewComment(
                **comment_model(c, lockdown).model_dump(),
                path=c.get("path"),
                line=c.get("line"),
                in_reply_to=c.get("in_reply_to_id"),
            )
            for c in review.items
        ],
        issue_comments=[comment_model(c, lockdown) for c in issue.items],
        next_cursor=review.next_cursor or issue.next_cursor,
    )
