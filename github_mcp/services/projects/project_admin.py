"""Projects (v2) beyond reading items and setting one value: a project's fields, views and
status updates listed on their own, and the project writes GitHub offers: create a project,
delete an item, set one field on many items at once, post a status update, add a view
(REST: GraphQL has no mutation for it) and add an iteration field.

Reads and writes are GraphQL unless said otherwise; answers are compact typed records that
carry the ids the next call needs (node ids for GraphQL, database ids for REST views).
"""

from __future__ import annotations

import datetime
from typing import Any, Literal, NotRequired, TypedDict
from urllib.parse import urlparse

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient, encode_cursor, encode_path
from github_mcp.github.retries import graphql_error
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, invalid_input
from github_mcp.services.projects.projects import (
    ITEM,
    ITERATION,
    PROJECT_CORE,
    FieldInfo,
    FieldValue,
    OwnerType,
    ProjectItem,
    ProjectSummary,
    ViewInfo,
    _after,
    _field,
    _owner,
    _query,
    _summary,
    _text,
    item,
)

StatusKind = Literal["INACTIVE", "ON_TRACK", "AT_RISK", "OFF_TRACK", "COMPLETE"]
Layout = Literal["table", "board", "roadmap"]
MAX_BULK = 50

FIELD_NODES = f"""
fields(first: 50) {{
  nodes {{
    __typename
    ... on ProjectV2Field {{ id databaseId name dataType }}
    ... on ProjectV2SingleSelectField {{ id databaseId name dataType options {{ id name }} }}
    ... on ProjectV2IterationField {{ id databaseId name dataType configuration {{
      iterations {{ {ITERATION} }} completedIterations {{ {ITERATION} }} }} }}
  }}
}}
"""

# A project by its id: its number and page (whose path says whose it is) and its fields.
PROJECT_BY_ID = f"""
query Project($id: ID!) {{ node(id: $id) {{ ... on ProjectV2 {{ id number url {FIELD_NODES} }} }} }}
"""

VIEWS = """
query Views($id: ID!) {
  node(id: $id) { ... on ProjectV2 { id views(first: 50) {
    nodes { id databaseId number name layout filter } } } }
}
"""

STATUS_UPDATES = """
query Updates($id: ID!, $first: Int!, $after: String) {
  node(id: $id) {
    ... on ProjectV2 {
      id
      statusUpdates(first: $first, after: $after,
          orderBy: {field: CREATED_AT, direction: DESC}) {
        pageInfo { hasNextPage endCursor }
        nodes { id status body startDate targetDate createdAt creator { login } }
      }
    }
  }
}
"""

OWNER_ID = "query Owner($login: String!) { owner: OWNER(login: $login) { id } }"

CREATE_PROJECT = f"""
mutation Create($owner: ID!, $title: String!) {{
  createProjectV2(input: {{ownerId: $owner, title: $title}}) {{ projectV2 {{ {PROJECT_CORE} }} }}
}}
"""

DELETE_ITEM = """
mutation Delete($project: ID!, $item: ID!) {
  deleteProjectV2Item(input: {projectId: $project, itemId: $item}) { deletedItemId }
}
"""

CREATE_STATUS = """
mutation Status($project: ID!, $status: ProjectV2StatusUpdateStatus, $body: String,
    $start: Date, $target: Date) {
  createProjectV2StatusUpdate(input: {projectId: $project, status: $status, body: $body,
      startDate: $start, targetDate: $target}) {
    statusUpdate { id status body startDate targetDate createdAt creator { login } }
  }
}
"""

CREATE_ITERATION_FIELD = f"""
mutation Iterations($project: ID!, $name: String!,
    $config: ProjectV2IterationFieldConfigurationInput!) {{
  createProjectV2Field(input: {{projectId: $project, dataType: ITERATION, name: $name,
      iterationConfiguration: $config}}) {{
    projectV2Field {{ ... on ProjectV2IterationField {{ id databaseId name dataType configuration {{
      iterations {{ {ITERATION} }} completedIterations {{ {ITERATION} }} }} }} }}
  }}
}}
"""


class FieldList(BaseModel):
    project_id: str
    fields: list[FieldInfo]


class ViewList(BaseModel):
    project_id: str
    views: list[ViewInfo]


class StatusUpdate(BaseModel):
    id: str
    status: str | None = None
    body: str | None = None
    start_date: str | None = None
    target_date: str | None = None
    created_at: str
    author: str | None = None


class StatusUpdatePage(BaseModel):
    project_id: str
    updates: list[StatusUpdate] = Field(description="Newest first.")
    next_cursor: str | None = None


class DeletedItem(BaseModel):
    project_id: str
    deleted_item_id: str


class ItemFailure(BaseModel):
    item_id: str
    error: str


class BulkUpdate(BaseModel):
    project_id: str
    field_id: str
    updated: list[ProjectItem]
    failed: list[ItemFailure] = []


class _Connection(TypedDict):
    nodes: list[dict[str, Any]]
    pageInfo: NotRequired[dict[str, Any]]


class _ProjectNode(TypedDict):
    """The project of a query here: its id and what the query asked."""

    id: str
    number: NotRequired[int]
    url: NotRequired[str]
    fields: NotRequired[_Connection]
    views: NotRequired[_Connection]
    statusUpdates: NotRequired[_Connection]


async def _project(
    github: GitHubClient, template: str, project_id: str, **more: Any
) -> _ProjectNode:
    data = await github.graphql(template, {"id": project_id, **more})
    node: _ProjectNode | None = (data or {}).get("node")
    if not node or "id" not in node:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"No project {project_id!r}.",
            hint="Project ids come from list_projects or get_project.",
        )
    return node


async def _by_id(github: GitHubClient, project_id: str) -> _ProjectNode:
    return await _project(github, PROJECT_BY_ID, project_id)


def _field_named(fields: list[FieldInfo], name: str) -> FieldInfo:
    found = next((f for f in fields if name.lower() in (f.name.lower(), f.id.lower())), None)
    if found is None:
        raise invalid_input(
            f"no field named {name!r}",
            hint=f"The project's fields: {', '.join(f.name for f in fields)}.",
        )
    return found


async def field_named(github: GitHubClient, project_id: str, name: str) -> FieldInfo:
    node = await _by_id(github, project_id)
    return _field_named([_field(f) for f in node["fields"]["nodes"] if f], name)


def typed_value(field: FieldInfo, value: str | float) -> FieldValue:
    """GitHub's ProjectV2FieldValue for a value given as the field shows it: an option's
    or iteration's name (or id), a date, a number or text."""
    text = str(value).strip()
    kind = field.type
    if kind == "NUMBER":
        try:
            return {"number": float(value)}
        except ValueError:
            raise invalid_input(f"{field.name} takes a number", hint="e.g. 3 or 2.5") from None
    if kind == "DATE":
        try:
            return {"date": datetime.date.fromisoformat(text).isoformat()}
        except ValueError:
            raise invalid_input(f"{field.name} takes a date", hint="YYYY-MM-DD") from None
    choices: list[tuple[str, str]] = []
    if kind == "SINGLE_SELECT":
        choices = [(o.id, o.name) for o in field.options or []]
    elif kind == "ITERATION":
        choices = [(i.id, i.title) for i in field.iterations or []]
    elif kind == "TEXT":
        return {"text": str(value)}
    else:
        raise invalid_input(f"{field.name} ({kind}) cannot be set", hint="Pick another field.")
    chosen = next((i for i, n in choices if text.lower() in (i.lower(), n.lower())), None)
    if chosen is None:
        raise invalid_input(
            f"{field.name} has no {text!r}", hint=f"It has: {', '.join(n for _, n in choices)}."
        )
    return {"singleSelectOptionId" if kind == "SINGLE_SELECT" else "iterationId": chosen}


def _view(node: dict[str, Any]) -> ViewInfo:
    return ViewInfo(
        id=node["id"], database_id=node.get("databaseId"), number=node["number"],
        name=_text(node["name"]) or "", layout=node["layout"], filter=_text(node.get("filter")),
    )  # fmt: skip


async def list_fields(github: GitHubClient, project_id: str) -> FieldList:
    node = await _by_id(github, project_id)
    fields = [_field(f) for f in node["fields"]["nodes"] if f]
    return FieldList(project_id=node["id"], fields=fields)


async def list_views(github: GitHubClient, project_id: str) -> ViewList:
    node = await _project(github, VIEWS, project_id)
    return ViewList(project_id=node["id"], views=[_view(v) for v in node["views"]["nodes"] if v])


def _status(node: dict[str, Any]) -> StatusUpdate:
    return StatusUpdate(
        id=node["id"], status=node.get("status"), body=_text(node.get("body"), 4000),
        start_date=node.get("startDate"), target_date=node.get("targetDate"),
        created_at=node["createdAt"], author=(node.get("creator") or {}).get("login"),
    )  # fmt: skip


async def list_status_updates(
    github: GitHubClient, project_id: str, *, limit: int, cursor: str | None
) -> StatusUpdatePage:
    node = await _project(github, STATUS_UPDATES, project_id, first=limit, after=_after(cursor))
    found = node["statusUpdates"]
    info = found["pageInfo"]
    more = encode_cursor({"after": info["endCursor"]}) if info["hasNextPage"] else None
    updates = [_status(n) for n in found["nodes"] if n]
    return StatusUpdatePage(project_id=node["id"], updates=updates, next_cursor=more)


async def _owner_type(github: GitHubClient, login: str) -> OwnerType:
    """GitHub answers /users/{login} for organisations too, saying which it is."""
    account = await github.request_json("GET", f"/users/{encode_path(login)}")
    return "organization" if account.get("type") == "Organization" else "user"


async def create_project(github: GitHubClient, owner: str, title: str) -> ProjectSummary:
    owner_type = await _owner_type(github, owner)
    found = _owner(await github.graphql(_query(OWNER_ID, owner_type), {"login": owner}), owner)
    data = await github.graphql(CREATE_PROJECT, {"owner": found["id"], "title": title})  # type: ignore[typeddict-item]
    return _summary(data["createProjectV2"]["projectV2"])


async def delete_item(github: GitHubClient, project_id: str, item_id: str) -> DeletedItem:
    data = await github.graphql(DELETE_ITEM, {"project": project_id, "item": item_id})
    deleted = data["deleteProjectV2Item"]["deletedItemId"]
    return DeletedItem(project_id=project_id, deleted_item_id=deleted or item_id)


def _bulk_document(count: int) -> str:
    names = ", ".join(f"$i{n}: ID!" for n in range(count))
    calls = "\n".join(
        f"  u{n}: updateProjectV2ItemFieldValue(input: {{projectId: $project, itemId: $i{n}, "
        f"fieldId: $field, value: $value}}) {{ projectV2Item {{ {ITEM} }} }}"
        for n in range(count)
    )
    return (
        f"mutation Bulk($project: ID!, $field: ID!, $value: ProjectV2FieldValue!, {names}) "
        f"{{\n{calls}\n}}"
    )


async def update_items(
    github: GitHubClient, project_id: str, item_ids: list[str], field: str, given: str | float
) -> BulkUpdate:
    """One field (by name) set on many items in one request (a mutation per item, by
    alias): each item's own failure is reported beside the items that were set."""
    if not item_ids or len(item_ids) > MAX_BULK:
        raise invalid_input(f"give 1 to {MAX_BULK} item ids", hint="Split larger batches.")
    node = await _by_id(github, project_id)
    chosen = _field_named([_field(f) for f in node["fields"]["nodes"] if f], field)
    field_id, value = chosen.id, typed_value(chosen, given)
    variables: dict[str, Any] = {"project": project_id, "field": field_id, "value": value}
    variables |= {f"i{n}": item_id for n, item_id in enumerate(item_ids)}
    body = await github.request_json(
        "POST",
        github.settings.graphql_url,
        json_body={"query": _bulk_document(len(item_ids)), "variables": variables},
        idempotent=True,  # setting a value twice leaves it as set once
    )
    data, errors = body.get("data"), body.get("errors") or []
    if data is None:  # refused as a whole (bad ids, permissions): nothing was set
        raise graphql_error(errors[0] if errors else {"message": "no data"})
    failed_at = {str(e["path"][0]): e for e in errors if e.get("path")}
    updated, failed = [], []
    for n, item_id in enumerate(item_ids):
        answer = data.get(f"u{n}")
        if answer and answer.get("projectV2Item"):
            updated.append(item(answer["projectV2Item"]))
        else:
            error = failed_at.get(f"u{n}", {"message": "not updated"})
            text = _text(str(error.get("message")), 300) or ""
            failed.append(ItemFailure(item_id=item_id, error=text))
    return BulkUpdate(project_id=project_id, field_id=field_id, updated=updated, failed=failed)


async def create_status_update(
    github: GitHubClient,
    project_id: str,
    status: StatusKind | None,
    body: str | None,
    start_date: str | None,
    target_date: str | None,
) -> StatusUpdate:
    variables = {
        "project": project_id, "status": status, "body": body,
        "start": start_date, "target": target_date,
    }  # fmt: skip
    data = await github.graphql(CREATE_STATUS, variables)
    return _status(data["createProjectV2StatusUpdate"]["statusUpdate"])


async def create_iteration_field(
    github: GitHubClient, project_id: str, name: str, start_date: str, duration_days: int
) -> FieldInfo:
    """An iteration field; GitHub makes its first three iterations from the start date."""
    config = {"startDate": start_date, "duration": duration_days, "iterations": []}
    data = await github.graphql(
        CREATE_ITERATION_FIELD, {"project": project_id, "name": name, "config": config}
    )
    return _field(data["createProjectV2Field"]["projectV2Field"])


async def create_view(
    github: GitHubClient,
    project_id: str,
    body: dict[str, Any],
    visible_fields: list[str],
) -> ViewInfo:
    """REST (GraphQL has no mutation for it): POST …/projectsV2/{number}/views of the
    project's organisation, or of its user by the user's id; fields shown are named."""
    node = await _by_id(github, project_id)
    if visible_fields:
        fields = [_field(f) for f in node["fields"]["nodes"] if f]
        body["visible_fields"] = [_field_named(fields, n).database_id for n in visible_fields]
    # the project's page is /orgs/{org}/projects/{n} or /users/{login}/projects/{n}
    kind, login = urlparse(node.get("url", "")).path.strip("/").split("/")[:2]
    number = node.get("number")
    if kind == "orgs":
        path = f"/orgs/{encode_path(login)}/projectsV2/{number}/views"
    else:
        user = await github.request_json("GET", f"/users/{encode_path(login)}")
        path = f"/users/{user['id']}/projectsV2/{number}/views"
    made = await github.request_json("POST", path, json_body=body)
    return ViewInfo(
        id=made["node_id"], database_id=made["id"], number=made["number"],
        name=_text(made["name"]) or "", layout=f"{made['layout'].upper()}_LAYOUT",
        filter=_text(made.get("filter")), visible_fields=made.get("visible_fields") or None,
    )  # fmt: skip
