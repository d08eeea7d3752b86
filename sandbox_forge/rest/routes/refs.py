"""Git references: read, create, move (compare-and-swap) and delete."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.git.store import SHA_RE
from sandbox_forge.kernel.errors import ApiError, json_response, missing_field, not_found
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import repo_role
from sandbox_forge.rest.shapes.git import git_ref
from sandbox_forge.rules.enforce import check_update, refuse_if
from sandbox_forge.stores.records import RefUpdate, RepoRecord

CAS_ATTEMPTS = 20
DOCS = "https://docs.github.com/rest/git/refs"


def _full(ref: str) -> str:
    ref = ref.strip("/")
    return ref if ref.startswith("refs/") else f"refs/{ref}"


def _ref_json(ctx: Ctx, repo: RepoRecord, full: str) -> dict:
    sha = repo.git.read_ref(full)  # for-each-ref's answer for this one name, without a process
    otype = repo.git.object_type(sha) if sha else None
    if sha is None or otype is None:
        raise not_found()
    return git_ref(ctx.urls, repo, full, sha, otype)


def _enforce(ctx: Ctx, repo: RepoRecord, ref: str, old: str | None, new: str | None, doc: str):
    """Repository rules refuse the move before the ref changes: 422 as GitHub answers a
    create or update, 409 for a delete (the only error with a body its description has)."""
    found = check_update(repo, ref, old, new, repo_role(ctx.principal, repo))
    refuse_if(found, 409 if new is None else 422, f"{DOCS}#{doc}")


def _empty_repo_conflict(repo: RepoRecord) -> None:
    if not repo.git.has_refs():
        raise ApiError(409, "Git Repository is empty.")


@endpoint
def get_ref(ctx: Ctx):
    repo = ctx.repo()
    _empty_repo_conflict(repo)
    return json_response(_ref_json(ctx, repo, _full(ctx.params["ref"])))


@endpoint
def matching_refs(ctx: Ctx):
    repo = ctx.repo()
    _empty_repo_conflict(repo)
    prefix = _full(ctx.params.get("ref", "")) if ctx.params.get("ref") else "refs/"
    refs = [
        git_ref(ctx.urls, repo, name, sha, otype)
        for name, sha, otype in repo.git.list_refs("refs/")
        if name.startswith(prefix)
    ]
    return json_response(refs)


def _commit_sha(repo: RepoRecord, sha: object) -> str:
    if not isinstance(sha, str) or not sha:
        raise missing_field("sha")
    if not SHA_RE.match(sha) or repo.git.object_type(sha) is None:
        raise ApiError(422, "Object does not exist")
    return sha


@endpoint
def create_ref(ctx: Ctx):
    repo = ctx.repo(write=True)
    body = ctx.json()
    ref = body.get("ref")
    if not isinstance(ref, str) or not ref:
        raise missing_field("ref")
    if not ref.startswith("refs/") or ref.count("/") < 2 or not repo.git.valid_ref_name(ref):
        raise ApiError(422, f"{ref} is not a valid ref name.")
    sha = _commit_sha(repo, body.get("sha"))
    if repo.git.read_ref(ref) is not None:
        raise ApiError(422, "Reference already exists")
    _enforce(ctx, repo, ref, None, sha, "create-a-reference")
    if not repo.git.update_ref(ref, sha, None):
        raise ApiError(422, "Reference already exists")
    ctx.state.fire_ref_update(RefUpdate(repo.full_name, ref, None, sha, "api"))
    data = _ref_json(ctx, repo, ref)
    return json_response(data, status=201, headers={"location": data["url"]})


@endpoint
def update_ref(ctx: Ctx):
    repo = ctx.repo(write=True)
    full = _full(ctx.params["ref"])
    body = ctx.json()
    sha = _commit_sha(repo, body.get("sha"))
    force = body.get("force", False)
    if not isinstance(force, bool):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/force', is not a boolean.")
    if repo.git.object_type(sha) != "commit" and full.startswith("refs/heads/"):
        raise ApiError(422, "Object does not exist")
    for _ in range(CAS_ATTEMPTS):
        current = repo.git.read_ref(full)
        if current is None:
            raise ApiError(422, "Reference does not exist")
        if current == sha:
            break
        if not force and not repo.git.is_ancestor(current, sha):
            raise ApiError(422, "Update is not a fast forward")
        _enforce(ctx, repo, full, current, sha, "update-a-reference")
        if repo.git.update_ref(full, sha, current):  # fails if someone moved it meanwhile
            ctx.state.fire_ref_update(RefUpdate(repo.full_name, full, current, sha, "api"))
            break
    else:
        raise ApiError(409, "Reference update failed: the ref kept moving")
    return json_response(_ref_json(ctx, repo, full))


@endpoint
def delete_ref(ctx: Ctx):
    repo = ctx.repo(write=True)
    full = _full(ctx.params["ref"])
    for _ in range(CAS_ATTEMPTS):
        current = repo.git.read_ref(full)
        if current is None:
            raise ApiError(422, "Reference does not exist")
        _enforce(ctx, repo, full, current, None, "delete-a-reference")
        if repo.git.delete_ref(full, current):
            ctx.state.fire_ref_update(RefUpdate(repo.full_name, full, current, None, "api"))
            return Response(status_code=204)
    raise ApiError(409, "Reference update failed: the ref kept moving")


def routes(state) -> list[Route]:
    base = "/repos/{owner}/{repo}/git"
    return [
        Route(f"{base}/ref/{{ref:path}}", get_ref, methods=["GET"]),
        Route(f"{base}/matching-refs", matching_refs, methods=["GET"]),
        Route(f"{base}/matching-refs/{{ref:path}}", matching_refs, methods=["GET"]),
        Route(f"{base}/refs", create_ref, methods=["POST"]),
        Route(f"{base}/refs/{{ref:path}}", update_ref, methods=["PATCH"]),
        Route(f"{base}/refs/{{ref:path}}", delete_ref, methods=["DELETE"]),
    ]
