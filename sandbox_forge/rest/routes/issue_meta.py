"""Issue types and issue fields, by GitHub's OpenAPI description.

- GET /orgs/{org}/issue-types and /repos/{o}/{r}/issue-types: the organisation's types
  (a user's repository has none); PATCH /repos/{o}/{r}/issues/{n} with `type` sets one
  (see `apply_type`, called by the issues module).
- GET /orgs/{org}/issue-fields: the organisation's custom fields.
- GET, POST (add) and PUT (replace) /repos/{o}/{r}/issues/{n}/issue-field-values, and
  DELETE …/issue-field-values/{field_id}: an issue's values. Writing needs push access
  (403 otherwise, as documented); values are checked against the field's data type.
"""

from __future__ import annotations

import datetime
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import invalid_request, json_response, not_found, validation_failed
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.stores import issue_meta as meta
from sandbox_forge.stores.collab import Issue
from sandbox_forge.stores.lookups import get_issue, node_id, now
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

MAX_VALUES = 25  # the requestBody's maxItems
MAX_TEXT = 1024
CONFIDENCE = ("low", "medium", "high")


def _org_or_404(ctx: Ctx) -> str:
    """The organisation of the path, when the caller may see it: a member, or a sandbox
    token not bound to its user's roles (those reach every repository)."""
    org = ctx.state.user(ctx.params["org"])
    if org is None or org.type != "Organization":
        raise not_found()
    principal = ctx.principal
    if principal.anonymous:
        raise not_found()
    if principal.role_of is not None:
        if ctx.state.access.org_role(org.login, (principal.login or "").lower()) is None:
            raise not_found()
    return org.login


@endpoint
def list_org_types(ctx: Ctx) -> Response:
    org = _org_or_404(ctx)
    return json_response([meta.type_json(t) for t in meta.org_types(ctx.state, org)])


@endpoint
def list_repo_types(ctx: Ctx) -> Response:
    repo = ctx.repo()
    found = [t for t in meta.org_types(ctx.state, repo.owner) if t.is_enabled]
    return json_response([meta.type_json(t) for t in found])


def _field_json(found: meta.IssueField) -> dict[str, Any]:
    return {
        "id": found.id,
        "node_id": f"IFT_kwDO{found.id:08d}",
        "name": found.name,
        "description": found.description,
        "data_type": found.data_type,
        "visibility": found.visibility,
        "options": [
            {
                "id": o.id,
                "name": o.name,
                "description": o.description,
                "color": o.color,
                "priority": o.priority,
            }
            for o in found.options
        ]
        if found.data_type in ("single_select", "multi_select")
        else None,
        "created_at": meta.iso(found.created_at),
        "updated_at": meta.iso(found.updated_at),
    }


@endpoint
def list_org_fields(ctx: Ctx) -> Response:
    org = _org_or_404(ctx)
    return json_response([_field_json(f) for f in meta.org_fields(ctx.state, org)])


# --- an issue's type --------------------------------------------------------------------------


def apply_type(ctx: Ctx, repo: RepoRecord, issue: Issue, value: Any) -> None:
    """The `type` of an issue update: a type name, null to clear, or an object with
    `value` and optional rationale, suggest and confidence. A suggestion is kept for a
    human and changes nothing. Call under state.lock."""
    extra: dict[str, Any] = {}
    if isinstance(value, dict):
        extra, value = value, value.get("value")
        _check_intent(extra)
    if value is not None and not isinstance(value, str):
        raise invalid_request(f"For 'properties/type', {value!r} is not a string or null.")
    found = None
    if value is not None:
        found = meta.find_type(ctx.state, repo.owner, value)
        if found is None:
            raise validation_failed(
                {"resource": "Issue", "field": "type", "code": "invalid", "value": value}
            )
    if extra.get("suggest") is True:
        meta.store(ctx.state).suggestions.append(
            {"issue_id": issue.id, "type": value, **{k: extra[k] for k in extra if k != "value"}}
        )
        return
    meta.set_type(ctx.state, issue.id, found)


def _check_intent(extra: dict[str, Any]) -> None:
    if "rationale" in extra and not isinstance(extra["rationale"], str):
        raise invalid_request("For 'properties/rationale', the value is not a string.")
    if "suggest" in extra and not isinstance(extra["suggest"], bool):
        raise invalid_request("For 'properties/suggest', the value is not a boolean.")
    if "confidence" in extra and extra["confidence"] not in CONFIDENCE:
        raise invalid_request("For 'properties/confidence', the value is not low, medium or high.")


# --- an issue's field values ------------------------------------------------------------------


def _value_json(repo: RepoRecord, found: meta.IssueField, value: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "issue_field_id": found.id,
        "issue_field_name": found.name,
        "node_id": node_id("IFV", repo, found.id),
        "data_type": found.data_type,
        "value": None if found.data_type == "multi_select" else value,
    }
    picked = [found.option(n) for n in (value if isinstance(value, list) else [value])]
    options = [{"id": o.id, "name": o.name, "color": o.color} for o in picked if o is not None]
    if found.data_type == "single_select":
        data["single_select_option"] = options[0] if options else None
    if found.data_type == "multi_select":
        data["multi_select_options"] = options
    return data


def _values_response(ctx: Ctx, repo: RepoRecord, issue: Issue) -> Response:
    fields = {f.id: f for f in meta.org_fields(ctx.state, repo.owner)}
    current = meta.values_of(ctx.state, issue.id)
    found = [_value_json(repo, fields[i], v) for i, v in current.items() if i in fields]
    return json_response(found)


@endpoint
def list_values(ctx: Ctx) -> Response:
    repo = ctx.repo()
    return _values_response(ctx, repo, get_issue(repo, ctx.params["number"]))


def _invalid(field_id: Any, reason: str) -> Exception:
    return validation_failed(
        {
            "resource": "IssueFieldValue",
            "field": "value",
            "code": "invalid",
            "message": f"Field {field_id}: {reason}",
        }
    )


def _checked_options(found: meta.IssueField, value: Any, lists: bool) -> list[str]:
    names = value if isinstance(value, list) else None
    if not lists or names is None or not all(isinstance(n, str) for n in names):
        raise _invalid(found.id, "a multi-select field takes an array of option names")
    options = [found.option(n) for n in names]
    if any(option is None for option in options):
        raise _invalid(found.id, "not an option of this field")
    return [option.name for option in options if option is not None]


def _checked_value(found: meta.IssueField, value: Any, lists: bool) -> Any:
    """The value as stored, or 422 when it does not fit the field's data type."""
    kind = found.data_type
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _invalid(found.id, "a number field takes a number")
        return value
    if kind == "multi_select":
        return _checked_options(found, value, lists)
    if not isinstance(value, str):
        raise _invalid(found.id, f"a {kind} field takes a string")
    if kind == "single_select":
        option = found.option(value)
        if option is None:
            raise _invalid(found.id, "not an option of this field")
        return option.name
    if kind == "date":
        try:
            return datetime.date.fromisoformat(value).isoformat()
        except ValueError:
            raise _invalid(found.id, "a date field takes an ISO 8601 date") from None
    if len(value) > MAX_TEXT:
        raise _invalid(found.id, f"text is longer than {MAX_TEXT} characters")
    return value


def _parsed_values(ctx: Ctx, repo: RepoRecord, lists: bool) -> dict[int, Any]:
    body = ctx.json()
    items = body.get("issue_field_values")
    if not isinstance(items, list):
        raise invalid_request(f"For 'properties/issue_field_values', {items!r} is not an array.")
    if len(items) > MAX_VALUES:
        raise invalid_request(f"For 'properties/issue_field_values', more than {MAX_VALUES}.")
    fields = {f.id: f for f in meta.org_fields(ctx.state, repo.owner)}
    parsed: dict[int, Any] = {}
    for item in items:
        if not isinstance(item, dict) or set(item) != {"field_id", "value"}:
            raise invalid_request("Each issue field value has exactly field_id and value.")
        field_id = item["field_id"]
        if isinstance(field_id, bool) or not isinstance(field_id, int):
            raise invalid_request(f"For 'properties/field_id', {field_id!r} is not an integer.")
        if field_id not in fields:
            raise _invalid(field_id, "no such issue field in this organization")
        parsed[field_id] = _checked_value(fields[field_id], item["value"], lists)
    return parsed


def _write_values(ctx: Ctx, replace: bool) -> Response:
    repo = ctx.repo(write=True)
    issue = get_issue(repo, ctx.params["number"])
    parsed = _parsed_values(ctx, repo, lists=not replace)
    with ctx.state.lock:
        values = meta.store(ctx.state).values
        if replace or not parsed:  # an empty add clears every value, as documented
            values[issue.id] = {}
        values.setdefault(issue.id, {}).update(parsed)
        issue.updated_at = now()
    return _values_response(ctx, repo, issue)


@endpoint
def add_values(ctx: Ctx) -> Response:
    return _write_values(ctx, replace=False)


@endpoint
def set_values(ctx: Ctx) -> Response:
    return _write_values(ctx, replace=True)


@endpoint
def delete_value(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    issue = get_issue(repo, ctx.params["number"])
    with ctx.state.lock:
        current = meta.store(ctx.state).values.get(issue.id, {})
        if current.pop(ctx.params["field_id"], None) is None:
            raise not_found()
        issue.updated_at = now()
    return Response(status_code=204)


def routes(state: ForgeState) -> list[Route]:
    values = "/repos/{owner}/{repo}/issues/{number:int}/issue-field-values"
    return [
        Route("/orgs/{org}/issue-types", list_org_types, methods=["GET"]),
        Route("/repos/{owner}/{repo}/issue-types", list_repo_types, methods=["GET"]),
        Route("/orgs/{org}/issue-fields", list_org_fields, methods=["GET"]),
        Route(values, list_values, methods=["GET"]),
        Route(values, add_values, methods=["POST"]),
        Route(values, set_values, methods=["PUT"]),
        Route(values + "/{field_id:int}", delete_value, methods=["DELETE"]),
    ]
