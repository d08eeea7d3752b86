"""Projects (v2) over REST, by GitHub's OpenAPI description: creating a view in an
organisation's or a user's project (POST …/projectsV2/{project_number}/views; a user's
project is named by the user's numeric id). Projects themselves live in
stores/projects.py, and GraphQL (graphql/projects.py) serves the rest of them.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import (
    ApiError,
    invalid_request,
    json_response,
    not_found,
    validation_failed,
)
from sandbox_forge.kernel.formats import iso, simple_user
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.project_access import project_access
from sandbox_forge.stores import projects as store
from sandbox_forge.stores.projects import Project, View
from sandbox_forge.stores.records import UserRecord
from sandbox_forge.stores.state import ForgeState

LAYOUTS = {"table": "TABLE_LAYOUT", "board": "BOARD_LAYOUT", "roadmap": "ROADMAP_LAYOUT"}
KNOWN = {"name", "layout", "filter", "visible_fields", "sort_by", "group_by", "vertical_group_by"}


def _project(ctx: Ctx, owner: UserRecord | None) -> Project:
    number = ctx.params["project_number"]
    found = None
    if owner is not None and str(number).isdigit():
        found = next(
            (p for p in store.owned_by(ctx.state, owner.login) if p.number == int(number)), None
        )
    seen = found is not None and project_access(ctx.state, ctx.principal, found)
    if found is None or not seen:
        raise not_found()
    if project_access(ctx.state, ctx.principal, found) != "write":
        raise ApiError(403, "Resource not accessible by integration")
    return found


def _fields(project: Project, body: dict[str, Any], layout: str) -> list[int]:
    wanted = body.get("visible_fields")
    if wanted is None:
        return []
    if not isinstance(wanted, list) or not all(
        isinstance(f, int) and not isinstance(f, bool) for f in wanted
    ):
        raise invalid_request("For 'properties/visible_fields', the value is not an array of ids.")
    if layout == "ROADMAP_LAYOUT" and wanted:
        raise validation_failed(
            {"resource": "ProjectV2View", "field": "visible_fields", "code": "invalid",
             "message": "visible_fields is not applicable to roadmap layout views"}
        )  # fmt: skip
    known = {f.id for f in project.fields}
    unknown = [f for f in wanted if f not in known]
    if unknown:
        raise validation_failed(
            {"resource": "ProjectV2View", "field": "visible_fields", "code": "invalid",
             "message": f"unknown field ids: {unknown}"}
        )  # fmt: skip
    return list(wanted)


def view_json(ctx: Ctx, project: Project, view: View) -> dict[str, Any]:
    owner = ctx.state.user(project.owner)
    kind = "orgs" if owner is not None and owner.type == "Organization" else "users"
    creator = ctx.state.user(view.creator or "") or owner
    assert creator is not None
    return {
        "id": view.id,
        "number": view.number,
        "name": view.name,
        "layout": next(k for k, v in LAYOUTS.items() if v == view.layout),
        "node_id": f"PVTV_{view.id}",
        "project_url": f"{ctx.urls.api}/{kind}/{project.owner}/projectsV2/{project.number}",
        "html_url": f"{ctx.urls.web}/{kind}/{project.owner}/projects/{project.number}"
        f"/views/{view.number}",
        "creator": simple_user(ctx.urls, creator),
        "created_at": iso(view.created_at),
        "updated_at": iso(view.created_at),
        "filter": view.filter,
        "visible_fields": list(view.visible_fields),
        "sort_by": [],
        "group_by": [],
        "vertical_group_by": [],
    }


def _create(ctx: Ctx, owner: UserRecord | None) -> Response:
    project = _project(ctx, owner)
    body = ctx.json()
    if set(body) - KNOWN:
        extra = sorted(set(body) - KNOWN)[0]
        raise invalid_request(f"{extra} is not a permitted key.")
    name, layout = body.get("name"), body.get("layout")
    if not isinstance(name, str) or not name.strip():
        raise invalid_request('"name" wasn\'t supplied.')
    if layout not in LAYOUTS:
        raise invalid_request(
            f"For 'properties/layout', {layout!r} is not one of table, board or roadmap."
        )
    view_filter = body.get("filter")
    if view_filter is not None and not isinstance(view_filter, str):
        raise invalid_request("For 'properties/filter', the value is not a string.")
    visible = _fields(project, body, LAYOUTS[layout])
    creator = ctx.principal.login or project.owner
    view = store.add_view(
        ctx.state, project, name.strip(), LAYOUTS[layout], creator,
        filter=view_filter, visible=visible,
    )  # fmt: skip
    return json_response(view_json(ctx, project, view), 201)


@endpoint
def create_org_view(ctx: Ctx) -> Response:
    org = ctx.state.user(ctx.params["org"])
    return _create(ctx, org if org is not None and org.type == "Organization" else None)


@endpoint
def create_user_view(ctx: Ctx) -> Response:
    wanted = ctx.params["user_id"]
    user = next(
        (u for u in ctx.state.users.values() if str(u.id) == wanted and u.type == "User"), None
    )
    return _create(ctx, user)


def routes(state: ForgeState) -> list[Route]:
    return [
        Route("/orgs/{org}/projectsV2/{project_number}/views", create_org_view, methods=["POST"]),
        Route(
            "/users/{user_id}/projectsV2/{project_number}/views", create_user_view, methods=["POST"]
        ),
    ]
