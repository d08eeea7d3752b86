"""Repositories and branches."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.routing import Route

from sandbox_forge.kernel.errors import json_response, not_found
from sandbox_forge.kernel.formats import http_date
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.shapes.git import rest_commit
from sandbox_forge.rest.shapes.users_repos import repo_json
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

UNPROTECTED = {
    "enabled": False,
    "required_status_checks": {"enforcement_level": "off", "contexts": [], "checks": []},
}


def protection_for(state: ForgeState, repo: RepoRecord, branch: str) -> dict[str, Any] | None:
    hook = state.branch_protection
    return hook(repo, branch) if hook is not None else None


@endpoint
def get_repo(ctx: Ctx):
    repo = ctx.repo()
    data = repo_json(ctx.state, ctx.urls, repo, ctx.principal, full=True)
    modified = max(repo.updated_at, repo.pushed_at)
    return json_response(data, headers={"last-modified": http_date(modified)})


def _branch_names(repo: RepoRecord) -> list[tuple[str, str]]:
    return [(ref[len("refs/heads/") :], sha) for ref, sha, _ in repo.git.list_refs("refs/heads/")]


@endpoint
def list_branches(ctx: Ctx):
    repo = ctx.repo()
    api = ctx.urls.repo(repo.full_name)
    wanted = ctx.query.get("protected")
    items = []
    for name, sha in _branch_names(repo):
        protection = protection_for(ctx.state, repo, name)
        if wanted in ("true", "false") and (protection is not None) != (wanted == "true"):
            continue
        item: dict[str, Any] = {
            "name": name,
            "commit": {"sha": sha, "url": f"{api}/commits/{sha}"},
            "protected": protection is not None,
        }
        if protection is not None:
            item["protection"] = protection
        if not ctx.principal.anonymous:
            item["protection_url"] = f"{api}/branches/{quote(name)}/protection"
        items.append(item)
    return ctx.paginate(items)


@endpoint
def get_branch(ctx: Ctx):
    repo = ctx.repo()
    name = ctx.params["branch"]
    sha = repo.git.read_ref(f"refs/heads/{name}")
    if sha is None:
        raise not_found("Branch not found")
    api = ctx.urls.repo(repo.full_name)
    protection = protection_for(ctx.state, repo, name)
    info = repo.git.read_commit(sha)
    data = {
        "name": name,
        "commit": rest_commit(ctx.state, ctx.urls, repo, info),
        "_links": {
            "self": f"{api}/branches/{quote(name)}",
            "html": f"{ctx.urls.repo_html(repo.full_name)}/tree/{quote(name)}",
        },
        "protected": protection is not None,
        "protection": protection if protection is not None else UNPROTECTED,
        "protection_url": f"{api}/branches/{quote(name)}/protection",
    }
    return json_response(data)


def routes(state: ForgeState) -> list[Route]:
    return [
        Route("/repos/{owner}/{repo}", get_repo, methods=["GET"]),
        Route("/repos/{owner}/{repo}/branches", list_branches, methods=["GET"]),
        Route("/repos/{owner}/{repo}/branches/{branch:path}", get_branch, methods=["GET"]),
    ]
