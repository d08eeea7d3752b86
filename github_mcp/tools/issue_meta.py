"""Issue types and issue fields: an organisation's definitions and an issue's values.

Setting a type or a field changes no branch but edits an issue others plan from: an
unscoped write that needs a human's approval, like change_sub_issue. The tools name one
repository (the allow-list covers it); the organisation is its owner.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from github_mcp.kernel.params import FullName
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import issue_meta as service
from github_mcp.services.issue_meta import (
    Confidence,
    FieldValue,
    IssueFields,
    IssueTypes,
    TypeChange,
)
from github_mcp.tools._bindings import issue_field_values, still_as_approved

TOOLSET = "issue_planning"
Number = Annotated[int, Field(ge=1)]
TypeName = Annotated[str, Field(min_length=1, max_length=100)]
Rationale = Annotated[str, Field(max_length=280)]
Values = Annotated[
    dict[str, Annotated[FieldValue, Field(union_mode="left_to_right")]],
    Field(
        min_length=1,
        max_length=service.MAX_VALUES,
        description="Field name: text, number, date, option(s); null clears",
    ),
]


@tool(toolset=TOOLSET)
async def list_issue_types(call: Call, full_name: FullName) -> IssueTypes:
    """The issue types (Bug, Feature, …) issues in a repository may take."""
    return await service.list_types(call.rt.github, full_name)


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
    return await service.set_type(
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
    return await service.list_fields(call.rt.github, full_name, number)


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
    return await service.set_fields(call.rt.github, full_name, number, values, replace=replace)
