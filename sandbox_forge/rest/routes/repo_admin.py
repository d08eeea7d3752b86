"""Creating, forking and deleting repositories, by GitHub's REST description.

- POST /user/repos and POST /orgs/{org}/repos create an empty repository (or, with
  `auto_init`, one with a README commit); in an organisation the caller must be a member.
  A name already taken on the account is 422; characters GitHub does not keep in names
  become `-`, as on GitHub.
- POST /repos/{owner}/{repo}/forks copies the branches and tags (`default_branch_only`:
  the default branch alone) into the caller's account or an organisation they belong to;
  202 with the fork. Forking again answers the existing fork; a taken name gets `-1`, `-2`…
  An empty repository cannot be forked (403, GitHub's message); a copy that fails leaves
  no fork behind.
- DELETE /repos/{owner}/{repo} needs admin on it (and, for an OAuth token, the
  `delete_repo` scope): 204, and the repository, its git data and its records are gone.
GitHub forks in the background; here the fork is complete when the answer comes.
"""

from __future__ import annotations

import re
import shutil
import time
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.git.objects import Signature, TreeChange
from sandbox_forge.kernel.errors import ApiError, invalid_request, json_response, validation_failed
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import NEEDS_ADMIN, Principal, require_user
from sandbox_forge.rest.moved import moved_names
from sandbox_forge.rest.shapes.users_repos import FORK_PARENT, repo_json
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

MAX_NAME = 100
EMPTY_SOURCE = (
    "The repository exists, but it contains no Git content. Empty repositories cannot be forked."
)
_NOT_KEPT = re.compile(r"[^A-Za-z0-9_.-]")


def _name(body: dict[str, Any], field: str = "name") -> str:
    raw = body.get(field)
    if not isinstance(raw, str) or not raw.strip():
        raise invalid_request(f'"{field}" wasn\'t supplied.')
    name = _NOT_KEPT.sub("-", raw.strip())
    if name in (".", "..") or len(name) > MAX_NAME or name.lower().endswith(".git"):
        raise validation_failed(
            {"resource": "Repository", "code": "custom", "field": "name",
             "message": "name is invalid"},
            message="Repository creation failed.",
        )  # fmt: skip
    return name


def _taken() -> ApiError:
    return validation_failed(
        {"resource": "Repository", "code": "custom", "field": "name",
         "message": "name already exists on this account"},
        message="Repository creation failed.",
    )  # fmt: skip


def _creator(ctx: Ctx) -> str:
    login = require_user(ctx.principal)
    token = ctx.principal.token
    if token is not None and token.access == "read":
        raise ApiError(403, ctx.principal.forbidden_message)
    return login


def _org_member(state: ForgeState, principal: Principal, org: str) -> str:
    """The organisation's login, when the caller may create repositories in it."""
    owner = state.user(org)
    if owner is None or owner.type != "Organization":
        raise ApiError(404, "Not Found")
    login = principal.login or ""
    # tokens that act within their user's roles need the membership; the sandbox's
    # unbounded test tokens (see TokenRecord.user_roles) reach every organisation
    if principal.role_of is not None and state.access.org_role(org, login) is None:
        raise ApiError(
            403, "You need admin access to the organization before adding a repository to it."
        )
    return owner.login


def _visibility(body: dict[str, Any]) -> bool:
    """Whether the new repository is private: `visibility` wins over `private`."""
    visibility = body.get("visibility")
    if visibility is not None:
        if visibility not in ("public", "private"):
            raise invalid_request(
                f"For 'properties/visibility', {visibility!r} is not a member of "
                '["public", "private"].'
            )
        return visibility == "private"
    private = body.get("private", False)
    if not isinstance(private, bool):
        raise invalid_request(f"For 'properties/private', {private!r} is not a boolean.")
    return private


def _create(ctx: Ctx, owner: str, body: dict[str, Any]) -> Response:
    name = _name(body)
    description = body.get("description") or ""
    with ctx.state.lock:
        if ctx.state.repo(owner, name) is not None:
            raise _taken()
        repo = ctx.state.create_repo(
            f"{owner}/{name}", private=_visibility(body), description=str(description)[:350]
        )
        moved_names(ctx.state).pop(repo.full_name.lower(), None)  # the old name is reused
    if body.get("auto_init") is True:
        _first_commit(repo, ctx.principal.login or owner)
    return json_response(repo_json(ctx.state, ctx.urls, repo, ctx.principal, full=True), 201)


def _first_commit(repo: RepoRecord, login: str) -> None:
    readme = f"# {repo.name}\n" + (f"\n{repo.description}\n" if repo.description else "")
    blob = repo.git.write_blob(readme.encode())
    tree = repo.git.build_tree(None, [TreeChange("README.md", sha=blob)])
    who = Signature(login, f"{login}@users.noreply.sandbox", int(time.time()))
    sha = repo.git.create_commit(tree, [], "Initial commit\n", who, who)
    repo.git.update_ref(f"refs/heads/{repo.default_branch}", sha, None)


@endpoint
def create_for_user(ctx: Ctx) -> Response:
    login = _creator(ctx)
    return _create(ctx, ctx.state.ensure_user(login).login, ctx.json())


@endpoint
def create_in_org(ctx: Ctx) -> Response:
    _creator(ctx)
    return _create(ctx, _org_member(ctx.state, ctx.principal, ctx.params["org"]), ctx.json())


@endpoint
def create_fork(ctx: Ctx) -> Response:
    login = _creator(ctx)
    source = ctx.repo()
    body = ctx.json()
    org = body.get("organization")
    owner = (
        _org_member(ctx.state, ctx.principal, org) if org else ctx.state.ensure_user(login).login
    )
    wanted = _name(body) if body.get("name") is not None else source.name
    only_default = body.get("default_branch_only") is True
    if not source.git.has_refs():
        raise ApiError(403, EMPTY_SOURCE)
    with ctx.state.lock:
        existing = _fork_of(ctx.state, source, owner)
        if existing is not None:
            return json_response(repo_json(ctx.state, ctx.urls, existing, ctx.principal, True), 202)
        name = _free_name(ctx.state, owner, wanted)
    try:  # the git copy runs outside the lock; a name taken meanwhile is GitHub's 422
        fork = fork_into(ctx.state, source, owner, name, only_default)
    except ValueError as exc:
        raise _taken() from exc
    return json_response(repo_json(ctx.state, ctx.urls, fork, ctx.principal, full=True), 202)


def fork_into(
    state: ForgeState, source: RepoRecord, owner: str, name: str, only_default: bool
) -> RepoRecord:
    """Copy source's default branch (or every branch and tag) into a new owner/name."""
    with state.lock:
        fork = state.create_repo(
            f"{owner}/{name}", private=source.private, description=source.description,
            default_branch=source.default_branch,
        )  # fmt: skip
        fork.extra[FORK_PARENT] = source.id
        moved_names(state).pop(fork.full_name.lower(), None)
    default = f"refs/heads/{source.default_branch}"
    # a default branch that does not exist (yet) leaves every branch to copy
    only_default = only_default and source.git.read_ref(default) is not None
    specs = [f"+{default}:{default}"] if only_default else ["+refs/heads/*:refs/heads/*"]
    specs += [] if only_default else ["+refs/tags/*:refs/tags/*"]
    try:
        fork.git.run(
            "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", str(source.git.path), *specs
        )
    except BaseException:
        _discard(state, fork)  # no half-made fork is left behind
        raise
    return fork


def _discard(state: ForgeState, repo: RepoRecord) -> None:
    with state.lock:
        if state.repos.get(repo.full_name.lower()) is repo:
            del state.repos[repo.full_name.lower()]
    repo.git.close()
    shutil.rmtree(repo.git.path, ignore_errors=True)


def _fork_of(state: ForgeState, source: RepoRecord, owner: str) -> RepoRecord | None:
    return next(
        (
            r for r in state.all_repos()
            if r.owner.lower() == owner.lower() and r.extra.get(FORK_PARENT) == source.id
        ),
        None,
    )  # fmt: skip


def _free_name(state: ForgeState, owner: str, wanted: str) -> str:
    name, n = wanted, 0
    while state.repo(owner, name) is not None:
        n += 1
        name = f"{wanted}-{n}"
    return name


@endpoint
def delete_repo(ctx: Ctx) -> Response:
    repo = ctx.repo(need="admin")
    token = ctx.principal.token
    if token is not None and token.scopes is not None and "delete_repo" not in token.scopes:
        raise ApiError(403, NEEDS_ADMIN)
    state = ctx.state
    with state.lock:
        key = repo.full_name.lower()
        if state.repos.get(key) is not repo:
            raise ApiError(404, "Not Found")
        del state.repos[key]
        state.access.collaborators.pop(key, None)
        moved = moved_names(state)
        for old in [k for k, v in moved.items() if v == repo.id]:
            del moved[old]
    repo.git.close()
    shutil.rmtree(repo.git.path, ignore_errors=True)
    return Response(status_code=204)


def routes(state: ForgeState) -> list[Route]:
    return [
        Route("/user/repos", create_for_user, methods=["POST"]),
        Route("/orgs/{org}/repos", create_in_org, methods=["POST"]),
        Route("/repos/{owner}/{repo}/forks", create_fork, methods=["POST"]),
        Route("/repos/{owner}/{repo}", delete_repo, methods=["DELETE"]),
    ]
