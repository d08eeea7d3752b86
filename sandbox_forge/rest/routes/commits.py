"""Commit history, single commits (JSON, diff, patch) and comparisons."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, json_response, not_found
from sandbox_forge.kernel.formats import http_date
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.shapes.git import diff_entry, rest_commit
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

COMPARE_MAX_COMMITS = 250


def text_response(text: str, param: str) -> Response:
    return Response(
        text.encode(),
        media_type=f"application/vnd.github.{param}; charset=utf-8",
        headers={"x-github-media-type": f"github.v3; param={param}"},
    )


def _require_history(repo: RepoRecord) -> None:
    if not repo.git.has_refs():
        raise ApiError(409, "Git Repository is empty.")


@endpoint
def list_commits(ctx: Ctx):
    repo = ctx.repo()
    _require_history(repo)
    start = ctx.query.get("sha") or repo.default_branch
    head = repo.git.resolve_commit(start)
    if head is None:
        raise not_found(f"No commit found for SHA: {start}")
    extra = []
    author = ctx.query.get("author")
    if author:
        user = ctx.state.user(author)
        extra.append(f"--author={user.email if user and user.email else author}")
    for name in ("since", "until"):
        if ctx.query.get(name):
            extra.append(f"--{name}={ctx.query[name]}")
    path = ctx.query.get("path") or None
    page, per_page = ctx.page()
    total = repo.git.count([head], path, extra)
    shas = repo.git.rev_list([head], path, (page - 1) * per_page, per_page, extra)
    infos = repo.git.read_commits(shas)
    data = [rest_commit(ctx.state, ctx.urls, repo, info) for info in infos]
    return ctx.paged_response(data, page, per_page, total)


@endpoint
def get_commit(ctx: Ctx):
    repo = ctx.repo()
    _require_history(repo)
    ref = ctx.params["ref"]
    sha = repo.git.resolve_commit(ref)
    if sha is None:
        raise ApiError(422, f"No commit found for SHA: {ref}")
    info = repo.git.read_commit(sha)
    parent = info.parents[0] if info.parents else None
    if ctx.media.param == "sha":
        return text_response(sha, "sha")
    if ctx.media.param == "diff":
        return text_response(repo.git.unified_diff(parent, sha), "diff")
    if ctx.media.param == "patch":
        return text_response(repo.git.format_patch("-1", sha), "patch")
    data = rest_commit(ctx.state, ctx.urls, repo, info, repo.git.diff(parent, sha))
    return json_response(data, headers={"last-modified": http_date(info.committer.timestamp)})


def _split_basehead(repo: RepoRecord, basehead: str) -> tuple[str, str]:
    sep = "..." if "..." in basehead else ".." if ".." in basehead else None
    if sep is None:
        raise not_found()
    base, _, head = basehead.partition(sep)
    refs = []
    for ref in (base, head):
        owner, colon, name = ref.rpartition(":")
        if colon and owner.lower() != repo.owner.lower():
            raise not_found()  # cross-fork comparisons: the forge has no forks
        refs.append(name if colon else ref)
    return refs[0], refs[1]


@endpoint
def compare(ctx: Ctx):
    repo = ctx.repo()
    _require_history(repo)
    base_ref, head_ref = _split_basehead(repo, ctx.params["basehead"])
    base, head = repo.git.resolve_commit(base_ref), repo.git.resolve_commit(head_ref)
    if base is None or head is None:
        raise not_found()
    merge_base = repo.git.merge_base(base, head)
    if merge_base is None:
        raise not_found(f"No common ancestor between {base_ref} and {head_ref}.")
    if ctx.media.param == "diff":
        return text_response(repo.git.unified_diff(merge_base, head), "diff")
    if ctx.media.param == "patch":
        return text_response(repo.git.format_patch(f"{merge_base}..{head}"), "patch")
    ahead = repo.git.count([head, f"^{merge_base}"])
    behind = repo.git.count([base, f"^{merge_base}"])
    status = (
        "identical"
        if ahead == behind == 0
        else "ahead"
        if behind == 0
        else "behind"
        if ahead == 0
        else "diverged"
    )
    paged = "page" in ctx.query or "per_page" in ctx.query
    page, per_page = ctx.page() if paged else (1, COMPARE_MAX_COMMITS)
    shas = repo.git.rev_list([head, f"^{merge_base}"], extra=["--reverse"])
    window = shas[(page - 1) * per_page : page * per_page]
    api = ctx.urls.repo(repo.full_name)
    html = ctx.urls.repo_html(repo.full_name)
    spec = ctx.params["basehead"]
    base_info, merge_info = repo.git.read_commits([base, merge_base])
    data = {
        "url": f"{api}/compare/{spec}",
        "html_url": f"{html}/compare/{spec}",
        "permalink_url": f"{html}/compare/{repo.owner}:{base[:7]}...{repo.owner}:{head[:7]}",
        "diff_url": f"{html}/compare/{spec}.diff",
        "patch_url": f"{html}/compare/{spec}.patch",
        "base_commit": rest_commit(ctx.state, ctx.urls, repo, base_info),
        "merge_base_commit": rest_commit(ctx.state, ctx.urls, repo, merge_info),
        "status": status,
        "ahead_by": ahead,
        "behind_by": behind,
        "total_commits": ahead,
        "commits": [
            rest_commit(ctx.state, ctx.urls, repo, info) for info in repo.git.read_commits(window)
        ],
        "files": [diff_entry(ctx.urls, repo, head, d) for d in repo.git.diff(merge_base, head)],
    }
    if paged:
        return ctx.paged_response(data, page, per_page, len(shas))
    return json_response(data)


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}"
    return [
        Route(f"{base}/commits", list_commits, methods=["GET"]),
        Route(f"{base}/commits/{{ref:path}}", get_commit, methods=["GET"]),
        Route(f"{base}/compare/{{basehead:path}}", compare, methods=["GET"]),
    ]
