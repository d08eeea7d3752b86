"""Projects (v2) beyond item values, as GitHub's GraphQL API has them: a project's status
updates (`ProjectV2.statusUpdates`, `createProjectV2StatusUpdate`), creating a project
(`createProjectV2`, for an organisation or a user), deleting an item
(`deleteProjectV2Item`) and creating a field (`createProjectV2Field`; an iteration field
with no iterations gets three, as on GitHub). Errors carry GitHub's types and messages."""

from __future__ import annotations

import base64
import binascii
import datetime
import re
from typing import Any

from graphql import GraphQLObjectType, GraphQLSchema

from sandbox_forge.graphql.context import Context, GQLFailure, connection
from sandbox_forge.graphql.project_mutations import missing, project_item, writable_project
from sandbox_forge.graphql.projects import ProjectView, field_view
from sandbox_forge.graphql.views import actor
from sandbox_forge.kernel.formats import iso
from sandbox_forge.stores import projects as store
from sandbox_forge.stores.projects import Option, StatusUpdate
from sandbox_forge.stores.records import UserRecord

LEGACY_ID = re.compile(r"^0\d+:(User|Organization)(\d+)$")
MAX_TITLE = 256


class StatusUpdateView:
    typename = "ProjectV2StatusUpdate"

    def __init__(self, ctx: Context, project: ProjectView, update: StatusUpdate):
        self.id, self.body, self.status = update.node_id, update.body, update.status
        self.startDate, self.targetDate = update.start_date, update.target_date
        self.createdAt = self.updatedAt = iso(update.created_at)
        self.creator = actor(ctx, update.creator)
        self.project = project


def status_updates(
    root: ProjectView, info: Any, orderBy: dict[str, str] | None = None, **page: Any
) -> dict[str, Any]:
    newest_first = (orderBy or {}).get("direction", "DESC") == "DESC"
    found = sorted(root.project.status_updates, key=lambda u: u.id, reverse=newest_first)
    views = [StatusUpdateView(root.ctx, root, u) for u in found]
    return connection(views, "statusUpdates", **{k: page.get(k) for k in PAGE})


PAGE = ("first", "last", "after", "before")


def _date(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    try:
        return datetime.date.fromisoformat(str(value)).isoformat()
    except ValueError:
        raise GQLFailure("UNPROCESSABLE", f"`{value}` is not a valid {name}.") from None


def create_status_update(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    project = writable_project(ctx, input["projectId"], "createProjectV2StatusUpdate")
    made = store.add_status_update(
        ctx.state,
        project,
        ctx.principal.login or "",
        status=input.get("status"),
        body=input.get("body"),
        start_date=_date(input.get("startDate"), "start date"),
        target_date=_date(input.get("targetDate"), "target date"),
    )
    view = StatusUpdateView(ctx, ProjectView(ctx, project), made)
    return {"clientMutationId": input.get("clientMutationId"), "statusUpdate": view}


def delete_item(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    project = writable_project(ctx, input["projectId"], "deleteProjectV2Item")
    item = project_item(project, input["itemId"])
    store.delete_item(ctx.state, project, item)
    return {"clientMutationId": input.get("clientMutationId"), "deletedItemId": item.node_id}


def _owner(ctx: Context, value: str) -> UserRecord:
    try:
        text = base64.b64decode(value, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    match = LEGACY_ID.match(text)
    owner = None
    if match:
        owner = next((u for u in ctx.state.users.values() if u.id == int(match[2])), None)
    if owner is None or owner.type not in ("User", "Organization"):
        raise missing(value)
    return owner


def create_project(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    """A new project for a user (themselves only) or an organisation (its members)."""
    ctx: Context = info.context
    owner = _owner(ctx, input["ownerId"])
    login = (ctx.principal.login or "").lower()
    member = ctx.state.access.org_role(owner.login, login) is not None
    unbound = ctx.principal.role_of is None  # the sandbox's unbounded test tokens
    mine = owner.login.lower() == login
    token = ctx.principal.token
    if (not (mine or member or (unbound and owner.type == "Organization"))) or (
        token is not None and token.access == "read"
    ):
        raise GQLFailure(
            "FORBIDDEN",
            f"{ctx.principal.login or 'anonymous'} does not have permission to create "
            f"projects for {owner.login}",
        )
    title = str(input["title"]).strip()
    if not title or len(title) > MAX_TITLE:
        raise GQLFailure("UNPROCESSABLE", "Title can't be blank (at most 256 characters).")
    project = ProjectView(ctx, store.create_project(ctx.state, owner.login, title))
    return {"clientMutationId": input.get("clientMutationId"), "projectV2": project}


def _iterations(config: dict[str, Any]) -> tuple[str, int, list[tuple[str, str, int]]]:
    start = _date(config["startDate"], "start date")
    duration = int(config["duration"])
    if duration < 1 or duration > 365:
        raise GQLFailure("UNPROCESSABLE", "Duration must be between 1 and 365 days.")
    given = []
    for it in config["iterations"]:
        if int(it["duration"]) < 1 or not str(it["title"]).strip():
            raise GQLFailure("UNPROCESSABLE", "Each iteration needs a title and a duration.")
        when = _date(it["startDate"], "start date")
        assert when is not None
        given.append((str(it["title"]).strip(), when, int(it["duration"])))
    assert start is not None
    return start, duration, given


def create_field(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    project = writable_project(ctx, input["projectId"], "createProjectV2Field")
    name, kind = str(input["name"]).strip(), input["dataType"]
    if not name:
        raise GQLFailure("UNPROCESSABLE", "Name can't be blank")
    if any(f.name.lower() == name.lower() for f in project.fields):
        raise GQLFailure("UNPROCESSABLE", "Name has already been taken")
    config, options = input.get("iterationConfiguration"), input.get("singleSelectOptions")
    if kind == "ITERATION":
        if config is None:
            raise GQLFailure("UNPROCESSABLE", "An iteration field needs iterationConfiguration.")
        made = store.add_iteration_field(ctx.state, project, name, *_iterations(config))
    elif kind == "SINGLE_SELECT":
        if not options:
            raise GQLFailure("UNPROCESSABLE", "A single select field needs at least one option.")
        made = store.add_field(ctx.state, project, name, kind)
        made.options = [
            Option(id=f"{made.id:x}{n:02x}", name=o["name"], description=o["description"])
            for n, o in enumerate(options)
        ]
    else:
        made = store.add_field(ctx.state, project, name, kind)
    return {"clientMutationId": input.get("clientMutationId"), "projectV2Field": field_view(made)}


def attach(schema: GraphQLSchema) -> None:
    mutation, project = schema.mutation_type, schema.type_map["ProjectV2"]
    assert mutation is not None and isinstance(project, GraphQLObjectType)
    project.fields["statusUpdates"].resolve = status_updates
    mutation.fields["createProjectV2"].resolve = create_project
    mutation.fields["createProjectV2Field"].resolve = create_field
    mutation.fields["createProjectV2StatusUpdate"].resolve = create_status_update
    mutation.fields["deleteProjectV2Item"].resolve = delete_item
