"""Issues: list, read with paged comments, create, update, comment.

User-written text is untrusted: it comes back with invisible and bidi-control
characters removed, capped, and labelled with its author's association with
the repository; in lockdown mode the text of authors without push access is
withheld behind a note naming them (services/issues/issue_views.py).

Labels: read a repository's labels, create, update and delete them.

Label writes change no branch: they are unscoped writes and need a human's approval
(a rename or a delete reaches every issue and pull request carrying the label).

Reactions on issues, pull requests and their comments: list them, add one.

A reaction changes no branch but is public activity under your name: an unscoped write
that needs a human's approval, like a comment. Listing is a read.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import Body, Cursor, FullName, Labels, Limit, Title
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services.issues import issue_views
from github_mcp.services.issues import labels as label_service
from github_mcp.services.issues import reactions as reaction_service
from github_mcp.services.issues.issue_views import CommentRef, IssueDetail, IssueList, IssueRef
from github_mcp.services.issues.labels import Label, LabelDeleted, LabelPage
from github_mcp.services.issues.reactions import Reaction, ReactionPage

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


LabelName = Annotated[str, Field(min_length=1, max_length=100, description="Label name.")]
Color = Annotated[str, Field(pattern=r"^#?[0-9a-fA-F]{6}$", description="Hex colour, e.g. d73a4a.")]
Description = Annotated[str, Field(max_length=100)]


@tool(toolset="labels")
async def list_labels(
    call: Call, full_name: FullName, limit: Limit = 100, cursor: Cursor | None = None
) -> LabelPage:
    """A repository's labels with colour and description."""
    return await label_service.list_labels(call.rt.github, full_name, limit=limit, cursor=cursor)


@tool(toolset="labels")
async def get_label(call: Call, full_name: FullName, name: LabelName) -> Label:
    """One label by name."""
    return await label_service.get_label(call.rt.github, full_name, name)


@tool(
    toolset="labels",
    write=True,
    target=None,
    binds=ArgumentsOnly("a label is its name, colour and description, all given"),
)
async def create_label(
    call: Call,
    full_name: FullName,
    name: LabelName,
    color: Color = "ededed",
    description: Description | None = None,
) -> Label:
    """Create a label."""
    fields: dict[str, Any] = {"name": name, "color": color.lstrip("#").lower()}
    if description is not None:
        fields["description"] = description
    return await label_service.create_label(call.rt.github, full_name, fields)


@tool(
    toolset="labels",
    write=True,
    target=None,
    binds=ArgumentsOnly(
        "the label keeps what is not given and takes the name, colour and description given"
    ),
)
async def update_label(
    call: Call,
    full_name: FullName,
    name: LabelName,
    new_name: LabelName | None = None,
    color: Color | None = None,
    description: Description | None = None,
) -> Label:
    """Rename, recolour or describe a label (issues carrying it follow a rename)."""
    fields: dict[str, Any] = {"new_name": new_name, "description": description}
    fields = {k: v for k, v in fields.items() if v is not None}
    if color is not None:
        fields["color"] = color.lstrip("#").lower()
    if not fields:
        raise invalid_input("nothing to change", hint="Give new_name, color or description.")
    return await label_service.update_label(call.rt.github, full_name, name, fields)


@tool(
    toolset="labels",
    write=True,
    target=None,
    destructive=True,
    binds=ArgumentsOnly("it deletes the label of the given name, wherever it is used"),
)
async def delete_label(call: Call, full_name: FullName, name: LabelName) -> LabelDeleted:
    """Delete a label; it is removed from every issue and pull request."""
    return await label_service.delete_label(call.rt.github, full_name, name)


Subject = Literal["issue", "issue_comment", "review_comment"]
SubjectId = Annotated[int, Field(ge=1, description="Issue or PR number, or comment id.")]
Content = Literal["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"]


@tool(
    toolset="reactions",
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it adds the given reaction to the named subject"),
)
async def add_reaction(
    call: Call, full_name: FullName, on: Subject, subject_id: SubjectId, content: Content
) -> Reaction:
    """React to an issue or PR, an issue comment or a review comment (twice is a no-op)."""
    return await reaction_service.add_reaction(call.rt.github, full_name, on, subject_id, content)


@tool(toolset="reactions")
async def list_reactions(
    call: Call,
    full_name: FullName,
    on: Subject,
    subject_id: SubjectId,
    content: Content | None = None,
    limit: Limit = 100,
    cursor: Cursor | None = None,
) -> ReactionPage:
    """Who reacted with what on an issue or PR, an issue comment or a review comment."""
    return await reaction_service.list_reactions(
        call.rt.github, full_name, on, subject_id, content=content, limit=limit, cursor=cursor
    )
