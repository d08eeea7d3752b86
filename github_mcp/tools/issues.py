"""Issues: list, read with paged comments, create, update, comment.

User-written text is untrusted: it comes back with invisible and bidi-control
characters removed, capped, and labelled with its author's association with
the repository; in lockdown mode the text of authors without push access is
withheld behind a note naming them (services/issue_views.py)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from github_mcp.kernel.params import Body, Cursor, FullName, Labels, Limit, Title
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import issue_views
from github_mcp.services.issue_views import CommentRef, IssueDetail, IssueList, IssueRef

TOOLSET = "issues"
Number = Annotated[int, Field(ge=1)]
Assignees = Annotated[
    list[Annotated[str, Field(pattern=r"^[A-Za-z0-9-]{1,39}$")]],
    Field(max_length=10, description="Logins; replaces the set, [] clears it."),
]


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
    return await issue_views.issue_list(
        call.rt.github, full_name, state=state, labels=labels, limit=limit, cursor=cursor,
        lockdown=call.rt.settings.lockdown,
    )  # fmt: skip


@tool(toolset=TOOLSET)
async def get_issue(
    call: Call,
    full_name: FullName,
    number: Number,
    comments_limit: Limit = 30,
    comments_cursor: Cursor | None = None,
) -> IssueDetail:
    """One issue with its body, a page of comments, its parent and sub-issue counts."""
    return await issue_views.issue_detail(
        call.rt.github, full_name, number, comments_limit=comments_limit,
        comments_cursor=comments_cursor, lockdown=call.rt.settings.lockdown,
    )  # fmt: skip


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    binds=ArgumentsOnly("a new issue holds exactly the title, body and labels given"),
)
async def create_issue(
    call: Call, full_name: FullName, title: Title, body: Body = "", labels: Labels | None = None
) -> IssueRef:
    """Open an issue."""
    payload: dict[str, Any] = {"title": title, "body": body}
    if labels:
        payload["labels"] = labels
    return await issue_views.open_issue(call.rt.github, full_name, payload)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    binds=ArgumentsOnly(
        "each field given replaces the issue's own; fields not given are left as they are"
    ),
)
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
    return await issue_views.edit_issue(call.rt.github, full_name, number, payload)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    binds=ArgumentsOnly("the comment's body, given in full, is all that is published"),
)
async def comment_on_issue(
    call: Call,
    full_name: FullName,
    number: Number,
    body: Annotated[str, Field(min_length=1, max_length=65536)],
) -> CommentRef:
    """Add a comment to an issue."""
    return await issue_views.comment_on(call.rt.github, full_name, number, body)
