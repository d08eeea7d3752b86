"""Planning across issues: sub-issues, "blocked by" dependencies, and similar open issues.

Linking issues changes no branch but edits issues others read: an unscoped write that
needs a human's approval, like an issue comment. Both ends are issues of one repository,
so the allow-list covers them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import duplicates
from github_mcp.services import issue_planning as service
from github_mcp.services import issues as issue_service
from github_mcp.services.duplicates import SimilarIssues
from github_mcp.services.issue_planning import Dependencies, MilestonePage, SubIssues

TOOLSET = "issue_planning"
Number = Annotated[int, Field(ge=1)]
OtherNumber = Annotated[int, Field(ge=1, description="An issue number in the same repository.")]


@tool(toolset=TOOLSET)
async def list_sub_issues(
    call: Call,
    full_name: FullName,
    number: Number,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> SubIssues:
    """An issue's sub-issues in priority order."""
    return await service.list_sub_issues(
        call.rt.github, full_name, number, limit=limit, cursor=cursor
    )


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    binds=ArgumentsOnly(
        "it links, unlinks or reorders the named issues of one repository, by number"
    ),
)
async def change_sub_issue(
    call: Call,
    full_name: FullName,
    number: Annotated[int, Field(ge=1, description="The parent issue.")],
    action: Literal["add", "remove", "reprioritize"],
    sub_issue: OtherNumber,
    replace_parent: bool = False,
    after: OtherNumber | None = None,
    before: OtherNumber | None = None,
) -> SubIssues:
    """Add, remove or move (after/before a sibling) a sub-issue; returns the new order."""
    github = call.rt.github
    await service.change_sub_issue(
        github,
        full_name,
        number,
        action,
        sub_issue,
        replace_parent=replace_parent,
        after=after,
        before=before,
    )
    return await service.list_sub_issues(github, full_name, number, limit=100, cursor=None)


@tool(toolset=TOOLSET)
async def get_issue_dependencies(call: Call, full_name: FullName, number: Number) -> Dependencies:
    """The issues blocking this one and those it blocks."""
    return await service.dependencies(call.rt.github, full_name, number)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it adds or removes the dependency between the two named issues"),
)
async def change_issue_dependency(
    call: Call,
    full_name: FullName,
    number: Number,
    action: Literal["add", "remove"],
    blocked_by: OtherNumber,
) -> Dependencies:
    """Mark an issue as blocked by another one, or remove that dependency."""
    github = call.rt.github
    await service.change_dependency(github, full_name, number, action, blocked_by)
    return await service.dependencies(github, full_name, number)


@tool(toolset=TOOLSET)
async def list_milestones(
    call: Call,
    full_name: FullName,
    state: Literal["open", "closed", "all"] = "open",
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> MilestonePage:
    """A repository's milestones, soonest due first, with their issue counts."""
    return await service.list_milestones(
        call.rt.github, full_name, state=state, limit=limit, cursor=cursor
    )


@tool(toolset=TOOLSET)
async def find_duplicate_issues(
    call: Call,
    full_name: FullName,
    number: Annotated[int, Field(ge=1, description="An existing issue to match.")] | None = None,
    title: Annotated[str, Field(max_length=256, description="Or a draft issue's title.")]
    | None = None,
    body: Annotated[str, Field(max_length=65536)] = "",
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
) -> SimilarIssues:
    """Open issues similar to an existing issue or a draft title, best match first."""
    github = call.rt.github
    if number is not None:
        issue = await issue_service.get_issue(github, full_name, number)
        title, body = issue.get("title") or "", issue.get("body") or ""
    elif not title:
        raise invalid_input("give number or title", hint="number= matches an existing issue.")
    return await duplicates.find_similar(
        github, full_name, title, body, exclude=number, limit=limit
    )
