"""Repository facts: default branch, permissions, branches, ref resolution, and a pull
request as GitHub has it now (what the pulls, reviews and gate-side helpers all read)."""

from __future__ import annotations

import re
from typing import Any

from github_mcp.github.client import GitHubClient, Page, encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.shared.github_json import (
    Commit,
    Comparison,
    GitRef,
    PullRequest,
    Repository,
)

SHA_RE = re.compile(r"^[0-9a-f]{40}$")
DEFAULT_BRANCH_TTL = 600.0


def repo_path(full_name: str) -> str:
    owner, name = full_name.split("/", 1)
    return f"/repos/{encode_path(owner)}/{encode_path(name)}"


async def get_repo(github: GitHubClient, full_name: str) -> Repository:
    data: Repository = await github.get_json(repo_path(full_name), repo=full_name)
    return data


async def default_branch(github: GitHubClient, full_name: str) -> str:
    """Cached apart from the repo's other reads: writes do not change it, so they
    do not invalidate it (it expires on its own after ten minutes)."""

    slot = await github.cache.reserve("default_branch", full_name.lower(), ttl=DEFAULT_BRANCH_TTL)
    if slot.found:
        return str(slot.value)
    try:
        data = await github.request_json("GET", repo_path(full_name))
        name = str(data["default_branch"])
    except BaseException as exc:
        slot.fail(exc)
        raise
    await slot.fill(name)
    _keep_visibility(github, full_name, data)
    return name


async def repo_visibility(github: GitHubClient, full_name: str) -> str:
    """`public`, `private` or `internal`, cached as the default branch is (the same read
    fills both); `absent` when GitHub answers 404. For the cross-visibility guard."""
    key = full_name.lower()
    slot = await github.cache.reserve("repo_visibility", key, ttl=DEFAULT_BRANCH_TTL)
    if slot.found:
        return str(slot.value)
    try:
        data = await github.request_json("GET", repo_path(full_name))
    except GitHubMCPError as exc:
        if exc.code != ErrorCode.NOT_FOUND:
            slot.fail(exc)
            raise
        await slot.fill("absent")
        return "absent"
    except BaseException as exc:
        slot.fail(exc)
        raise
    visibility = _visibility(data)
    await slot.fill(visibility)
    github.cache.set("default_branch", key, str(data["default_branch"]), ttl=DEFAULT_BRANCH_TTL)
    return visibility


def _visibility(data: dict[str, Any]) -> str:
    found = data.get("visibility")
    if found in ("public", "private", "internal"):
        return str(found)
    return "private" if data.get("private", True) else "public"


def _keep_visibility(github: GitHubClient, full_name: str, data: dict[str, Any]) -> None:
    github.cache.set(
        "repo_visibility", full_name.lower(), _visibility(data), ttl=DEFAULT_BRANCH_TTL
    )


async def resolve_commit_sha(github: GitHubClient, full_name: str, ref: str) -> str:
    """Resolve a branch, tag or SHA to a commit SHA (mutable refs: short TTL + ETag)."""
    if SHA_RE.match(ref):
        return ref
    base = repo_path(full_name)
    for kind in ("heads", "tags"):
        try:
            data: GitRef = await github.get_json(
                f"{base}/git/ref/{kind}/{encode_path(ref)}", repo=full_name
            )
        except GitHubMCPError as exc:
            if exc.code != ErrorCode.NOT_FOUND:
                raise
            continue
        # A ref that matches more than one (a prefix) comes back as a list: not this ref.
        target = data.get("object") if isinstance(data, dict) else None
        if target and target["type"] == "commit":
            return target["sha"]
        if target and target["type"] == "tag":
            tag: GitRef = await github.get_json(
                f"{base}/git/tags/{target['sha']}", immutable=True, repo=full_name
            )
            return tag["object"]["sha"]
    raise GitHubMCPError(
        ErrorCode.NOT_FOUND,
        f"Ref {ref!r} was not found in {full_name}.",
        hint="list_branches shows the branches; tags and full SHAs work too.",
    )


async def list_branches(
    github: GitHubClient, full_name: str, *, limit: int, cursor: str | None
) -> Page:
    return await github.paginate(
        f"{repo_path(full_name)}/branches", limit=limit, cursor=cursor, repo=full_name
    )


async def list_commits(
    github: GitHubClient,
    full_name: str,
    *,
    ref: str,
    path: str | None,
    limit: int,
    cursor: str | None,
) -> Page:
    params: dict[str, Any] = {"sha": ref}
    if path:
        params["path"] = path
    return await github.paginate(
        f"{repo_path(full_name)}/commits", params=params, limit=limit, cursor=cursor, repo=full_name
    )


async def get_commit(github: GitHubClient, full_name: str, ref: str) -> Commit:
    try:
        data: Commit = await github.get_json(
            f"{repo_path(full_name)}/commits/{encode_path(ref)}", repo=full_name
        )
        return data
    except GitHubMCPError as exc:
        # GitHub answers 422 "No commit found for SHA" for an unknown ref or SHA.
        if exc.details.get("status") == 422:
            raise GitHubMCPError(
                ErrorCode.NOT_FOUND,
                f"No commit {ref!r} in {full_name}.",
                hint="list_commits shows the commits on a branch.",
            ) from None
        raise


async def compare(github: GitHubClient, full_name: str, base: str, head: str) -> Comparison:
    data: Comparison = await github.get_json(
        f"{repo_path(full_name)}/compare/{encode_path(base)}...{encode_path(head)}", repo=full_name
    )
    return data


async def get_pull(github: GitHubClient, full_name: str, number: int) -> PullRequest:
    pull: PullRequest = await github.request_json("GET", f"{repo_path(full_name)}/pulls/{number}")
    return pull
