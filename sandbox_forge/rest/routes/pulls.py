"""Pull requests: create, read (JSON, diff, patch), list, update, files and commits
(requested reviewers are in review_requests.py).

Mergeability (computed lazily, as GitHub does in the background) is in
rules/mergeability.py, shapes in rest/shapes/pulls.py, record changes in stores/pulls.py;
their public names are re-exported here for existing callers.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.git.pulls import commit_range, diff_base
from sandbox_forge.kernel.errors import ApiError, json_response, missing_field, validation_failed
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.collab_api import created_response
from sandbox_forge.rest.routes.commits import text_response
from sandbox_forge.rest.routes.issues import apply_issue_update, check_body, check_title
from sandbox_forge.rest.shapes.git import diff_entry, rest_commit
from sandbox_forge.rest.shapes.pulls import full_json, pull_json
from sandbox_forge.rules.mergeability import (
    compute_mergeability,
    conflicts_now,
    live_ends,
    merge_state,
    mergeability,
)
from sandbox_forge.stores.collab import Issue, collab
from sandbox_forge.stores.lookups import actor_login, get_pull, now
from sandbox_forge.stores.pulls import (
    create_pull,
    freeze,
    invalid_pull_field,
    mark_merged,
    on_ref_update,
    open_pull_for,
    pull_error,
)
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

MAX_FILES = 3000
MAX_COMMITS = 250


def _bool(body: dict[str, Any], name: str, default: bool = False) -> bool:
    value = body.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ApiError(
            422, f"Invalid request.\n\nFor 'properties/{name}', {value!r} is not a boolean."
        )
    return value


@endpoint
def create_pull_endpoint(ctx: Ctx):
    repo = ctx.repo(write=True)
    body = ctx.json()
    for name in ("head", "base"):
        if not isinstance(body.get(name), str) or not body[name]:
            raise missing_field(name)
    if body.get("title") is None and body.get("issue") is not None:
        raise pull_error("Converting an issue into a pull request is not supported by the sandbox")
    issue = create_pull(
        ctx.state,
        repo,
        actor_login(ctx.principal),
        check_title(body.get("title")),
        body["head"],
        body["base"],
        check_body(body.get("body")),
        _bool(body, "draft"),
        _bool(body, "maintainer_can_modify"),
    )
    data = full_json(ctx, repo, issue, count_get=False)
    return created_response(data)


@endpoint
def get_pull_endpoint(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    if ctx.media.param in ("diff", "patch"):
        head, base = live_ends(repo, issue)
        start = diff_base(repo.git, base, head)
        if ctx.media.param == "diff":
            return text_response(repo.git.unified_diff(start, head), "diff")
        return text_response(repo.git.format_patch(f"{start}..{head}"), "patch")
    return json_response(full_json(ctx, repo, issue, count_get=True))


@endpoint
def list_pulls(ctx: Ctx):
    repo = ctx.repo()
    q = ctx.query
    wanted = q.get("state", "open")
    if wanted not in ("open", "closed", "all"):
        raise validation_failed({"resource": "PullRequest", "field": "state", "code": "invalid"})
    pulls = [
        i
        for i in collab(repo).issues.values()
        if i.pull is not None and (wanted == "all" or i.state == wanted)
    ]
    head = q.get("head")
    if head:
        owner, colon, branch = head.rpartition(":")
        if colon and owner.lower() != repo.owner.lower():
            pulls = []
        pulls = [i for i in pulls if i.pull and i.pull.head_ref == (branch if colon else head)]
    if q.get("base"):
        pulls = [i for i in pulls if i.pull and i.pull.base_ref == q["base"]]
    sort = q.get("sort", "created")
    direction = q.get("direction") or ("desc" if sort == "created" else "asc")

    def key(issue: Issue) -> tuple[float, int]:
        if sort == "updated":
            return issue.updated_at, issue.number
        if sort == "popularity":
            count = sum(1 for c in collab(repo).issue_comments.values() if c.number == issue.number)
            return count, issue.number
        if sort == "long-running":
            return now() - issue.created_at, issue.number
        return issue.created_at, issue.number

    pulls.sort(key=key, reverse=direction == "desc")
    return ctx.paginate(pulls, lambda i: pull_json(ctx.state, ctx.urls, ctx.principal, repo, i))


def _check_update(
    repo: RepoRecord, issue: Issue, pull: Any, body: dict[str, Any], base: Any
) -> None:
    """GitHub's refusals of a PR update: a base that is not a branch (or is the head), a
    base change on a closed PR, a reopening without its head or beside an open twin."""
    if base is not None:
        if not isinstance(base, str) or repo.git.read_ref(f"refs/heads/{base}") is None:
            raise invalid_pull_field("base")
        if base == pull.head_ref:
            raise pull_error(f"No commits between {base} and {pull.head_ref}")
        if issue.state != "open":
            raise pull_error("Cannot change the base branch of a closed pull request.")
    if body.get("state") == "open" and issue.state == "closed" and not pull.merged:
        if repo.git.read_ref(f"refs/heads/{pull.head_ref}") is None:
            raise pull_error("state cannot be changed. The head branch has been deleted.")
        if open_pull_for(repo, pull.head_ref, base or pull.base_ref) is not None:
            raise pull_error(f"A pull request already exists for {repo.owner}:{pull.head_ref}.")


@endpoint
def update_pull(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_pull(repo, ctx.params["number"])
    pull = issue.pull
    assert pull is not None
    body = ctx.json()
    with ctx.state.lock:
        base = body.get("base")
        _check_update(repo, issue, pull, body, base)
        shared: dict[str, Any] = {k: body[k] for k in ("title", "body", "state") if k in body}
        closing = shared.get("state") == "closed" and issue.state == "open"
        if closing:
            freeze(repo, issue)
        apply_issue_update(ctx, repo, issue, shared)
        if base is not None:
            pull.base_ref = base
            pull.base_sha = repo.git.read_ref(f"refs/heads/{base}") or pull.base_sha
        if "maintainer_can_modify" in body:
            pull.maintainer_can_modify = _bool(body, "maintainer_can_modify")
        issue.updated_at = now()
    return json_response(full_json(ctx, repo, issue, count_get=False))


@endpoint
def list_files(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    head, base = live_ends(repo, issue)
    diffs = repo.git.diff(diff_base(repo.git, base, head), head)[:MAX_FILES]
    return ctx.paginate(diffs, lambda d: diff_entry(ctx.urls, repo, head, d))


@endpoint
def list_commits(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    head, base = live_ends(repo, issue)
    shas = commit_range(repo.git, base, head)[:MAX_COMMITS]
    page, per_page = ctx.page()
    window = shas[(page - 1) * per_page : page * per_page]
    data = [rest_commit(ctx.state, ctx.urls, repo, info) for info in repo.git.read_commits(window)]
    return ctx.paged_response(data, page, per_page, len(shas))


@endpoint
def check_merged(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    assert issue.pull is not None
    # GitHub documents both answers without a body.
    return Response(status_code=204 if issue.pull.merged else 404)


def setup(state: ForgeState) -> None:
    state.on_ref_update(lambda update: on_ref_update(state, update))


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}/pulls"
    pull = f"{base}/{{number:int}}"
    return [
        Route(base, list_pulls, methods=["GET"]),
        Route(base, create_pull_endpoint, methods=["POST"]),
        Route(pull, get_pull_endpoint, methods=["GET"]),
        Route(pull, update_pull, methods=["PATCH"]),
        Route(f"{pull}/files", list_files, methods=["GET"]),
        Route(f"{pull}/commits", list_commits, methods=["GET"]),
        Route(f"{pull}/merge", check_merged, methods=["GET"]),
    ]


__all__ = [
    "MAX_COMMITS",
    "MAX_FILES",
    "compute_mergeability",
    "conflicts_now",
    "create_pull",
    "freeze",
    "full_json",
    "mark_merged",
    "merge_state",
    "mergeability",
    "on_ref_update",
    "open_pull_for",
    "pull_json",
    "routes",
    "setup",
]
