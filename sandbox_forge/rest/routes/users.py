"""Users, repositories listed by account (the caller's, a user's, an organisation's), rate
limits, and GitHub App authentication."""

from __future__ import annotations

import time
from typing import Any

from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, json_response, not_found
from sandbox_forge.kernel.formats import iso, simple_user
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import can_read, require_user, token_covers
from sandbox_forge.rest.shapes.users_repos import FORK_PARENT, full_user, repo_json
from sandbox_forge.stores.ratelimit import RESOURCES
from sandbox_forge.stores.records import InstallationRecord, RepoRecord
from sandbox_forge.stores.state import ForgeState

INSTALLATION_PERMISSIONS = {
    "actions": "read",
    "checks": "write",
    "contents": "write",
    "issues": "write",
    "metadata": "read",
    "pull_requests": "write",
    "statuses": "write",
    "workflows": "write",
}


@endpoint
def get_authenticated_user(ctx: Ctx):
    login = require_user(ctx.principal)
    return json_response(full_user(ctx.state, ctx.urls, ctx.state.ensure_user(login), True))


@endpoint
def get_user(ctx: Ctx):
    user = ctx.state.user(ctx.params["username"])
    if user is None:
        raise not_found()
    return json_response(full_user(ctx.state, ctx.urls, user, False))


@endpoint
def list_my_repos(ctx: Ctx):
    require_user(ctx.principal)
    token = ctx.principal.token
    visibility = ctx.query.get("visibility", "all")

    def listed(repo: RepoRecord) -> bool:
        # A repo-limited token lists only its repositories, public or not.
        return (
            can_read(ctx.principal, repo)
            and (token is None or token_covers(token, repo))
            and (visibility == "all" or (visibility == "private") == repo.private)
        )

    repos = sorted(
        (r for r in ctx.state.all_repos() if listed(r)), key=lambda r: r.full_name.lower()
    )
    return ctx.paginate(repos, lambda r: repo_json(ctx.state, ctx.urls, r, ctx.principal))


# GitHub's `type` filters of the account listings, each a test on (repo, owned by the account)
ACCOUNT_TYPES = {
    "all": lambda repo, owned: True,
    "owner": lambda repo, owned: owned,
    "member": lambda repo, owned: not owned,
    "public": lambda repo, owned: not repo.private,
    "private": lambda repo, owned: repo.private,
    "forks": lambda repo, owned: FORK_PARENT in repo.extra,
    "sources": lambda repo, owned: FORK_PARENT not in repo.extra,
}
SORT_KEYS = {
    "created": lambda r: r.created_at,
    "updated": lambda r: r.updated_at,
    "pushed": lambda r: r.pushed_at,
    "full_name": lambda r: r.full_name.lower(),
}


def _account_repos(ctx: Ctx, login: str, kind: str, types: tuple[str, ...], sort: str):
    account = ctx.state.user(login)
    if account is None or (account.type == "Organization") != (kind == "Organization"):
        raise not_found()
    wanted = ctx.query.get("type", "all")
    order = ctx.query.get("sort", sort)
    direction = ctx.query.get("direction", "asc" if order == "full_name" else "desc")
    if wanted not in types or order not in SORT_KEYS or direction not in ("asc", "desc"):
        raise ApiError(422, "Validation Failed")
    owner = account.login.lower()
    # a user's listing holds the repositories they own; "member" ones are their
    # collaborations, which the forge keeps per repository
    found = [
        r
        for r in ctx.state.all_repos()
        if can_read(ctx.principal, r)
        and (kind == "Organization" or not r.private)  # a user's listing: public ones
        and (r.owner.lower() == owner or (kind == "User" and _collaborates(ctx, r, owner)))
        and ACCOUNT_TYPES[wanted](r, r.owner.lower() == owner)
    ]
    found.sort(key=SORT_KEYS[order], reverse=direction == "desc")
    return ctx.paginate(found, lambda r: repo_json(ctx.state, ctx.urls, r, ctx.principal))


def _collaborates(ctx: Ctx, repo: RepoRecord, login: str) -> bool:
    return login in ctx.state.access.collaborators.get(repo.full_name.lower(), {})


@endpoint
def list_user_repos(ctx: Ctx):
    """GET /users/{username}/repos: the user's public repositories, as on GitHub."""
    types = ("all", "owner", "member")
    return _account_repos(ctx, ctx.params["username"], "User", types, "full_name")


@endpoint
def list_org_repos(ctx: Ctx):
    types = ("all", "public", "private", "forks", "sources", "member")
    return _account_repos(ctx, ctx.params["org"], "Organization", types, "created")


@endpoint
def get_rate_limit(ctx: Ctx):
    p = ctx.principal
    resources = {
        name: ctx.state.rate.bucket(p.rate_key, name, p.anonymous).as_json() for name in RESOURCES
    }
    return json_response({"resources": resources, "rate": resources["core"]})


# --- GitHub Apps --------------------------------------------------------------------------


def _app_json(ctx: Ctx) -> dict[str, Any]:
    app = ctx.principal.app
    assert app is not None
    owner = ctx.state.ensure_user(app.owner, type="Organization")
    return {
        "id": int(app.app_id) if app.app_id.isdigit() else 0,
        "slug": app.slug,
        "node_id": f"A_{app.app_id}",
        "client_id": f"Iv1.{app.app_id:0>16}",
        "owner": simple_user(ctx.urls, owner),
        "name": app.name,
        "description": "Sandbox forge GitHub App",
        "external_url": f"{ctx.urls.web}/apps/{app.slug}",
        "html_url": f"{ctx.urls.web}/apps/{app.slug}",
        "created_at": iso(app.created_at),
        "updated_at": iso(app.created_at),
        "permissions": dict(INSTALLATION_PERMISSIONS),
        "events": ["push", "pull_request", "check_run", "workflow_run"],
        "installations_count": sum(
            1 for i in ctx.state.installations.values() if i.app_id == app.app_id
        ),
    }


def _require_app(ctx: Ctx) -> None:
    if ctx.principal.kind != "app":
        raise ApiError(
            401,
            "A JSON web token could not be decoded",
            documentation_url="https://docs.github.com/rest",
        )


@endpoint
def get_app(ctx: Ctx):
    _require_app(ctx)
    return json_response(_app_json(ctx))


@endpoint
def create_installation_token(ctx: Ctx):
    _require_app(ctx)
    app = ctx.principal.app
    assert app is not None
    try:
        installation_id = int(ctx.params["installation_id"])
    except ValueError:
        raise not_found() from None
    installation = ctx.state.installations.get(installation_id)
    if installation is None or installation.app_id != app.app_id:
        raise not_found()
    body = ctx.json()
    repos = _narrow_repos(ctx.state, installation, body.get("repositories"))
    expires_at = time.time() + installation.token_ttl_seconds
    token = ctx.state.create_token(
        login=f"{app.slug}[bot]",
        repos=None if repos is None else sorted(repos),
        access="write",
        kind="installation",
        expires_at=expires_at,
        installation_id=installation.id,
    )
    data: dict[str, Any] = {
        "token": token,
        "expires_at": iso(expires_at),
        "permissions": dict(INSTALLATION_PERMISSIONS),
        "repository_selection": "all" if repos is None else "selected",
    }
    if repos is not None:
        principal = ctx.principal
        records = [ctx.state.repos[name] for name in sorted(repos) if name in ctx.state.repos]
        data["repositories"] = [repo_json(ctx.state, ctx.urls, r, principal) for r in records]
    return json_response(data, status=201)


def _narrow_repos(
    state: ForgeState, installation: InstallationRecord, wanted: Any
) -> frozenset[str] | None:
    allowed = installation.repos
    if wanted is None:
        return allowed
    if not isinstance(wanted, list) or not all(isinstance(w, str) for w in wanted):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/repositories', is not an array.")
    chosen = set()
    for name in wanted:
        full = name.lower() if "/" in name else f"{installation.account}/{name}".lower()
        if full not in state.repos or (allowed is not None and full not in allowed):
            raise ApiError(
                422,
                "There is at least one repository that does not exist or is not "
                "accessible to the parent installation.",
            )
        chosen.add(full)
    return frozenset(chosen)


def routes(state: ForgeState) -> list[Route]:
    return [
        Route("/user", get_authenticated_user, methods=["GET"]),
        Route("/user/repos", list_my_repos, methods=["GET"]),
        Route("/users/{username}", get_user, methods=["GET"]),
        Route("/users/{username}/repos", list_user_repos, methods=["GET"]),
        Route("/orgs/{org}/repos", list_org_repos, methods=["GET"]),
        Route("/rate_limit", get_rate_limit, methods=["GET"]),
        Route("/app", get_app, methods=["GET"]),
        Route(
            "/app/installations/{installation_id}/access_tokens",
            create_installation_token,
            methods=["POST"],
        ),
    ]
