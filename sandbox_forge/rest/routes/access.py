"""Repository collaborators and organisation membership, as GitHub's REST API shows them.

Adding a collaborator on GitHub sends an invitation the user must accept; the sandbox
accepts it at once (the answer is still GitHub's 201 with the invitation).
"""

from __future__ import annotations

import time
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, json_response, not_found, validation_failed
from sandbox_forge.kernel.formats import iso, node_id, simple_user
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import repo_role, require_user
from sandbox_forge.rest.shapes.users_repos import minimal_repo, role_permissions
from sandbox_forge.stores.access import (
    API_PERMISSION_TO_ROLE,
    ROLE_TO_LEGACY_PERMISSION,
    at_least,
    collaborator_logins,
    user_role,
)
from sandbox_forge.stores.records import RepoRecord, UserRecord
from sandbox_forge.stores.state import ForgeState

NEEDS_PUSH = "Must have push access to view repository collaborators."


def collaborator_json(urls: Urls, user: UserRecord, role: str) -> dict[str, Any]:
    return {**simple_user(urls, user), "permissions": role_permissions(role), "role_name": role}


def org_json(urls: Urls, org: UserRecord) -> dict[str, Any]:
    api = f"{urls.api}/orgs/{org.login}"
    return {
        "login": org.login,
        "id": org.id,
        "node_id": node_id("Organization", org.id),
        "url": api,
        "repos_url": f"{api}/repos",
        "events_url": f"{api}/events",
        "hooks_url": f"{api}/hooks",
        "issues_url": f"{api}/issues",
        "members_url": f"{api}/members{{/member}}",
        "public_members_url": f"{api}/public_members{{/member}}",
        "avatar_url": f"{urls.web}/avatars/u/{org.id}?v=4",
        "description": org.name,
    }


def membership_json(ctx: Ctx, org: UserRecord, user: UserRecord, role: str) -> dict[str, Any]:
    return {
        "url": f"{ctx.urls.api}/orgs/{org.login}/memberships/{user.login}",
        "state": "active",
        "role": role,
        "organization_url": f"{ctx.urls.api}/orgs/{org.login}",
        "organization": org_json(ctx.urls, org),
        "user": simple_user(ctx.urls, user),
    }


def _user_or_404(state: ForgeState, login: str) -> UserRecord:
    user = state.user(login)
    if user is None or user.type != "User":
        raise not_found()
    return user


def _pushable_repo(ctx: Ctx) -> RepoRecord:
    repo = ctx.repo()
    if not at_least(repo_role(ctx.principal, repo), "write"):
        raise ApiError(403, NEEDS_PUSH)
    return repo


# --- collaborators ---------------------------------------------------------------------------


@endpoint
def list_collaborators(ctx: Ctx):
    repo = _pushable_repo(ctx)
    wanted = ctx.query.get("permission")
    people = [
        (ctx.state.user(login), role)
        for login, role in collaborator_logins(ctx.state, repo)
        if wanted is None or at_least(role, API_PERMISSION_TO_ROLE.get(wanted, "admin"))
    ]
    return ctx.paginate(
        [(u, r) for u, r in people if u is not None],
        lambda pair: collaborator_json(ctx.urls, pair[0], pair[1]),
    )


@endpoint
def check_collaborator(ctx: Ctx):
    repo = _pushable_repo(ctx)
    user = ctx.state.user(ctx.params["username"])
    listed = {login.lower() for login, _ in collaborator_logins(ctx.state, repo)}
    # GitHub answers "not a collaborator" with an empty 404, as its description documents.
    is_collaborator = user is not None and user.login.lower() in listed
    return Response(status_code=204 if is_collaborator else 404)


@endpoint
def add_collaborator(ctx: Ctx):
    repo = ctx.repo(need="admin")
    user = _user_or_404(ctx.state, ctx.params["username"])
    permission = ctx.json().get("permission", "push")
    role = API_PERMISSION_TO_ROLE.get(permission) if isinstance(permission, str) else None
    if role is None:
        raise validation_failed(
            {
                "resource": "Repository",
                "code": "custom",
                "field": "permission",
                "message": f"{permission} is not a valid permission.",
            },
        )
    if user.login.lower() == repo.owner.lower():
        raise validation_failed(
            {
                "resource": "Repository",
                "code": "custom",
                "field": "collaborator",
                "message": "Repository owner cannot be a collaborator",
            },
        )
    access = ctx.state.access
    already = access.collaborator_role(repo.full_name, user.login) is not None or (
        access.org_role(repo.owner, user.login) is not None
    )
    access.set_collaborator(repo.full_name, user.login, role)
    if already:
        return Response(status_code=204)
    inviter = ctx.state.ensure_user(ctx.principal.login or repo.owner)
    invitation_id = ctx.state.next_id()
    return json_response(
        {
            "id": invitation_id,
            "node_id": node_id("RepositoryInvitation", invitation_id),
            "repository": minimal_repo(ctx.state, ctx.urls, repo),
            "invitee": simple_user(ctx.urls, user),
            "inviter": simple_user(ctx.urls, inviter),
            "permissions": role,
            "created_at": iso(time.time()),
            "expired": False,
            "url": f"{ctx.urls.api}/user/repository_invitations/{invitation_id}",
            "html_url": f"{ctx.urls.repo_html(repo.full_name)}/invitations",
        },
        status=201,
    )


@endpoint
def remove_collaborator(ctx: Ctx):
    repo = ctx.repo()
    username = ctx.params["username"]
    leaving_self = (ctx.principal.login or "").lower() == username.lower()
    if not leaving_self:
        ctx.repo(need="admin")
    ctx.state.access.remove_collaborator(repo.full_name, username)
    return Response(status_code=204)


@endpoint
def collaborator_permission(ctx: Ctx):
    repo = ctx.repo()
    user = _user_or_404(ctx.state, ctx.params["username"])
    role = user_role(ctx.state, repo, user.login)
    return json_response(
        {
            "permission": ROLE_TO_LEGACY_PERMISSION[role] if role else "none",
            "role_name": role or "none",
            "user": collaborator_json(ctx.urls, user, role) if role else None,
        }
    )


# --- organisations ---------------------------------------------------------------------------


def _org_or_404(state: ForgeState, name: str) -> UserRecord:
    org = state.user(name)
    if org is None or org.type != "Organization":
        raise not_found()
    return org


@endpoint
def list_my_orgs(ctx: Ctx):
    login = require_user(ctx.principal)
    orgs = [ctx.state.user(name) for name in ctx.state.access.orgs_of(login)]
    found = [o for o in orgs if o is not None and o.type == "Organization"]
    return ctx.paginate(found, lambda org: org_json(ctx.urls, org))


@endpoint
def my_membership(ctx: Ctx):
    login = require_user(ctx.principal)
    org = _org_or_404(ctx.state, ctx.params["org"])
    role = ctx.state.access.org_role(org.login, login)
    if role is None:
        raise not_found()
    return json_response(membership_json(ctx, org, ctx.state.ensure_user(login), role))


def _visible_membership(ctx: Ctx) -> tuple[UserRecord, UserRecord, str]:
    """The org, the user and their role, when the caller (a member) may see it."""
    org = _org_or_404(ctx.state, ctx.params["org"])
    caller = ctx.principal.login
    if caller is None or ctx.state.access.org_role(org.login, caller) is None:
        raise not_found()
    user = _user_or_404(ctx.state, ctx.params["username"])
    role = ctx.state.access.org_role(org.login, user.login)
    if role is None:
        raise not_found()
    return org, user, role


@endpoint
def check_member(ctx: Ctx):
    try:
        _visible_membership(ctx)
    except ApiError:
        return Response(status_code=404)  # empty, as GitHub documents it
    return Response(status_code=204)


@endpoint
def get_membership(ctx: Ctx):
    org, user, role = _visible_membership(ctx)
    return json_response(membership_json(ctx, org, user, role))


def routes(state: ForgeState) -> list[Route]:
    repo = "/repos/{owner}/{repo}/collaborators"
    return [
        Route(repo, list_collaborators, methods=["GET"]),
        Route(repo + "/{username}", check_collaborator, methods=["GET"]),
        Route(repo + "/{username}", add_collaborator, methods=["PUT"]),
        Route(repo + "/{username}", remove_collaborator, methods=["DELETE"]),
        Route(repo + "/{username}/permission", collaborator_permission, methods=["GET"]),
        Route("/user/orgs", list_my_orgs, methods=["GET"]),
        Route("/user/memberships/orgs/{org}", my_membership, methods=["GET"]),
        Route("/orgs/{org}/members/{username}", check_member, methods=["GET"]),
        Route("/orgs/{org}/memberships/{username}", get_membership, methods=["GET"]),
    ]
