"""Gists by GitHub's REST description: the user's list, one gist with its files, create
(secret unless `public`), update (change, rename or delete files). Records are in
stores/gists.py."""

from __future__ import annotations

import time
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import invalid_request, json_response, not_found, validation_failed
from sandbox_forge.kernel.formats import iso, node_id
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import require_user
from sandbox_forge.rest.collab_api import created_response
from sandbox_forge.stores import gists as store
from sandbox_forge.stores.lookups import user_json
from sandbox_forge.stores.state import ForgeState

TRUNCATE_AT = 1024 * 1024  # GitHub truncates file content in the API past about a megabyte
LANGUAGES = {".py": "Python", ".md": "Markdown", ".js": "JavaScript", ".sh": "Shell"}


def _file(ctx: Ctx, gist: store.Gist, name: str, content: str | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "filename": name,
        "type": "text/plain",
        "language": LANGUAGES.get("." + name.rpartition(".")[2].lower(), "Text"),
        "raw_url": f"{ctx.urls.web}/gist/{gist.owner}/{gist.id}/raw/{name}",
        "size": len(gist.files[name].encode()),
    }
    if content is not None:
        data["truncated"] = len(content) > TRUNCATE_AT
        data["content"] = content[:TRUNCATE_AT]
    return data


def gist_json(ctx: Ctx, gist: store.Gist, with_content: bool) -> dict[str, Any]:
    api = f"{ctx.urls.api}/gists/{gist.id}"
    owner = user_json(ctx.state, ctx.urls, gist.owner)
    return {
        "url": api,
        "forks_url": f"{api}/forks",
        "commits_url": f"{api}/commits",
        "id": gist.id,
        "node_id": node_id("Gist", gist.id),
        "git_pull_url": f"{ctx.urls.web}/gist/{gist.id}.git",
        "git_push_url": f"{ctx.urls.web}/gist/{gist.id}.git",
        "html_url": f"{ctx.urls.web}/gist/{gist.owner}/{gist.id}",
        "files": {
            name: _file(ctx, gist, name, text if with_content else None)
            for name, text in sorted(gist.files.items())
        },
        "public": gist.public,
        "created_at": iso(gist.created_at),
        "updated_at": iso(gist.updated_at),
        "description": gist.description,
        "comments": 0,
        "user": None,
        "comments_url": f"{api}/comments",
        "owner": owner,
        "truncated": False,
    }


def _description(body: dict[str, Any]) -> str | None:
    value = body.get("description")
    if value is not None and not isinstance(value, str):
        raise invalid_request(f"For 'properties/description', {value!r} is not a string.")
    return value


def _new_files(body: dict[str, Any]) -> dict[str, str]:
    files = body.get("files")
    if not isinstance(files, dict) or not files:
        raise validation_failed({"resource": "Gist", "code": "missing_field", "field": "files"})
    out = {}
    for name, entry in files.items():
        content = entry.get("content") if isinstance(entry, dict) else None
        if not isinstance(content, str) or not content.strip() or not name.strip():
            raise validation_failed({"resource": "Gist", "code": "missing_field", "field": "files"})
        out[name] = content
    return out


def _public(body: dict[str, Any]) -> bool:
    value = body.get("public", False)
    if value in (True, "true"):
        return True
    if value in (False, "false"):
        return False
    raise invalid_request(f"For 'properties/public', {value!r} is not a boolean.")


@endpoint
def list_gists(ctx: Ctx) -> Response:
    login = require_user(ctx.principal).lower()
    since = ctx.query.get("since")
    mine = [g for g in store.gists(ctx.state).values() if g.owner.lower() == login]
    if since:
        mine = [g for g in mine if iso(g.updated_at) >= since]
    mine.sort(key=lambda g: (g.updated_at, g.id), reverse=True)
    return ctx.paginate(mine, lambda g: gist_json(ctx, g, with_content=False))


def _gist(ctx: Ctx) -> store.Gist:
    gist = store.gists(ctx.state).get(str(ctx.params["gist_id"]))
    if gist is None:
        raise not_found()
    return gist


@endpoint
def get_gist(ctx: Ctx) -> Response:
    return json_response(gist_json(ctx, _gist(ctx), with_content=True))


@endpoint
def create_gist(ctx: Ctx) -> Response:
    login = require_user(ctx.principal)
    body = ctx.json()
    files = _new_files(body)
    gist = store.create_gist(ctx.state, login, files, _description(body), _public(body))
    return created_response(gist_json(ctx, gist, with_content=True))


def _apply(gist: store.Gist, changes: Any) -> dict[str, str]:
    if not isinstance(changes, dict):
        raise invalid_request(f"For 'properties/files', {changes!r} is not an object.")
    files = dict(gist.files)
    for name, entry in changes.items():
        if entry is None:
            files.pop(name, None)
            continue
        if not isinstance(entry, dict) or (name not in files and "content" not in entry):
            raise validation_failed({"resource": "Gist", "code": "invalid", "field": "files"})
        text = entry.get("content", files.get(name))
        new_name = entry.get("filename") or name
        if not isinstance(text, str) or not isinstance(new_name, str):
            raise validation_failed({"resource": "Gist", "code": "invalid", "field": "files"})
        files.pop(name, None)
        files[new_name] = text
    if not files:
        raise validation_failed({"resource": "Gist", "code": "missing_field", "field": "files"})
    return files


@endpoint
def update_gist(ctx: Ctx) -> Response:
    login = require_user(ctx.principal).lower()
    body = ctx.json()
    with ctx.state.lock:
        gist = _gist(ctx)
        if gist.owner.lower() != login:
            raise not_found()
        description = _description(body)
        files = _apply(gist, body["files"]) if "files" in body else gist.files
        gist.files = files
        if "description" in body:
            gist.description = description
        gist.updated_at = time.time()
    return json_response(gist_json(ctx, gist, with_content=True))


def routes(state: ForgeState) -> list[Route]:
    return [
        Route("/gists", list_gists, methods=["GET"]),
        Route("/gists", create_gist, methods=["POST"]),
        Route("/gists/{gist_id}", get_gist, methods=["GET"]),
        Route("/gists/{gist_id}", update_gist, methods=["PATCH"]),
    ]
