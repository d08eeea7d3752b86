"""Releases, generated release notes, tags and tag objects, by GitHub's REST description.

Records and the rules (drafts, latest) are in stores/releases.py; publishing, which creates
the tag through the repository's tag rules, is in rules/releases.py.
"""

from __future__ import annotations

import time
import zlib
from typing import Any
from urllib.parse import quote

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import (
    ApiError,
    invalid_request,
    json_response,
    missing_field,
    not_found,
)
from sandbox_forge.kernel.formats import iso
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import check_repo, repo_role
from sandbox_forge.rest.collab_api import created_response
from sandbox_forge.rules.releases import publish
from sandbox_forge.stores import releases as store
from sandbox_forge.stores.lookups import actor_login, node_id, user_json
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

TEXT_FIELDS = ("tag_name", "target_commitish", "name", "body", "previous_tag_name")
FLAGS = ("draft", "prerelease", "generate_release_notes")
MAKE_LATEST = ("true", "false", "legacy")


def release_json(ctx: Ctx, repo: RepoRecord, release: store.Release) -> dict[str, Any]:
    api = f"{ctx.urls.repo(repo.full_name)}/releases/{release.id}"
    web = ctx.urls.repo_html(repo.full_name)
    tag = quote(release.tag_name)
    page = f"untagged-{release.id}" if release.draft else tag
    return {
        "url": api,
        "html_url": f"{web}/releases/tag/{page}",
        "assets_url": f"{api}/assets",
        "upload_url": f"{ctx.urls.web}/uploads/repos/{repo.full_name}/releases/{release.id}"
        "/assets{?name,label}",
        "tarball_url": None if release.draft else f"{ctx.urls.repo(repo.full_name)}/tarball/{tag}",
        "zipball_url": None if release.draft else f"{ctx.urls.repo(repo.full_name)}/zipball/{tag}",
        "id": release.id,
        "node_id": node_id("RE", repo, release.id),
        "tag_name": release.tag_name,
        "target_commitish": release.target_commitish,
        "name": release.name,
        "body": release.body,
        "draft": release.draft,
        "prerelease": release.prerelease,
        "created_at": iso(release.created_at),
        "published_at": iso(release.published_at) if release.published_at else None,
        "updated_at": iso(release.updated_at),
        "author": user_json(ctx.state, ctx.urls, release.author),
        "assets": [],
    }


def _can_push(ctx: Ctx, repo: RepoRecord) -> bool:
    try:
        check_repo(ctx.principal, repo, write=True)
    except ApiError:
        return False
    return True


def _fields(ctx: Ctx) -> dict[str, Any]:
    """The body's known fields, type-checked as GitHub's description types them."""
    body = ctx.json()
    for name in TEXT_FIELDS:
        if name in body and not isinstance(body[name], str):
            raise invalid_request(f"For 'properties/{name}', {body[name]!r} is not a string.")
    for name in FLAGS:
        if name in body and not isinstance(body[name], bool):
            raise invalid_request(f"For 'properties/{name}', {body[name]!r} is not a boolean.")
    if "make_latest" in body and body["make_latest"] not in MAKE_LATEST:
        raise invalid_request(
            f"For 'properties/make_latest', {body['make_latest']!r} is not a member of "
            f"{list(MAKE_LATEST)}."
        )
    return body


def _notes(repo: RepoRecord, ctx: Ctx, tag: str, target: str, previous: str | None) -> str:
    """GitHub's default release notes: merged pull requests, then the full changelog."""
    start = store.tag_commit(repo, previous) if previous else None
    pulls = store.merged_pulls_between(repo, start, target)
    web = ctx.urls.repo_html(repo.full_name)
    lines = ["## What's Changed"]
    lines += [f"* {title} by @{who} in {web}/pull/{number}" for number, title, who in pulls]
    changes = f"compare/{previous}...{tag}" if previous else f"commits/{tag}"
    lines += ["", f"**Full Changelog**: {web}/{changes}"]
    return "\n".join(lines)


def _generated(ctx: Ctx, repo: RepoRecord, body: dict[str, Any]) -> dict[str, str]:
    tag = body.get("tag_name")
    if not tag:
        raise missing_field("tag_name")
    target = store.tag_commit(repo, tag)
    if target is None:
        commitish = body.get("target_commitish") or repo.default_branch
        target = repo.git.resolve_commit(commitish)
        if target is None:
            raise not_found()
    previous = body.get("previous_tag_name") or store.previous_tag(repo, tag)
    if previous and store.tag_commit(repo, previous) is None:
        raise not_found()
    return {"name": tag, "body": _notes(repo, ctx, tag, target, previous)}


@endpoint
def list_releases(ctx: Ctx) -> Response:
    repo = ctx.repo()
    items = store.newest_first(repo, drafts=_can_push(ctx, repo))
    return ctx.paginate(items, lambda r: release_json(ctx, repo, r))


@endpoint
def get_release(ctx: Ctx) -> Response:
    repo = ctx.repo()
    release = store.get_release(repo, ctx.params["release_id"], _can_push(ctx, repo))
    return json_response(release_json(ctx, repo, release))


@endpoint
def latest_release(ctx: Ctx) -> Response:
    repo = ctx.repo()
    return json_response(release_json(ctx, repo, store.latest(repo)))


@endpoint
def release_by_tag(ctx: Ctx) -> Response:
    repo = ctx.repo()
    return json_response(release_json(ctx, repo, store.by_tag(repo, ctx.params["tag"])))


@endpoint
def generate_notes(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    return json_response(_generated(ctx, repo, _fields(ctx)))


@endpoint
def create_release(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    body = _fields(ctx)
    tag = body.get("tag_name")
    if not tag:
        raise missing_field("tag_name")
    author = actor_login(ctx.principal)
    with ctx.state.lock:
        store.check_unique_tag(repo, tag)
        release = store.Release(
            id=ctx.state.next_id(),
            tag_name=tag,
            target_commitish=body.get("target_commitish") or repo.default_branch,
            author=author,
            name=body.get("name"),
            body=body.get("body"),
            draft=True,
            prerelease=bool(body.get("prerelease")),
        )
        if body.get("generate_release_notes"):
            notes = _generated(ctx, repo, {**body, "target_commitish": release.target_commitish})
            release.name = release.name or notes["name"]
            release.body = notes["body"] + (f"\n\n{release.body}" if release.body else "")
        if not body.get("draft"):
            make_latest = str(body.get("make_latest", "true"))
            publish(ctx.state, repo, release, make_latest, repo_role(ctx.principal, repo))
        store.releases(repo)[release.id] = release
    return created_response(release_json(ctx, repo, release))


@endpoint
def update_release(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    body = _fields(ctx)
    with ctx.state.lock:
        release = store.get_release(repo, ctx.params["release_id"], drafts=True)
        if "tag_name" in body:
            store.check_unique_tag(repo, body["tag_name"], except_id=release.id)
        for name in ("tag_name", "target_commitish", "name", "body", "prerelease"):
            if name in body:
                setattr(release, name, body[name])
        release.updated_at = time.time()
        make_latest = str(body.get("make_latest", "true"))
        if release.draft and body.get("draft") is False:
            store.check_unique_tag(repo, release.tag_name, except_id=release.id)
            publish(ctx.state, repo, release, make_latest, repo_role(ctx.principal, repo))
        elif not release.draft and make_latest == "true" and "make_latest" in body:
            release.latest_at = release.updated_at
    return json_response(release_json(ctx, repo, release))


@endpoint
def delete_release(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    with ctx.state.lock:
        release = store.get_release(repo, ctx.params["release_id"], drafts=True)
        del store.releases(repo)[release.id]
    return Response(status_code=204)


@endpoint
def list_tags(ctx: Ctx) -> Response:
    repo = ctx.repo()
    api = ctx.urls.repo(repo.full_name)
    tags = []
    for ref, _sha, _type in reversed(repo.git.list_refs("refs/tags/")):
        name = ref.removeprefix("refs/tags/")
        commit = store.tag_commit(repo, name)
        if commit is None:
            continue
        tags.append(
            {
                "name": name,
                "commit": {"sha": commit, "url": f"{api}/commits/{commit}"},
                "zipball_url": f"{api}/zipball/refs/tags/{quote(name)}",
                "tarball_url": f"{api}/tarball/refs/tags/{quote(name)}",
                "node_id": node_id("REF", repo, zlib.crc32(name.encode())),
            }
        )
    return ctx.paginate(tags)


@endpoint
def get_tag_object(ctx: Ctx) -> Response:
    repo = ctx.repo()
    tag = store.read_tag_object(repo, str(ctx.params["tag_sha"]))
    if tag is None:
        raise not_found()
    api = ctx.urls.repo(repo.full_name)
    kind = f"{tag.object_type}s"
    return json_response(
        {
            "node_id": node_id("TAG", repo, int(tag.sha[:8], 16)),
            "tag": tag.tag,
            "sha": tag.sha,
            "url": f"{api}/git/tags/{tag.sha}",
            "message": tag.message,
            "tagger": {
                "date": iso(tag.tagged_at),
                "email": tag.tagger_email,
                "name": tag.tagger_name,
            },
            "object": {
                "sha": tag.object_sha,
                "type": tag.object_type,
                "url": f"{api}/git/{kind}/{tag.object_sha}",
            },
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "payload": None,
                "signature": None,
                "verified_at": None,
            },
        }
    )


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}"
    one = f"{base}/releases/{{release_id:int}}"
    return [
        Route(f"{base}/releases", list_releases, methods=["GET"]),
        Route(f"{base}/releases", create_release, methods=["POST"]),
        Route(f"{base}/releases/latest", latest_release, methods=["GET"]),
        Route(f"{base}/releases/generate-notes", generate_notes, methods=["POST"]),
        Route(f"{base}/releases/tags/{{tag:path}}", release_by_tag, methods=["GET"]),
        Route(one, get_release, methods=["GET"]),
        Route(one, update_release, methods=["PATCH"]),
        Route(one, delete_release, methods=["DELETE"]),
        Route(f"{base}/tags", list_tags, methods=["GET"]),
        Route(f"{base}/git/tags/{{tag_sha}}", get_tag_object, methods=["GET"]),
    ]
