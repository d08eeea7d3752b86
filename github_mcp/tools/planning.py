"""Planning across issues: sub-issues, "blocked by" dependencies, and similar open issues.

Linking issues changes no branch but edits issues others read: an unscoped write that
needs a human's approval, like an issue comment. Both ends are issues of one repository,
so the allow-list covers them.

Issue types and issue fields: an organisation's definitions and an issue's values.

Setting a type or a field changes no branch but edits an issue others plan from: an
unscoped write that needs a human's approval, like change_sub_issue. The tools name one
repository (the allow-list covers it); the organisation is its owner.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services.planning import duplicates
from github_mcp.services.planning import issue_meta as meta_service
from github_mcp.services.planning import issue_planning as service
from github_mcp.services.planning.duplicates import SimilarIssues
from github_mcp.services.planning.issue_meta import (
    Confidence,
    FieldValue,
    IssueFields,
    IssueTypes,
    TypeChange,
)
from github_mcp.services.planning.issue_planning import Dependencies, MilestonePage, SubIssues
from github_mcp.tools._bindings import issue_field_values, still_as_approved

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
        issue = await duplicates.get_issue(github, full_name, number)
        title, body = issue.get("title") or "", issue.get("body") or ""
    elif not title:
        raise invalid_input("give number or title", hint="number= matches an existing issue.")
    return await duplicates.find_similar(
        github, full_name, title, body, exclude=number, limit=limit
    )


TypeName = Annotated[str, Field(min_length=1, max_length=100)]
Rationale = Annotated[str, Field(max_length=280)]
Values = Annotated[
    dict[str, Annotated[FieldValue, Field(union_mode="left_to_right")]],
    Field(
        min_length=1,
        max_length=meta_service.MAX_VALUES,
        description="Field name: text, number, date, option(s); null clears",
    ),
]


@tool(toolset=TOOLSET)
async def list_issue_types(call: Call, full_name: FullName) -> IssueTypes:
    """The issue types (Bug, Feature, …) issues in a repository may take."""
    return await meta_service.list_types(call.rt.github, full_name)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly(
        "it sets the named type (or clears it, or suggests it); the value is the argument"
    ),
)
async def set_issue_type(
    call: Call,
    full_name: FullName,
    number: Number,
    type: Annotated[TypeName | None, Field(description="null clears it")],
    rationale: Rationale | None = None,
    confidence: Confidence | None = None,
    suggest: Annotated[bool, Field(description="Record for a human, not applied.")] = False,
) -> TypeChange:
    """Set or clear an issue's type by name, optionally as a suggestion with a rationale."""
    return await meta_service.set_type(
        call.rt.github,
        full_name,
        number,
        type,
        rationale=rationale,
        confidence=confidence,
        suggest=suggest,
    )


@tool(toolset=TOOLSET)
async def list_issue_fields(
    call: Call,
    full_name: FullName,
    number: Annotated[int, Field(ge=1, description="Also this issue's values.")] | None = None,
) -> IssueFields:
    """The custom issue fields of the repository's organisation, and an issue's values."""
    return await meta_service.list_fields(call.rt.github, full_name, number)


@tool(toolset=TOOLSET, write=True, target=None, idempotent=True, binds=issue_field_values)
async def set_issue_fields(
    call: Call,
    full_name: FullName,
    number: Number,
    values: Values,
    replace: Annotated[bool, Field(description="Drop values not given.")] = False,
) -> IssueFields:
    """Set an issue's custom field values by field name; returns all its values."""
    await still_as_approved(call, issue_field_values, {"full_name": full_name, "number": number})
    return await meta_service.set_fields(call.rt.github, full_name, number, values, replace=replace)
