"""A pull request's requested reviewers, users and teams: list, request, remove
(GET/POST/DELETE /repos/{o}/{r}/pulls/{n}/requested_reviewers, by GitHub's OpenAPI
description). Teams are those of the repository's owning organisation."""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from sandbox_forge.kernel.errors import invalid_request, json_response, validation_failed
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.shapes.pulls import pull_json, requested_teams
from sandbox_forge.stores import copilot
from sandbox_forge.stores.collab import Issue, Pull
from sandbox_forge.stores.lookups import get_pull, user_json
from sandbox_forge.stores.pulls import pull_error
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.social import org_teams
from sandbox_forge.stores.state import ForgeState


def _not_collaborator(repo: RepoRecord) -> Exception:
    return validation_failed(
        {
            "resource": "PullRequest",
            "code": "custom",
            "field": "reviewers",
            "message": "Reviews may only be requested from collaborators. One or more "
            "of the users or teams you specified is not a collaborator of the "
            f"{repo.full_name} repository.",
        }
    )


def _names(body: dict[str, Any], field: str) -> list[str]:
    value = body.get(field) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise invalid_request(f"For 'properties/{field}', {value!r} is not an array of strings.")
    return value


def _open_pull(ctx: Ctx) -> tuple[RepoRecord, Issue, Pull]:
    repo = ctx.repo(write=ctx.request.method != "GET")
    issue = get_pull(repo, ctx.params["number"])
    assert issue.pull is not None
    return repo, issue, issue.pull


@endpoint
def list_requested_reviewers(ctx: Ctx):
    repo, _, pull = _open_pull(ctx)
    users = [user_json(ctx.state, ctx.urls, u) for u in pull.requested_reviewers]
    teams = requested_teams(ctx.state, ctx.urls, repo, pull.requested_teams)
    return json_response({"users": users, "teams": teams})


def _add(ctx: Ctx, repo: RepoRecord, issue: Issue, pull: Pull, body: dict[str, Any]) -> None:
    logins, slugs = _names(body, "reviewers"), _names(body, "team_reviewers")
    teams = org_teams(ctx.state, repo.owner)
    users = [ctx.state.user(login) for login in logins]
    if any(u is None for u in users) or any(s.lower() not in teams for s in slugs):
        raise _not_collaborator(repo)
    # Copilot reviews only where the owner's plan enables it; elsewhere it is no collaborator.
    if any(copilot.is_copilot(u.login) for u in users if u) and not copilot.enabled(
        ctx.state, repo
    ):
        raise _not_collaborator(repo)
    if any(u is not None and u.login.lower() == issue.user.lower() for u in users):
        raise pull_error("Review cannot be requested from pull request author.")
    with ctx.state.lock:
        for user in users:
            if user is not None and user.login not in pull.requested_reviewers:
                pull.requested_reviewers.append(user.login)
        for slug in (s.lower() for s in slugs):
            if slug not in pull.requested_teams:
                pull.requested_teams.append(slug)


@endpoint
def request_reviewers(ctx: Ctx):
    repo, issue, pull = _open_pull(ctx)
    _add(ctx, repo, issue, pull, ctx.json())
    data = pull_json(ctx.state, ctx.urls, ctx.principal, repo, issue)
    return json_response(data, status=201)


@endpoint
def remove_requested_reviewers(ctx: Ctx):
    repo, issue, pull = _open_pull(ctx)
    body = ctx.json()
    if "reviewers" not in body:
        raise invalid_request('"reviewers" wasn\'t supplied.')
    logins = {n.lower() for n in _names(body, "reviewers")}
    slugs = {s.lower() for s in _names(body, "team_reviewers")}
    with ctx.state.lock:
        pull.requested_reviewers[:] = [
            u for u in pull.requested_reviewers if u.lower() not in logins
        ]
        pull.requested_teams[:] = [s for s in pull.requested_teams if s not in slugs]
    return json_response(pull_json(ctx.state, ctx.urls, ctx.principal, repo, issue))


def routes(state: ForgeState) -> list[Route]:
    path = "/repos/{owner}/{repo}/pulls/{number:int}/requested_reviewers"
    return [
        Route(path, list_requested_reviewers, methods=["GET"]),
        Route(path, request_reviewers, methods=["POST"]),
        Route(path, remove_requested_reviewers, methods=["DELETE"]),
    ]
