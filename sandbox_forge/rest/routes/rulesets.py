"""Repository rulesets by GitHub's REST API: list, create, get, update and delete a
repository's rulesets (rules.py answers "get rules for a branch")."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import json_response, not_found
from sandbox_forge.kernel.formats import iso
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import repo_role
from sandbox_forge.stores.access import at_least
from sandbox_forge.stores.lookups import node_id
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.rulesets import (
    Ruleset,
    create_ruleset,
    delete_ruleset,
    rulesets,
    update_ruleset,
)
from sandbox_forge.stores.state import ForgeState


def can_bypass(ruleset: Ruleset, role: str | None) -> str:
    """GitHub's current_user_can_bypass: "always" for an admin an admin actor lets through."""
    return "always" if ruleset.admin_bypass() and at_least(role, "admin") else "never"


def ruleset_json(
    urls: Urls, repo: RepoRecord, ruleset: Ruleset, role: str | None, *, full: bool = True
) -> dict[str, Any]:
    api = f"{urls.repo(repo.full_name)}/rulesets/{ruleset.id}"
    data: dict[str, Any] = {
        "id": ruleset.id,
        "name": ruleset.name,
        "target": ruleset.target,
        "source_type": "Repository",
        "source": repo.full_name,
        "enforcement": ruleset.enforcement,
        "node_id": node_id("RRS", repo, ruleset.id),
        "_links": {
            "self": {"href": api},
            "html": {"href": f"{urls.repo_html(repo.full_name)}/rules/{ruleset.id}"},
        },
        "created_at": iso(ruleset.created_at),
        "updated_at": iso(ruleset.updated_at),
    }
    if full:
        data["bypass_actors"] = [dict(a) for a in ruleset.bypass_actors]
        data["current_user_can_bypass"] = can_bypass(ruleset, role)
        data["conditions"] = {
            "ref_name": {"include": list(ruleset.include), "exclude": list(ruleset.exclude)}
        }
        data["rules"] = [dict(rule) for rule in ruleset.rules]
    return data


def _ruleset(ctx: Ctx, repo: RepoRecord) -> Ruleset:
    try:
        found = rulesets(repo).get(int(ctx.params["ruleset_id"]))
    except ValueError:
        found = None
    if found is None:
        raise not_found()
    return found


def _role(ctx: Ctx, repo: RepoRecord) -> str | None:
    return repo_role(ctx.principal, repo)


@endpoint
def list_rulesets(ctx: Ctx):
    repo = ctx.repo()
    role = _role(ctx, repo)
    items = [rs for _, rs in sorted(rulesets(repo).items())]
    targets = ctx.query.get("targets")
    if targets:
        wanted = {t.strip() for t in targets.split(",")}
        items = [rs for rs in items if rs.target in wanted]
    return ctx.paginate(items, lambda rs: ruleset_json(ctx.urls, repo, rs, role, full=False))


@endpoint
def create_endpoint(ctx: Ctx):
    repo = ctx.repo(need="admin")
    ruleset = create_ruleset(ctx.state, repo, ctx.json())
    return json_response(ruleset_json(ctx.urls, repo, ruleset, _role(ctx, repo)), status=201)


@endpoint
def get_endpoint(ctx: Ctx):
    repo = ctx.repo()
    return json_response(ruleset_json(ctx.urls, repo, _ruleset(ctx, repo), _role(ctx, repo)))


@endpoint
def update_endpoint(ctx: Ctx):
    repo = ctx.repo(need="admin")
    ruleset = update_ruleset(ctx.state, repo, _ruleset(ctx, repo), ctx.json())
    return json_response(ruleset_json(ctx.urls, repo, ruleset, _role(ctx, repo)))


@endpoint
def delete_endpoint(ctx: Ctx):
    repo = ctx.repo(need="admin")
    if not delete_ruleset(ctx.state, repo, _ruleset(ctx, repo).id):
        raise not_found()
    return Response(status_code=204)


def rules_url(urls: Urls, repo: RepoRecord, ref: str) -> str:
    """Where GitHub's push rejection sends people to review the rules on ref."""
    return f"{urls.repo_html(repo.full_name)}/rules?ref={quote(ref, safe='')}"


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}"
    return [
        Route(f"{base}/rulesets", list_rulesets, methods=["GET"]),
        Route(f"{base}/rulesets", create_endpoint, methods=["POST"]),
        Route(f"{base}/rulesets/{{ruleset_id}}", get_endpoint, methods=["GET"]),
        Route(f"{base}/rulesets/{{ruleset_id}}", update_endpoint, methods=["PUT"]),
        Route(f"{base}/rulesets/{{ruleset_id}}", delete_endpoint, methods=["DELETE"]),
    ]
