"""A repository's milestones by GitHub's REST description: list (state, sort, direction),
get, and create (the demo seeds through the store)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import invalid_request, json_response, missing_field
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.collab_api import created_response, found_or_404
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.lookups import actor_login
from sandbox_forge.stores.milestones import (
    Milestone,
    create_milestone,
    milestone_json,
    milestones,
)
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

STATES = ("open", "closed", "all")
SORTS = ("due_on", "completeness")


def _query(ctx: Ctx, name: str, allowed: tuple[str, ...], default: str) -> str:
    value = ctx.query.get(name) or default
    if value not in allowed:
        raise invalid_request(f"For '{name}', {value!r} is not a member of {list(allowed)}.")
    return value


def _completeness(repo: RepoRecord, milestone: Milestone) -> float:
    carried = [i for i in collab(repo).issues.values() if i.milestone == milestone.number]
    return sum(1 for i in carried if i.state == "closed") / len(carried) if carried else 0.0


@endpoint
def list_milestones(ctx: Ctx) -> Response:
    repo = ctx.repo()
    state = _query(ctx, "state", STATES, "open")
    sort = _query(ctx, "sort", SORTS, "due_on")
    descending = _query(ctx, "direction", ("asc", "desc"), "asc") == "desc"
    found = [m for m in milestones(repo).values() if state in ("all", m.state)]

    def key(m: Milestone) -> tuple[Any, ...]:
        if sort == "completeness":
            return (_completeness(repo, m), m.number)
        return (m.due_on is None, m.due_on or "", m.number)  # undated ones last

    found.sort(key=key, reverse=descending)
    return ctx.paginate(found, lambda m: milestone_json(ctx.state, ctx.urls, repo, m))


@endpoint
def get_milestone(ctx: Ctx) -> Response:
    repo = ctx.repo()
    milestone = found_or_404(milestones(repo), ctx.params["milestone_number"])
    return json_response(milestone_json(ctx.state, ctx.urls, repo, milestone))


def _text(body: dict[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is not None and not isinstance(value, str):
        raise invalid_request(f"For 'properties/{name}', {value!r} is not a string.")
    return value


@endpoint
def create_milestone_endpoint(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    body = ctx.json()
    title = _text(body, "title")
    if not title:
        raise missing_field("title")
    milestone = create_milestone(
        ctx.state,
        repo,
        actor_login(ctx.principal),
        title,
        _text(body, "description"),
        _text(body, "due_on"),
    )
    return created_response(milestone_json(ctx.state, ctx.urls, repo, milestone))


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}/milestones"
    return [
        Route(base, list_milestones, methods=["GET"]),
        Route(base, create_milestone_endpoint, methods=["POST"]),
        Route(f"{base}/{{milestone_number:int}}", get_milestone, methods=["GET"]),
    ]
