"""Projects (v2): list a user's or organisation's projects, read one with its fields and
views (or either alone, or its status updates), list its items with their field values;
the item writes: add an issue or pull request, set one field value (on one item or many),
archive or delete an item; and the project writes: create a project, post a status update,
add a view or an iteration field.

A project belongs to an owner, not a repository, so the allow-list cannot name it: the
writes are unscoped writes a human approves, and items whose repository is outside the
allow-list are listed without their content (repository, title, url).
"""

from __future__ import annotations

import asyncio
import datetime
from typing import Annotated, Any

from pydantic import Field

from github_mcp.kernel.effects import Target
from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services.projects import project_admin as admin
from github_mcp.services.projects import projects as service
from github_mcp.services.projects.project_admin import (
    BulkUpdate,
    DeletedItem,
    FieldList,
    StatusUpdate,
    StatusUpdatePage,
    ViewList,
)
from github_mcp.services.projects.projects import (
    FieldInfo,
    ItemPage,
    OwnerType,
    Project,
    ProjectItem,
    ProjectList,
    ProjectSummary,
    ViewInfo,
)
from github_mcp.services.shared import approved_records
from github_mcp.services.shared.approved_state import RemoteState
from github_mcp.tools._bindings import project_item_field, still_as_approved

TOOLSET = "projects"
Login = Annotated[str, Field(min_length=1, max_length=39, pattern=r"^[A-Za-z0-9][A-Za-z0-9-]*$")]
NodeId = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_=-]+$")]
Number = Annotated[int, Field(ge=1, le=10_000_000)]
OptionId = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_=-]+$")]
FieldName = Annotated[str, Field(min_length=1, max_length=100)]


async def _project_place(call: Call, kwargs: dict[str, Any]) -> Target:
    """A project's item writes publish wherever the project is seen; its visibility is not
    looked up, so the cross-visibility guard treats it as public (fails closed)."""
    return Target(None, visibility="unknown")


async def project_items_field(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """Each item's issue or pull request and the named field's value on it now, in the
    project (and whether it is public): the page names them where the call gives ids."""
    github = call.rt.github
    field = await admin.field_named(github, kwargs["project_id"], kwargs["field"])
    facts: list[tuple[str, str]] = [("field_id", field.id)]
    texts: list[tuple[str, str]] = []
    states = await asyncio.gather(
        *(approved_records.project_item_state(github, i, field.id) for i in kwargs["item_ids"])
    )
    for n, one in enumerate(states):
        facts += [(f"item{n}.{k}", v) for k, v in one.facts]
        texts += [(f"item {n + 1}: {k}", v) for k, v in one.texts]
    return RemoteState(tuple(facts), texts=tuple(texts))


async def project_item_values(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """The item's issue or pull request, whether it is archived, and every field's value
    now, in the project (and whether it is public): what removing the item throws away."""
    return await approved_records.project_item_whole_state(call.rt.github, kwargs["item_id"])


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


@tool(toolset=TOOLSET, repo_arg=None)
async def list_project_fields(call: Call, project_id: NodeId) -> FieldList:
    """A project's fields with their ids, options and iterations."""
    return await admin.list_fields(call.rt.github, project_id)


@tool(toolset=TOOLSET, repo_arg=None)
async def list_project_views(call: Call, project_id: NodeId) -> ViewList:
    """A project's views."""
    return await admin.list_views(call.rt.github, project_id)


@tool(toolset=TOOLSET, repo_arg=None)
async def list_project_status_updates(
    call: Call, project_id: NodeId, limit: Limit = 10, cursor: Cursor | None = None
) -> StatusUpdatePage:
    """A project's status updates, newest first."""
    return await admin.list_status_updates(call.rt.github, project_id, limit=limit, cursor=cursor)


@tool(
    toolset=TOOLSET, write=True, target=_project_place, repo_arg=None,
    binds=ArgumentsOnly("it makes a new, private project with the title given; nothing else"),
)  # fmt: skip
async def create_project(
    call: Call, owner: Login, title: Annotated[str, Field(min_length=1, max_length=256)]
) -> ProjectSummary:
    """Create an organisation's or user's project (v2), private."""
    return await admin.create_project(call.rt.github, owner, title)


@tool(
    toolset=TOOLSET, write=True, target=_project_place, repo_arg=None, destructive=True,
    idempotent=True,
    binds=project_item_values,
)  # fmt: skip
async def delete_project_item(call: Call, project_id: NodeId, item_id: NodeId) -> DeletedItem:
    """Remove an item from a project (the issue or PR stays)."""
    await still_as_approved(call, project_item_values, {"item_id": item_id})
    return await admin.delete_item(call.rt.github, project_id, item_id)


@tool(
    toolset=TOOLSET, write=True, target=_project_place, repo_arg=None, idempotent=True,
    binds=project_items_field,
)  # fmt: skip
async def update_project_items(
    call: Call,
    project_id: NodeId,
    item_ids: Annotated[list[NodeId], Field(min_length=1, max_length=admin.MAX_BULK)],
    field: FieldName,
    value: Annotated[str, Field(max_length=1024)] | float,
) -> BulkUpdate:
    """Set one field (by name) on up to 50 items; value as shown: option or iteration
    name, date, number or text. Says which items failed."""
    await still_as_approved(
        call, project_items_field, {"project_id": project_id, "item_ids": item_ids, "field": field}
    )
    found = await admin.update_items(call.rt.github, project_id, item_ids, field, value)
    return found.model_copy(update={"updated": [_withhold(call, i) for i in found.updated]})


@tool(
    toolset=TOOLSET, write=True, target=_project_place, repo_arg=None,
    binds=ArgumentsOnly("it posts a new update with the status, dates and body given"),
)  # fmt: skip
async def create_project_status_update(
    call: Call,
    project_id: NodeId,
    status: admin.StatusKind | None = None,
    body: Annotated[str, Field(max_length=65536)] | None = None,
    start_date: datetime.date | None = None,
    target_date: datetime.date | None = None,
) -> StatusUpdate:
    """Post a project status update."""
    return await admin.create_status_update(
        call.rt.github, project_id, status, body,
        start_date.isoformat() if start_date else None,
        target_date.isoformat() if target_date else None,
    )  # fmt: skip


@tool(
    toolset=TOOLSET, write=True, target=_project_place, repo_arg=None,
    binds=ArgumentsOnly("it adds a view with the name, layout, filter and fields given"),
)  # fmt: skip
async def create_project_view(
    call: Call,
    project_id: NodeId,
    name: Annotated[str, Field(min_length=1, max_length=100)],
    layout: admin.Layout = "table",
    filter: Annotated[str, Field(max_length=1024)] | None = None,
    visible_fields: Annotated[list[FieldName], Field(max_length=50)] | None = None,
) -> ViewInfo:
    """Add a view: layout, filter, and the fields shown (names, in order)."""
    body: dict[str, Any] = {"name": name, "layout": layout}
    if filter:
        body["filter"] = filter
    return await admin.create_view(call.rt.github, project_id, body, visible_fields or [])


@tool(
    toolset=TOOLSET, write=True, target=_project_place, repo_arg=None,
    binds=ArgumentsOnly("it adds an iteration field with the name and dates given; no item"),
)  # fmt: skip
async def create_project_iteration_field(
    call: Call,
    project_id: NodeId,
    name: FieldName,
    start_date: datetime.date,
    duration_days: Annotated[int, Field(ge=1, le=365)] = 14,
) -> FieldInfo:
    """Add an iteration field; GitHub makes three iterations of duration_days from
    start_date."""
    return await admin.create_iteration_field(
        call.rt.github, project_id, name, start_date.isoformat(), duration_days
    )
