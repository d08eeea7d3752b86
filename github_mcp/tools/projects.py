"""Projects (v2): list a user's or organisation's projects, read one with its fields and
views, list its items with their field values, and the item writes: add an issue or pull
request, set one field value, archive an item.

A project belongs to an owner, not a repository, so the allow-list cannot name it: the
writes are unscoped writes a human approves, and items whose repository is outside the
allow-list are listed without their content (repository, title, url).
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any

from pydantic import Field

from github_mcp.kernel.effects import Target
from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import projects as service
from github_mcp.services.projects import ItemPage, OwnerType, Project, ProjectItem, ProjectList
from github_mcp.tools._bindings import project_item_field, still_as_approved

TOOLSET = "projects"
Login = Annotated[str, Field(min_length=1, max_length=39, pattern=r"^[A-Za-z0-9][A-Za-z0-9-]*$")]
NodeId = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_=-]+$")]
Number = Annotated[int, Field(ge=1, le=10_000_000)]
OptionId = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_=-]+$")]


async def _project_place(call: Call, kwargs: dict[str, Any]) -> Target:
    """A project's item writes publish wherever the project is seen; its visibility is not
    looked up, so the cross-visibility guard treats it as public (fails closed)."""
    return Target(None, visibility="unknown")


def _withhold(call: Call, item: ProjectItem) -> ProjectItem:
    if item.repository is None or call.rt.gate.repo_allowed(item.repository):
        return item
    # the Title field's value is the title: repository content too
    values = {k: v for k, v in item.values.items() if k != "Title"}
    update = {"repository": None, "title": None, "url": None, "number": None, "state": None}
    return item.model_copy(update=update | {"type": "OUTSIDE_ALLOW_LIST", "values": values})


@tool(toolset=TOOLSET, repo_arg=None)
async def list_projects(
    call: Call,
    owner: Login,
    owner_type: OwnerType = "organization",
    query: Annotated[str, Field(max_length=200)] | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> ProjectList:
    """An organisation's or user's projects (v2), newest first, optionally matching query."""
    return await service.list_projects(
        call.rt.github, owner, owner_type, query, limit=limit, cursor=cursor
    )


@tool(toolset=TOOLSET, repo_arg=None)
async def get_project(
    call: Call, owner: Login, number: Number, owner_type: OwnerType = "organization"
) -> Project:
    """One project with its fields (ids, single select options, iterations) and views."""
    return await service.get_project(call.rt.github, owner, owner_type, number)


@tool(toolset=TOOLSET, repo_arg=None)
async def list_project_items(
    call: Call,
    owner: Login,
    number: Number,
    owner_type: OwnerType = "organization",
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> ItemPage:
    """A project's items (issue or pull request, archived flag) with each field's value."""
    page = await service.list_items(
        call.rt.github, owner, owner_type, number, limit=limit, cursor=cursor
    )
    return page.model_copy(update={"items": [_withhold(call, i) for i in page.items]})


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly(
        "it adds the named issue or pull request as an item; its content stays in its repository"
    ),
)
async def add_project_item(
    call: Call, project_id: NodeId, full_name: FullName, number: Number
) -> ProjectItem:
    """Add an issue or pull request to a project (project_id from get_project)."""
    return await service.add_item(call.rt.github, project_id, full_name, number)


@tool(
    toolset=TOOLSET, write=True, target=_project_place, repo_arg=None, idempotent=True,
    binds=project_item_field,
)  # fmt: skip
async def update_project_item_field(
    call: Call,
    project_id: NodeId,
    item_id: NodeId,
    field_id: NodeId,
    text: Annotated[str, Field(max_length=1024)] | None = None,
    number: Annotated[float, Field(allow_inf_nan=False)] | None = None,
    date: datetime.date | None = None,
    option_id: OptionId | None = None,
    iteration_id: OptionId | None = None,
) -> ProjectItem:
    """Set one field of an item: text, number, date, option_id or iteration_id, by type."""
    value = service.field_value(
        text=text,
        number=number,
        date=date.isoformat() if date else None,
        option_id=option_id,
        iteration_id=iteration_id,
    )
    await still_as_approved(call, project_item_field, {"item_id": item_id, "field_id": field_id})
    found = await service.update_value(call.rt.github, project_id, item_id, field_id, value)
    return _withhold(call, found)


@tool(
    toolset=TOOLSET,
    write=True,
    target=_project_place,
    repo_arg=None,
    idempotent=True,
    binds=ArgumentsOnly("it archives the named item; no value of it changes"),
)
async def archive_project_item(call: Call, project_id: NodeId, item_id: NodeId) -> ProjectItem:
    """Archive a project item (it stays in the project, hidden from its views)."""
    found = await service.archive_item(call.rt.github, project_id, item_id)
    return _withhold(call, found)
