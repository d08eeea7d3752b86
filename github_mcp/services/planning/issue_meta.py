"""Issue types and issue fields (GitHub's custom fields) over the REST API.

Both are defined by an organisation: GET /repos/{o}/{r}/issue-types lists the types an
issue in that repository may take, GET /orgs/{org}/issue-fields the fields. An issue's type
is set by PATCH /repos/{o}/{r}/issues/{n} with `type` (a name, or an object adding
rationale, confidence and suggest); its field values by POST (merge) or PUT (replace)
/repos/{o}/{r}/issues/{n}/issue-field-values, one DELETE per cleared field. Names are
matched here, case-insensitively, so a wrong one is refused with the valid ones before
anything is written.
"""

from __future__ import annotations

import asyncio
import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, StrictFloat, StrictStr

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, invalid_input
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.repo_facts import repo_path

Confidence = Literal["low", "medium", "high"]
FieldValue = StrictStr | StrictFloat | list[StrictStr] | None
MAX_VALUES = 25  # GitHub's limit per request


def _text(value: Any, limit: int = 300) -> str:
    return cut_text(strip_invisible(str(value or "")), limit)[0]


class IssueType(BaseModel):
    name: str
    description: str | None = None
    color: str | None = None


class IssueTypes(BaseModel):
    full_name: str
    types: list[IssueType]
    note: str | None = None


class TypeChange(BaseModel):
    number: int
    type: str | None = Field(description="The issue's type after the call.")
    suggested: bool = Field(description="True: kept as a suggestion for a human, not applied.")
    url: str


async def list_types(github: GitHubClient, full_name: str) -> IssueTypes:
    found = await github.request_json("GET", f"{repo_path(full_name)}/issue-types")
    types = [
        IssueType(
            name=_text(t["name"], 100),
            description=_text(t.get("description"), 300) or None,
            color=t.get("color"),
        )
        for t in found or []
        if t.get("is_enabled", True)
    ]
    note = None if types else "No issue types: they exist only in organisation repositories."
    return IssueTypes(full_name=full_name, types=types, note=note)


async def set_type(
    github: GitHubClient,
    full_name: str,
    number: int,
    name: str | None,
    *,
    rationale: str | None = None,
    confidence: Confidence | None = None,
    suggest: bool = False,
) -> TypeChange:
    """Set (or with name None clear) an issue's type, by its name."""
    if name is not None:
        known = (await list_types(github, full_name)).types
        match = next((t.name for t in known if t.name.lower() == name.lower()), None)
        if match is None:
            raise invalid_input(
                f"no issue type {name!r} in {full_name}",
                hint="Valid types: " + (", ".join(t.name for t in known) or "none"),
            )
        name = match
    value: Any = name
    if rationale or confidence or suggest:
        value = {"value": name, "suggest": suggest}
        value.update({k: v for k, v in (("rationale", rationale), ("confidence", confidence)) if v})
    path = f"{repo_path(full_name)}/issues/{number}"
    issue = await github.request_json("PATCH", path, json_body={"type": value})
    now = (issue.get("type") or {}).get("name")
    if not suggest and (now or "").lower() != (name or "").lower():
        raise GitHubMCPError(
            ErrorCode.PERMISSION_DENIED,
            "GitHub did not change the issue's type",
            hint="Only users with push access can set a type; GitHub drops it silently.",
        )
    return TypeChange(number=number, type=now, suggested=suggest, url=issue["html_url"])


class IssueField(BaseModel):
    id: int
    name: str
    data_type: str
    description: str | None = None
    options: list[str] | None = Field(None, description="For single and multi select.")


class IssueFieldValue(BaseModel):
    field: str
    data_type: str
    value: FieldValue


class IssueFields(BaseModel):
    organization: str
    fields: list[IssueField]
    number: int | None = None
    values: list[IssueFieldValue] | None = Field(None, description="The issue's, if asked.")
    note: str | None = None


async def _org_fields(github: GitHubClient, org: str) -> list[IssueField] | None:
    """The organisation's fields; None when the owner is no organisation (404)."""
    try:
        found = await github.request_json("GET", f"/orgs/{org}/issue-fields")
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:
            return None
        raise
    return [
        IssueField(
            id=f["id"],
            name=_text(f["name"], 100),
            data_type=f["data_type"],
            description=_text(f.get("description")) or None,
            options=[_text(o["name"], 100) for o in f.get("options") or []] or None,
        )
        for f in found or []
    ]


def _value(item: dict[str, Any]) -> IssueFieldValue:
    kind = item["data_type"]
    value: FieldValue = item.get("value")
    if kind == "single_select" and item.get("single_select_option"):
        value = item["single_select_option"]["name"]
    elif kind == "multi_select":
        value = [o["name"] for o in item.get("multi_select_options") or []]
    if isinstance(value, str):
        value = _text(value, 1024)
    name = item.get("issue_field_name") or str(item["issue_field_id"])
    return IssueFieldValue(field=_text(name, 100), data_type=kind, value=value)


async def _issue_values(github: GitHubClient, full_name: str, number: int) -> list[IssueFieldValue]:
    path = f"{repo_path(full_name)}/issues/{number}/issue-field-values"
    page = await github.paginate(path, limit=100, repo=full_name)
    return [_value(i) for i in page.items]


async def list_fields(github: GitHubClient, full_name: str, number: int | None) -> IssueFields:
    org = full_name.split("/")[0]
    fields = await _org_fields(github, org)
    if fields is None:
        note = f"{org} is not an organisation: issue fields exist only in organisations."
        return IssueFields(organization=org, fields=[], note=note)
    values = await _issue_values(github, full_name, number) if number is not None else None
    return IssueFields(organization=org, fields=fields, number=number, values=values)


def _checked(field: IssueField, value: FieldValue, replace: bool) -> str | float | list[str]:
    """The value GitHub takes for this field, or invalid_input saying what fits."""
    kind, options = field.data_type, field.options or []

    def option(name: str) -> str:
        match = next((o for o in options if o.lower() == name.strip().lower()), None)
        if match is None:
            raise invalid_input(
                f"{name!r} is not an option of {field.name!r}", hint=", ".join(options)
            )
        return match

    if kind == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if kind == "multi_select" and isinstance(value, list):
        if replace:
            raise invalid_input(
                f"{field.name!r} is multi-select: GitHub's replace takes no lists",
                hint="Use replace=false (merge) to set a multi-select field.",
            )
        return [option(v) for v in value]
    if isinstance(value, str) and kind in ("text", "single_select", "date"):
        if kind == "single_select":
            return option(value)
        if kind == "date":
            try:
                return datetime.date.fromisoformat(value.strip()).isoformat()
            except ValueError:
                raise invalid_input(
                    f"{field.name!r} takes a date like 2030-01-31",
                    hint="Give the date as YYYY-MM-DD.",
                ) from None
        return value
    raise invalid_input(
        f"{str(value)[:100]!r} does not fit {field.name!r}, a {kind} field",
        hint=(
            "Give a value of the field's type; list the fields and their options "
            "with list_issue_fields."
        ),
    )


async def set_fields(
    github: GitHubClient,
    full_name: str,
    number: int,
    values: dict[str, FieldValue],
    *,
    replace: bool = False,
) -> IssueFields:
    """Set field values by field name (None clears one); replace=True drops the others."""
    org = full_name.split("/")[0]
    fields = await _org_fields(github, org)
    if not fields:
        raise invalid_input(f"{org} defines no issue fields", hint="list_issue_fields shows them.")
    by_name = {f.name.lower(): f for f in fields}
    chosen = []
    for name, value in values.items():
        field = by_name.get(name.strip().lower())
        if field is None:
            known = ", ".join(f.name for f in fields)
            raise invalid_input(f"no issue field {name[:100]!r}", hint=known)
        chosen.append((field, value))
    body = [
        {"field_id": f.id, "value": _checked(f, v, replace)} for f, v in chosen if v is not None
    ]
    path = f"{repo_path(full_name)}/issues/{number}/issue-field-values"
    if body or replace:
        method = "PUT" if replace else "POST"
        await github.request_json(method, path, json_body={"issue_field_values": body})
    cleared = [f for f, v in chosen if v is None]
    await asyncio.gather(*(_clear(github, path, f.id) for f in cleared))
    return IssueFields(
        organization=org,
        fields=[],
        number=number,
        values=await _issue_values(github, full_name, number),
    )


async def _clear(github: GitHubClient, path: str, field_id: int) -> None:
    try:
        await github.request_json("DELETE", f"{path}/{field_id}")
    except GitHubMCPError as exc:
        if exc.code != ErrorCode.NOT_FOUND:  # already empty: nothing to clear
            raise
