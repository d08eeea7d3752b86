"""Stars (the authenticated user's), teams (the user's, and a team's members) and the user
search, by GitHub's REST description. Records are in stores/social.py."""

from __future__ import annotations

import time
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, not_found, validation_failed
from sandbox_forge.kernel.formats import iso, node_id, simple_user
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import check_repo, require_user
from sandbox_forge.rest.routes.access import org_json
from sandbox_forge.rest.routes.search import require_q, search_response
from sandbox_forge.rest.shapes.users_repos import repo_json
from sandbox_forge.stores import social
from sandbox_forge.stores.records import RepoRecord, UserRecord
from sandbox_forge.stores.state import ForgeState

ROLES = ("member", "maintainer", "all")


def _starrable(ctx: Ctx) -> RepoRecord:
    require_user(ctx.principal)
    return check_repo(
        ctx.principal, ctx.state.repo(ctx.params["owner"], ctx.params["repo"]), write=False
    )


@endpoint
def list_starred(ctx: Ctx) -> Response:
    login = require_user(ctx.principal)
    starred = social.stars(ctx.state, login)
    found = []
    for full_name, when in starred.items():
        owner, _, name = full_name.partition("/")
        repo = ctx.state.repo(owner, name)
        if repo is not None and _readable(ctx, repo):
            found.append((when, repo))
    newest = ctx.query.get("direction", "desc") != "asc"
    if ctx.query.get("sort") == "updated":
        found.sort(key=lambda pair: pair[1].pushed_at, reverse=newest)
    else:
        found.sort(key=lambda pair: pair[0], reverse=newest)
    return ctx.paginate(
        [repo for _, repo in found],
        lambda repo: repo_json(ctx.state, ctx.urls, repo, ctx.principal),
    )


def _readable(ctx: Ctx, repo: RepoRecord) -> bool:
    try:
        check_repo(ctx.principal, repo, write=False)
    except ApiError:
        return False
    return True


@endpoint
def is_starred(ctx: Ctx) -> Response:
    repo = _starrable(ctx)
    starred = social.stars(ctx.state, require_user(ctx.principal))
    if repo.full_name.lower() not in starred:
        raise not_found()
    return Response(status_code=204)


@endpoint
def star(ctx: Ctx) -> Response:
    repo = _starrable(ctx)
    with ctx.state.lock:
        starred = social.stars(ctx.state, require_user(ctx.principal))
        starred.setdefault(repo.full_name.lower(), time.time())
    return Response(status_code=204)


@endpoint
def unstar(ctx: Ctx) -> Response:
    repo = _starrable(ctx)
    with ctx.state.lock:
        social.stars(ctx.state, require_user(ctx.principal)).pop(repo.full_name.lower(), None)
    return Response(status_code=204)


def team_json(ctx: Ctx, team: social.Team) -> dict[str, Any]:
    org = ctx.state.user(team.org)
    assert org is not None
    api = f"{ctx.urls.api}/organizations/{org.id}/team/{team.id}"
    organization = {
        **org_json(ctx.urls, org),
        "html_url": f"{ctx.urls.web}/{org.login}",
        "has_organization_projects": True,
        "has_repository_projects": True,
        "public_repos": sum(
            1
            for r in ctx.state.all_repos()
            if r.owner.lower() == org.login.lower() and not r.private
        ),
        "public_gists": 0,
        "followers": 0,
        "following": 0,
        "type": "Organization",
        "created_at": iso(org.created_at),
        "updated_at": iso(org.created_at),
        "archived_at": None,
    }
    return {
        "id": team.id,
        "node_id": node_id("Team", team.id),
        "url": api,
        "html_url": f"{ctx.urls.web}/orgs/{org.login}/teams/{team.slug}",
        "name": team.name,
        "slug": team.slug,
        "description": team.description,
        "privacy": team.privacy,
        "notification_setting": "notifications_enabled",
        "permission": team.permission,
        "members_url": f"{api}/members{{/member}}",
        "repositories_url": f"{api}/repos",
        "parent": None,
        "type": "organization",
        "created_at": iso(team.created_at),
        "updated_at": iso(team.updated_at),
        "members_count": len(team.members),
        "repos_count": 0,
        "organization": organization,
    }


@endpoint
def my_teams(ctx: Ctx) -> Response:
    login = require_user(ctx.principal)
    return ctx.paginate(social.teams_of(ctx.state, login), lambda t: team_json(ctx, t))


def _sees_team(ctx: Ctx, team: social.Team) -> bool:
    """A visible team is seen by its organisation's members; a secret one by its own.
    Sandbox tokens not bound to their user's roles see every team, as they reach every
    repository."""
    if ctx.principal.role_of is None and not ctx.principal.anonymous:
        return True
    login = (ctx.principal.login or "").lower()
    if team.privacy == "secret":
        return login in team.members
    return ctx.state.access.org_role(team.org, login) is not None


FULL_ONLY = ("members_count", "repos_count", "organization", "created_at", "updated_at")


@endpoint
def org_team_list(ctx: Ctx) -> Response:
    """GET /orgs/{org}/teams: the organisation's teams the caller can see (GitHub's `team`,
    without the organisation and counts that team-full adds)."""
    org = ctx.state.user(ctx.params["org"])
    if org is None or org.type != "Organization":
        raise not_found()
    teams = sorted(social.org_teams(ctx.state, org.login).values(), key=lambda t: t.slug)
    seen = [t for t in teams if _sees_team(ctx, t)]
    return ctx.paginate(
        seen,
        lambda t: {k: v for k, v in team_json(ctx, t).items() if k not in FULL_ONLY},
    )


@endpoint
def team_members(ctx: Ctx) -> Response:
    role = ctx.query.get("role", "all")
    if role not in ROLES:
        raise validation_failed({"resource": "Team", "field": "role", "code": "invalid"})
    team = social.org_teams(ctx.state, ctx.params["org"]).get(ctx.params["team_slug"].lower())
    if team is None or not _sees_team(ctx, team):
        raise not_found()
    people = []
    for login, member_role in sorted(team.members.items()):
        user = ctx.state.user(login)
        if user is not None and role in ("all", member_role):
            people.append(user)
    return ctx.paginate(people, lambda user: simple_user(ctx.urls, user))


@endpoint
def search_users(ctx: Ctx) -> Response:
    """Users and organisations whose login (or name, with in:name) holds every term;
    type:user or type:org narrows the kind."""
    query = require_q(ctx)
    kind = (query.first("type") or "").lower()
    fields = {f.lower() for f in query.all("in")} or {"login", "name"}
    terms = [t.lower() for t in query.terms]

    def matches(user: UserRecord) -> bool:
        if user.type == "Bot" or (
            kind and user.type.lower() != {"org": "organization"}.get(kind, kind)
        ):
            return False
        text = " ".join(
            value
            for name, value in (
                ("login", user.login),
                ("name", user.name or ""),
                ("email", user.email or ""),
            )
            if name in fields
        ).lower()
        return all(term in text for term in terms)

    found = sorted(
        (u for u in ctx.state.users.values() if matches(u)), key=lambda u: u.login.lower()
    )
    if ctx.query.get("sort") == "joined":
        found.sort(key=lambda u: u.created_at, reverse=ctx.query.get("order", "desc") != "asc")
    return search_response(ctx, found, lambda user: simple_user(ctx.urls, user))


def routes(state: ForgeState) -> list[Route]:
    one = "/user/starred/{owner}/{repo}"
    return [
        Route("/user/starred", list_starred, methods=["GET"]),
        Route(one, is_starred, methods=["GET"]),
        Route(one, star, methods=["PUT"]),
        Route(one, unstar, methods=["DELETE"]),
        Route("/user/teams", my_teams, methods=["GET"]),
        Route("/orgs/{org}/teams", org_team_list, methods=["GET"]),
        Route("/orgs/{org}/teams/{team_slug}/members", team_members, methods=["GET"]),
        Route("/search/users", search_users, methods=["GET"]),
    ]
