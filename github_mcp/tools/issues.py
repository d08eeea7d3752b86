"""Issues: list, read with paged comments, create, update, comment.

User-written text is untrusted: it comes back with invisible and bidi-control
characters removed, capped, and labelled with its author's association with
the repository; in lockdown mode the text of authors without push access is
withheld behind a note naming them."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.params import Body, Cursor, FullName, Labels, Limit, Title
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services import issues as issue_service
from github_mcp.services.authorship import authored
from github_mcp.services.github_json import Issue
from github_mcp.services.issue_views import (
    AUTHOR_ASSOCIATION,
    WITHHELD,
    Comment,
    CommentRef,
    clean,
    comment_model,
)

TOOLSET = "issues"
Number = Annotated[int, Field(ge=1)]
Assignees = Annotated[
    list[Annotated[str, Field(pattern=r"^[A-Za-z0-9-]{1,39}$")]],
    Field(max_length=10, description="Logins; replaces the set, [] clears it."),
]


class IssueSummary(BaseModel):
    number: int
    title: str
    state: str
    labels: list[str]
    author: str | None = None
    author_association: str | None = AUTHOR_ASSOCIATION
    withheld: bool | None = WITHHELD
    comments: int = 0
    updated_at: str | None = None


def _summary(item: Mapping[str, Any], lockdown: bool) -> IssueSummary:
    who = authored(item, lockdown)
    return IssueSummary(
        number=item["number"],
        title=clean(who.text(item.get("title") or ""), 300)[0],
        state=item["state"],
        labels=[lb["name"] if isinstance(lb, dict) else lb for lb in item.get("labels", [])],
        author=who.login,
        **who.fields(),
        comments=item.get("comments", 0),
        updated_at=item.get("updated_at"),
    )


class IssueList(BaseModel):
    issues: list[IssueSummary]
    next_cursor: str | None = None


@tool(toolset=TOOLSET)
async def list_issues(
    call: Call,
    full_name: FullName,
    state: Literal["open", "closed", "all"] = "open",
    labels: Labels | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> IssueList:
    """Issues (not pull requests), newest first."""
    page = await issue_service.list_issues(
        call.rt.github, full_name, state=state, labels=labels, limit=limit, cursor=cursor
    )
    lockdown = call.rt.settings.lockdown
    items = [_summary(i, lockdown) for i in page.items if "pull_request" not in i]
    return IssueList(issues=items, next_cursor=page.next_cursor)


class IssueDetail(IssueSummary):
    body: str
    body_truncated: bool | None = None
    assignees: list[str] = []
    is_pull_request: bool = False
    type: str | None = Field(None, description="Its issue type, in an organisation.")
    url: str
    comment_items: list[Comment]
    next_comments_cursor: str | None = None


@tool(toolset=TOOLSET)
async def get_issue(
    call: Call,
    full_name: FullName,
    number: Number,
    comments_limit: Limit = 30,
    comments_cursor: Cursor | None = None,
) -> IssueDetail:
    """One issue with its body and a page of comments."""
    issue, page = await asyncio.gather(
        issue_service.get_issue(call.rt.github, full_name, number),
        issue_service.issue_comments(
            call.rt.github, full_name, number, limit=comments_limit, cursor=comments_cursor
        ),
    )
    lockdown = call.rt.settings.lockdown
    body, cut = clean(authored(issue, lockdown).text(issue.get("body") or ""))
    summary = _summary(issue, lockdown)
    return IssueDetail(
        **summary.model_dump(),
        body=body,
        body_truncated=cut or None,
        assignees=[a["login"] for a in issue.get("assignees") or []],
        is_pull_request="pull_request" in issue,
        type=clean(kind["name"], 100)[0] or None if (kind := issue.get("type")) else None,
        url=issue["html_url"],
        comment_items=[comment_model(c, lockdown) for c in page.items],
        next_comments_cursor=page.next_cursor,
    )


class IssueRef(BaseModel):
    number: int
    state: str
    title: str
    url: str
    labels: list[str] = []
    assignees: list[str] = []
    milestone: str | None = None


def _ref(issue: Issue) -> IssueRef:
    return IssueRef(
        number=issue["number"],
        state=issue["state"],
        title=clean(issue.get("title"), 300)[0],
        url=issue["html_url"],
        labels=[lb["name"] for lb in issue.get("labels", [])],
        assignees=[a["login"] for a in issue.get("assignees") or []],
        milestone=clean(due["title"], 200)[0] or None if (due := issue.get("milestone")) else None,
    )


@tool(toolset=TOOLSET, write=True, target=None)
async def create_issue(
    call: Call, full_name: FullName, title: Title, body: Body = "", labels: Labels | None = None
) -> IssueRef:
    """Open an issue."""
    payload: dict[str, Any] = {"title": title, "body": body}
    if labels:
        payload["labels"] = labels
    issue = await issue_service.create_issue(call.rt.github, full_name, payload)
    return _ref(issue)


@tool(toolset=TOOLSET, write=True, target=None)
async def update_issue(
    call: Call,
    full_name: FullName,
    number: Number,
    title: Title | None = None,
    body: Body | None = None,
    state: Literal["open", "closed"] | None = None,
    labels: Labels | None = None,
    assignees: Assignees | None = None,
    milestone: Annotated[int, Field(ge=0, description="Milestone number; 0 removes it.")]
    | None = None,
) -> IssueRef:
    """Change an issue's title, body, state, labels, assignees or milestone."""
    fields = {
        "title": title,
        "body": body,
        "state": state,
        "labels": labels,
        "assignees": assignees,
    }
    payload: dict[str, Any] = {k: v for k, v in fields.items() if v is not None}
    if milestone is not None:
        payload["milestone"] = milestone or None
    issue = await issue_service.update_issue(call.rt.github, full_name, number, payload)
    return _ref(issue)


@tool(toolset=TOOLSET, write=True, target=None)
async def comment_on_issue(
    call: Call,
    full_name: FullName,
    number: Number,
    body: Annotated[str, Field(min_length=1, max_length=65536)],
) -> CommentRef:
    """Add a comment to an issue."""
    comment = await issue_service.add_comment(call.rt.github, full_name, number, body)
    return CommentRef(id=comment["id"], url=comment["html_url"])
