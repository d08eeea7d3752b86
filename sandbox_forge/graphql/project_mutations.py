"""Projects (v2) mutations: add an issue or pull request to a project
(`addProjectV2ItemById`), set one field value of an item (`updateProjectV2ItemFieldValue`),
and archive an item (`archiveProjectV2Item`). Errors carry GitHub's types and messages."""

from __future__ import annotations

import datetime
import math
from typing import Any

from sandbox_forge.graphql.context import Context, GQLFailure
from sandbox_forge.graphql.projects import ItemView, access, require_write
from sandbox_forge.stores import projects as store
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.lookups import parse_node_id, repo_by_id
from sandbox_forge.stores.projects import Item, Project, ProjectField


def missing(value: str) -> GQLFailure:
    return GQLFailure("NOT_FOUND", f"Could not resolve to a node with the global id of '{value}'")


def writable_project(ctx: Context, value: str, mutation: str) -> Project:
    found = store.find_by_node(ctx.state, value)
    if found is None or found[0] != "PVT":
        raise missing(value)
    project: Project = found[1]
    if access(ctx, project) is None:
        raise missing(value)
    require_write(ctx, project, mutation)
    return project


def project_item(project: Project, value: str) -> Item:
    parsed = store.parse_id(value)
    item = project.item_by_id(parsed[1]) if parsed and parsed[0] == "PVTI" else None
    if item is None:
        raise missing(value)
    return item


def add_item(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    project = writable_project(ctx, input["projectId"], "addProjectV2ItemById")
    content = input["contentId"]
    parsed = parse_node_id(content)
    repo = repo_by_id(ctx.state, parsed[1]) if parsed else None
    if parsed is None or parsed[0] not in ("I", "PR") or not ctx.readable(repo):
        raise missing(content)
    assert repo is not None
    issue = next((i for i in collab(repo).issues.values() if i.id == parsed[2]), None)
    if issue is None or (parsed[0] == "PR") != (issue.pull is not None):
        raise missing(content)
    item = store.add_item(ctx.state, project, repo.id, issue.id)
    return {"clientMutationId": input.get("clientMutationId"), "item": ItemView(ctx, project, item)}


def _checked(field: ProjectField, value: dict[str, Any]) -> Any:
    """The one value the field's type takes, or GitHub's UNPROCESSABLE error."""
    given = {k: v for k, v in value.items() if v is not None}
    wanted = {
        "TEXT": "text",
        "NUMBER": "number",
        "DATE": "date",
        "SINGLE_SELECT": "singleSelectOptionId",
        "ITERATION": "iterationId",
    }.get(field.data_type)
    if wanted is None:
        raise GQLFailure(
            "UNPROCESSABLE", f"The field {field.name} of type {field.data_type} cannot be updated."
        )
    if set(given) != {wanted}:
        raise GQLFailure(
            "UNPROCESSABLE",
            f"The field {field.name} is a {field.data_type} field: give exactly `{wanted}`.",
        )
    new = given[wanted]
    if wanted == "number" and not math.isfinite(new):
        raise GQLFailure("UNPROCESSABLE", "The number must be finite.")
    if wanted == "date":
        try:
            new = datetime.date.fromisoformat(str(new)).isoformat()
        except ValueError:
            raise GQLFailure("UNPROCESSABLE", f"`{new}` is not a valid date.") from None
    if wanted == "text" and len(new) > 1024:
        raise GQLFailure("UNPROCESSABLE", "Text may be at most 1024 characters.")
    if wanted == "singleSelectOptionId" and new not in {o.id for o in field.options}:
        raise GQLFailure("UNPROCESSABLE", f"The single select option Id {new} does not exist.")
    if wanted == "iterationId" and new not in {i.id for i in field.iterations}:
        raise GQLFailure("UNPROCESSABLE", f"The iteration Id {new} does not exist.")
    return new


def update_value(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    project = writable_project(ctx, input["projectId"], "updateProjectV2ItemFieldValue")
    item = project_item(project, input["itemId"])
    found = store.find_by_node(ctx.state, input["fieldId"])
    if found is None or found[1] is not project or not isinstance(found[2], ProjectField):
        raise missing(input["fieldId"])
    field: ProjectField = found[2]
    store.set_value(ctx.state, project, item, field.id, _checked(field, input["value"]))
    return {
        "clientMutationId": input.get("clientMutationId"),
        "projectV2Item": ItemView(ctx, project, item),
    }


def archive_item(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    project = writable_project(ctx, input["projectId"], "archiveProjectV2Item")
    item = project_item(project, input["itemId"])
    with ctx.state.lock:
        item.archived = True
    return {"clientMutationId": input.get("clientMutationId"), "item": ItemView(ctx, project, item)}
