"""Pull requests: read (overview, diff, comments) and drive (create, update, merge…).

A PR is named by `pr` ('owner/repo#N' or a URL) or by full_name plus number."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.params import Body, Cursor, FullName, Labels, Limit, PrRef, Ref, Title
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services import approved_state
from github_mcp.services import issues as issue_service
from github_mcp.services import pulls as prs
from github_mcp.services.authorship import authored
from github_mcp.services.content import cut_text
from github_mcp.services.pulls import compact_pr, open_pull_request
from github_mcp.tools._pull_targets import pr_state, pr_update_target
from github_mcp.tools.issues import (
    AUTHOR_ASSOCIATION,
    WITHHELD,
    Comment,
    CommentRef,
    clean,
    comment_model,
)
from github_mcp.tools.writes import PullRequestRef, pr_ref_model

TOOLSET = "pull_requests"
Number = Annotated[int, Field(ge=1)]
Sha = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]


class PullList(BaseModel):
    pull_requests: list[PullRequestRef]
    next_cursor: str | None = None


@tool(toolset=TOOLSET)
async def list_pull_requests(
    call: Call,
    full_name: FullName,
    state: Literal["open", "closed", "all"] = "open",
    base: Ref | None = None,
    head: Ref | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> PullList:
    """Pull requests, filtered by state, base or head branch."""
    params: dict[str, Any] = {"state": state}
    if base:
        params["base"] = base
    if head:
        params["head"] = f"{full_name.split('/')[0]}:{head}"
    page = await prs.list_pulls(call.rt.github, full_name, params, limit=limit, cursor=cursor)
    return PullList(
        pull_requests=[pr_ref_model(p) for p in page.items], next_cursor=page.next_cursor
    )


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


FAILED_CONCLUSIONS = {"failure", "timed_out", "cancelled", "action_required", "startup_failure"}


def summarize_checks(runs: list[dict[str, Any]], statuses: list[dict[str, Any]]) -> ChecksSummary:
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


def latest_reviews(reviews: list[dict[str, Any]]) -> list[ReviewState]:
    latest: dict[str, str] = {}
    for review in reviews:
        user = (review.get("user") or {}).get("login") or "?"
        if (
            review.get("state") in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED")
            or user not in latest
        ):
            latest[user] = review.get("state", "COMMENTED")
    return [ReviewState(reviewer=u, state=s) for u, s in sorted(latest.items())]


@tool(toolset=TOOLSET)
async def get_pr_overview(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> PrOverview:
    """One call: metadata, changed files, checks, latest review per reviewer, mergeability."""
    assert full_name and number
    found = await prs.pull_overview(call.rt.github, full_name, number)
    return _overview(found, call.rt.settings.lockdown)


def _overview(found: prs.PullOverview, lockdown: bool) -> PrOverview:
    data, files = found.pull, found.files
    who = authored(data, lockdown)
    body, cut = clean(who.text(data.get("body") or ""), 600)
    shown = sorted(files, key=lambda f: -(f.get("additions", 0) + f.get("deletions", 0)))[:10]
    ref = compact_pr(data)
    return PrOverview(
        number=data["number"],
        title=clean(who.text(ref["title"]), 300)[0],
        state=ref["state"],
        draft=ref["draft"],
        author=ref["author"],
        **who.fields(),
        head=ref["head"],
        head_sha=data["head"]["sha"],
        base=ref["base"],
        url=ref["url"],
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
        reviews=latest_reviews(found.reviews),
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


@tool(toolset=TOOLSET)
async def get_pr_diff(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    path: Annotated[str, Field(max_length=4096)] | None = None,
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
    cursor: Cursor | None = None,
    max_bytes: Annotated[int, Field(ge=1000, le=500_000)] = 40_000,
) -> PrDiff:
    """The PR's diff per file, paged and byte-capped (optionally one path)."""
    assert full_name and number
    page = await prs.pull_files(call.rt.github, full_name, number, limit=limit, cursor=cursor)
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


@tool(toolset=TOOLSET)
async def list_pr_comments(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> PrComments:
    """Review (line) comments and conversation comments, paged, with authors and dates."""
    assert full_name and number
    github = call.rt.github
    review, issue = await asyncio.gather(
        prs.review_comments(github, full_name, number, limit=limit, cursor=cursor),
        issue_service.issue_comments(github, full_name, number, limit=limit, cursor=cursor),
    )
    lockdown = call.rt.settings.lockdown
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


@tool(toolset=TOOLSET, write=True, target="head", ref_arg="base", idempotent=True)
async def create_pull_request(
    call: Call,
    full_name: FullName,
    head: Ref,
    title: Title,
    body: Body = "",
    base: Ref | None = None,
    draft: bool = False,
) -> PullRequestRef:
    """Open a PR from head into base; returns the open one if it already exists."""
    assert base is not None
    pr, existed = await open_pull_request(
        call.rt.github, full_name, head=head, base=base, title=title, body=body, draft=draft
    )
    return pr_ref_model(pr, existed)


@tool(toolset=TOOLSET, write=True, target=pr_update_target, binds=pr_state)
async def update_pull_request(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    title: Title | None = None,
    body: Body | None = None,
    base: Ref | None = None,
) -> PullRequestRef:
    """Change a PR's title, body or base branch (a protected base needs approval)."""
    payload = {
        k: v for k, v in {"title": title, "body": body, "base": base}.items() if v is not None
    }
    if call.bound is not None:  # the PATCH has no precondition: re-read the approved state
        await approved_state.require_pull_state(
            call.rt.github, full_name or "", number or 0, call.bound
        )
    data = await prs.update_pull(call.rt.github, full_name or "", number or 0, payload)
    return pr_ref_model(data)


CommentBody = Annotated[str, Field(min_length=1, max_length=65536)]


@tool(toolset=TOOLSET, write=True, target=None)
async def comment_on_pull_request(
    call: Call,
    body: CommentBody,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> CommentRef:
    """Add a conversation comment to a PR."""
    comment = await issue_service.add_comment(call.rt.github, full_name or "", number or 0, body)
    return CommentRef(id=comment["id"], url=comment["html_url"])


class LabelsResult(BaseModel):
    labels: list[str]


@tool(toolset=TOOLSET, write=True, target=None)
async def add_pr_labels(
    call: Call,
    labels: Labels,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> LabelsResult:
    """Add labels to a PR."""
    if not labels:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "Give at least one label.",
            hint="Give labels as a list of one or more names; list_labels shows them.",
        )
    data = await issue_service.add_labels(call.rt.github, full_name or "", number or 0, labels)
    return LabelsResult(labels=[lb["name"] for lb in data])


class LineComment(BaseModel):
    path: Annotated[str, Field(min_length=1, max_length=4096)]
    line: Annotated[int, Field(ge=1)]
    side: Literal["LEFT", "RIGHT"] = "RIGHT"
    body: CommentBody


class ReviewRef(BaseModel):
    id: int
    state: str
    comments: int


@tool(toolset=TOOLSET, write=True, target=None)
async def create_pr_review(
    call: Call,
    event: Literal["COMMENT", "APPROVE", "REQUEST_CHANGES"],
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    body: Body = "",
    comments: Annotated[list[LineComment], Field(max_length=50)] | None = None,
) -> ReviewRef:
    """Submit a review (COMMENT, APPROVE or REQUEST_CHANGES) with optional line comments."""
    payload: dict[str, Any] = {"event": event, "body": body}
    if comments:
        payload["comments"] = [c.model_dump() for c in comments]
    data = await prs.create_review(call.rt.github, full_name or "", number or 0, payload)
    return ReviewRef(id=data["id"], state=data["state"], comments=len(comments or []))
