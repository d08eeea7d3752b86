"""Pull requests: read (overview, diff, comments) and drive (create, update, merge…).

A PR is named by `pr` ('owner/repo#N' or a URL) or by full_name plus number."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.params import Body, Cursor, FullName, Labels, Limit, PrRef, Ref, Title
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import pulls as prs
from github_mcp.services.pulls import (
    PrComments,
    PrDiff,
    PrOverview,
    PullRequestRef,
    ReviewRef,
    compact_pr,
    issue_views,
    open_pull_request,
)
from github_mcp.services.shared import approved_state
from github_mcp.tools._bindings import head_commits
from github_mcp.tools._pull_targets import pr_state, pr_update_target

TOOLSET = "pull_requests"
Number = Annotated[int, Field(ge=1)]


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
    return PullList(pull_requests=[compact_pr(p) for p in page.items], next_cursor=page.next_cursor)


@tool(toolset=TOOLSET)
async def get_pr_overview(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> PrOverview:
    """One call: metadata, changed files, checks, latest review per reviewer, mergeability."""
    assert full_name and number
    return await prs.pr_overview(
        call.rt.github, full_name, number, lockdown=call.rt.settings.lockdown
    )


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
    return await prs.pr_diff(
        call.rt.github, full_name, number,
        path=path, limit=limit, cursor=cursor, max_bytes=max_bytes,
    )  # fmt: skip


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
    return await prs.pr_comments(
        call.rt.github, full_name, number,
        limit=limit, cursor=cursor, lockdown=call.rt.settings.lockdown,
    )  # fmt: skip


@tool(
    toolset=TOOLSET, write=True, target="head", ref_arg="base", idempotent=True,
    binds=head_commits,
)  # fmt: skip
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
    if call.bound is not None and ":" not in head:  # no precondition: re-read the head
        await approved_state.require_branch_state(call.rt.github, full_name, head, call.bound)
    pr, existed = await open_pull_request(
        call.rt.github, full_name, head=head, base=base, title=title, body=body, draft=draft
    )
    return compact_pr(pr, existed)


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
    return compact_pr(data)


CommentBody = Annotated[str, Field(min_length=1, max_length=65536)]


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    binds=ArgumentsOnly("the comment's body, given in full, is all that is published"),
)
async def comment_on_pull_request(
    call: Call,
    body: CommentBody,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> issue_views.CommentRef:
    """Add a conversation comment to a PR."""
    return await issue_views.comment_on(call.rt.github, full_name or "", number or 0, body)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    binds=ArgumentsOnly("it adds the named labels to the PR"),
)
async def add_pr_labels(
    call: Call,
    labels: Labels,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> issue_views.LabelsResult:
    """Add labels to a PR."""
    if not labels:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "Give at least one label.",
            hint="Give labels as a list of one or more names; list_labels shows them.",
        )
    return await issue_views.label(call.rt.github, full_name or "", number or 0, labels)


class LineComment(BaseModel):
    path: Annotated[str, Field(min_length=1, max_length=4096)]
    line: Annotated[int, Field(ge=1)]
    side: Literal["LEFT", "RIGHT"] = "RIGHT"
    body: CommentBody


@tool(toolset=TOOLSET, write=True, target=None, binds=pr_state)
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
    if call.bound is not None:  # the review is of the head the human saw, or of nothing
        await approved_state.require_pull_state(
            call.rt.github, full_name or "", number or 0, call.bound
        )
    return await prs.create_review(
        call.rt.github, full_name or "", number or 0,
        event=event, body=body, comments=[c.model_dump() for c in comments or []],
        commit_id=call.bound.get("head_sha") if call.bound is not None else None,
    )  # fmt: skip
