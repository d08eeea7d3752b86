"""Projects (v2) over GraphQL: a user's or organisation's projects, one project's fields and
views, its items with their field values, and the item writes (add, set a field, archive),
as compact typed records that carry the node ids the next call needs."""

from __future__ import annotations

from typing import Any, Literal, TypedDict
from urllib.parse import urlparse

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient, decode_cursor, encode_cursor
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, invalid_input
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.repo_facts import repo_path

OwnerType = Literal["organization", "user"]
FIELDS_PER_PROJECT = 50
VALUES_PER_ITEM = 30
TEXT_CAP = 500

PROJECT_CORE = "id number title shortDescription url closed public"
FIELD_NAME = """... on ProjectV2Field { id name }
  ... on ProjectV2SingleSelectField { id name }
  ... on ProjectV2IterationField { id name }"""
ITERATION = "id title startDate duration"

LIST_PROJECTS = f"""
query Projects($login: String!, $first: Int!, $after: String, $query: String) {{
  owner: OWNER(login: $login) {{
    projectsV2(first: $first, after: $after, query: $query) {{
      pageInfo {{ hasNextPage endCursor }}
      nodes {{ {PROJECT_CORE} }}
    }}
  }}
}}
"""

GET_PROJECT = f"""
query Project($login: String!, $number: Int!, $fields: Int!) {{
  owner: OWNER(login: $login) {{
    projectV2(number: $number) {{
      {PROJECT_CORE}
      fields(first: $fields) {{
        nodes {{
          __typename
          ... on ProjectV2Field {{ id name dataType }}
          ... on ProjectV2SingleSelectField {{ id name dataType options {{ id name }} }}
          ... on ProjectV2IterationField {{ id name dataType configuration {{
            iterations {{ {ITERATION} }} completedIterations {{ {ITERATION} }} }} }}
        }}
      }}
      views(first: 20) {{ nodes {{ id number name layout filter }} }}
    }}
  }}
}}
"""

ITEM = f"""
  id type isArchived
  content {{
    __typename
    ... on Issue {{ number title url state }}
    ... on PullRequest {{ number title url prState: state }}
  }}
  fieldValues(first: {VALUES_PER_ITEM}) {{
    nodes {{
      __typename
      ... on ProjectV2ItemFieldTextValue {{ text field {{ {FIELD_NAME} }} }}
      ... on ProjectV2ItemFieldNumberValue {{ number field {{ {FIELD_NAME} }} }}
      ... on ProjectV2ItemFieldDateValue {{ date field {{ {FIELD_NAME} }} }}
      ... on ProjectV2ItemFieldSingleSelectValue {{ name field {{ {FIELD_NAME} }} }}
      ... on ProjectV2ItemFieldIterationValue {{ title field {{ {FIELD_NAME} }} }}
    }}
  }}
"""

LIST_ITEMS = f"""
query Items($login: String!, $number: Int!, $first: Int!, $after: String) {{
  owner: OWNER(login: $login) {{
    projectV2(number: $number) {{
      id url public
      items(first: $first, after: $after) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{ {ITEM} }}
      }}
    }}
  }}
}}
"""

ADD_ITEM = f"""
mutation AddItem($project: ID!, $content: ID!) {{
  addProjectV2ItemById(input: {{projectId: $project, contentId: $content}}) {{
    item {{ {ITEM} }}
  }}
}}
"""

UPDATE_VALUE = f"""
mutation SetValue($project: ID!, $item: ID!, $field: ID!, $value: ProjectV2FieldValue!) {{
  updateProjectV2ItemFieldValue(
    input: {{projectId: $project, itemId: $item, fieldId: $field, value: $value}}) {{
    projectV2Item {{ {ITEM} }}
  }}
}}
"""

ARCHIVE_ITEM = f"""
mutation Archive($project: ID!, $item: ID!) {{
  archiveProjectV2Item(input: {{projectId: $project, itemId: $item}}) {{
    item {{ {ITEM} }}
  }}
}}
"""


class ProjectSummary(BaseModel):
    id: str
    number: int
    title: str
    description: str | None = None
    closed: bool
    public: bool
    url: str


class ProjectList(BaseModel):
    projects: list[ProjectSummary]
    next_cursor: str | None = None


class Choice(BaseModel):
    id: str
    name: str


class IterationInfo(BaseModel):
    id: str
    title: str
    start_date: str
    duration_days: int
    completed: bool = False


class FieldInfo(BaseModel):
    id: str
    database_id: int | None = None  # REST's field id (views' visible_fields)
    name: str
    type: str
    options: list[Choice] | None = None
    iterations: list[IterationInfo] | None = None


class ViewInfo(BaseModel):
    id: str | None = None
    database_id: int | None = None
    number: int
    name: str
    layout: str
    filter: str | None = None
    visible_fields: list[int] | None = None


class Project(ProjectSummary):
    fields: list[FieldInfo]
    views: list[ViewInfo]


class ProjectItem(BaseModel):
    id: str
    type: str
    archived: bool
    repository: str | None = None
    number: int | None = None
    title: str | None = None
    state: str | None = None
    url: str | None = None
    values: dict[str, str | float] = {}


class ItemPage(BaseModel):
    project_id: str
    items: list[ProjectItem]
    next_cursor: str | None = None


def _text(value: str | None, cap: int = TEXT_CAP) -> str | None:
    return None if value is None else cut_text(strip_invisible(value), cap)[0]


def _after(cursor: str | None) -> str | None:
    after = decode_cursor(cursor).get("after") if cursor else None
    if after is not None and not isinstance(after, str):
        raise invalid_input("cursor is not valid", hint="pass next_cursor unchanged")
    return after


class _Owner(TypedDict, total=False):
    """The organisation or user node of a projects query: the one field the query asked."""

    projectsV2: dict[str, Any]
    projectV2: dict[str, Any] | None


def _owner(data: dict[str, Any] | None, owner: str) -> _Owner:
    found: _Owner | None = (data or {}).get("owner")
    if not found:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"No organisation or user {owner!r}.",
            hint=(
                "Check the login's spelling; search_users finds users, and the token "
                "must see the organisation."
            ),
        )
    return found


def _query(template: str, owner_type: OwnerType) -> str:
    return template.replace("OWNER", owner_type)


def _summary(node: dict[str, Any]) -> ProjectSummary:
    return ProjectSummary(
        id=node["id"],
        number=node["number"],
        title=_text(node["title"]) or "",
        description=_text(node.get("shortDescription")),
        closed=node["closed"],
        public=node["public"],
        url=node["url"],
    )


async def list_projects(
    github: GitHubClient,
    owner: str,
    owner_type: OwnerType,
    query: str | None,
    *,
    limit: int,
    cursor: str | None,
) -> ProjectList:
    after = _after(cursor)
    variables = {"login": owner, "first": limit, "after": after, "query": query}
    data = await github.graphql(_query(LIST_PROJECTS, owner_type), variables)
    found = _owner(data, owner)["projectsV2"]
    info = found["pageInfo"]
    more = encode_cursor({"after": info["endCursor"]}) if info["hasNextPage"] else None
    return ProjectList(projects=[_summary(n) for n in found["nodes"]], next_cursor=more)


def _iterations(config: dict[str, Any]) -> list[IterationInfo]:
    found = [
        IterationInfo(
            id=i["id"],
            title=_text(i["title"]) or "",
            start_date=i["startDate"],
            duration_days=i["duration"],
            completed=done,
        )
        for key, done in (("iterations", False), ("completedIterations", True))
        for i in config.get(key) or []
    ]
    return sorted(found, key=lambda i: i.start_date)


def _field(node: dict[str, Any]) -> FieldInfo:
    found = FieldInfo(
        id=node["id"], database_id=node.get("databaseId"), name=_text(node["name"]) or "",
        type=node["dataType"],
    )  # fmt: skip
    if "options" in node:
        found.options = [Choice(id=o["id"], name=_text(o["name"]) or "") for o in node["options"]]
    if "configuration" in node:
        found.iterations = _iterations(node["configuration"])
    return found


async def get_project(
    github: GitHubClient, owner: str, owner_type: OwnerType, number: int
) -> Project:
    variables = {"login": owner, "number": number, "fields": FIELDS_PER_PROJECT}
    data = await github.graphql(_query(GET_PROJECT, owner_type), variables)
    node = _owner(data, owner)["projectV2"]
    if node is None:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"{owner} has no project number {number}.",
            hint="List the owner's projects and their numbers with list_projects.",
        )
    views = [
        ViewInfo(number=v["number"], name=_text(v["name"]) or "", layout=v["layout"],
                 filter=_text(v.get("filter")))
        for v in node["views"]["nodes"]
    ]  # fmt: skip
    fields = [_field(f) for f in node["fields"]["nodes"] if f]
    return Project(**_summary(node).model_dump(), fields=fields, views=views)


def _value(node: dict[str, Any]) -> tuple[str, str | float] | None:
    field = node.get("field") or {}
    for key in ("text", "number", "date", "name", "title"):
        value = node.get(key)
        if value is not None and field.get("name"):
            return field["name"], value if key == "number" else _text(value) or ""
    return None


def item(node: dict[str, Any]) -> ProjectItem:
    content = node.get("content") or {}
    values = (_value(v) for v in node["fieldValues"]["nodes"] if v)
    found = ProjectItem(
        id=node["id"],
        type=node["type"],
        archived=node["isArchived"],
        values=dict(v for v in values if v is not None),
    )
    if content.get("url"):
        parts = urlparse(content["url"]).path.strip("/").split("/")
        found.repository = "/".join(parts[-4:-2])
        found.number = content["number"]
        found.state = content.get("state") or content.get("prState")
        found.title, found.url = _text(content["title"]), content["url"]
    if found.values.get("Title") == found.title:
        del found.values["Title"]  # the built-in Title field repeats the content's title
    return found


async def list_items(
    github: GitHubClient,
    owner: str,
    owner_type: OwnerType,
    number: int,
    *,
    limit: int,
    cursor: str | None,
) -> ItemPage:
    after = _after(cursor)
    variables = {"login": owner, "number": number, "first": limit, "after": after}
    data = await github.graphql(_query(LIST_ITEMS, owner_type), variables)
    node = _owner(data, owner)["projectV2"]
    if node is None:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"{owner} has no project number {number}.",
            hint="List the owner's projects and their numbers with list_projects.",
        )
    info = node["items"]["pageInfo"]
    more = encode_cursor({"after": info["endCursor"]}) if info["hasNextPage"] else None
    items = [item(n) for n in node["items"]["nodes"] if n]
    return ItemPage(project_id=node["id"], items=items, next_cursor=more)


async def add_item(
    github: GitHubClient, project_id: str, full_name: str, number: int
) -> ProjectItem:
    issue = await github.request_json("GET", f"{repo_path(full_name)}/issues/{number}")
    variables = {"project": project_id, "content": issue["node_id"]}
    data = await github.graphql(ADD_ITEM, variables)
    return item(data["addProjectV2ItemById"]["item"])


# GitHub's ProjectV2FieldValue input: one of text, number, date, singleSelectOptionId,
# iterationId.
FieldValue = dict[str, str | float]


def field_value(**given: str | float | None) -> FieldValue:
    """GitHub's ProjectV2FieldValue: exactly one of the kinds."""
    chosen: FieldValue = {k: v for k, v in given.items() if v is not None}
    if len(chosen) != 1:
        raise invalid_input(
            "give exactly one value",
            hint="one of text, number, date, option_id (single select), iteration_id",
        )
    names = {"option_id": "singleSelectOptionId", "iteration_id": "iterationId"}
    return {names.get(k, k): v for k, v in chosen.items()}


async def update_value(
    github: GitHubClient, project_id: str, item_id: str, field_id: str, value: FieldValue
) -> ProjectItem:
    variables = {"project": project_id, "item": item_id, "field": field_id, "value": value}
    data = await github.graphql(UPDATE_VALUE, variables)
    return item(data["updateProjectV2ItemFieldValue"]["projectV2Item"])


async def archive_item(github: GitHubClient, project_id: str, item_id: str) -> ProjectItem:
    data = await github.graphql(ARCHIVE_ITEM, {"project": project_id, "item": item_id})
    return item(data["archiveProjectV2Item"]["item"])
