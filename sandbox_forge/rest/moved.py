"""Renamed and transferred repositories, answered as GitHub answers them.

After a rename or a transfer, GitHub keeps the old name as a redirect: any API request
under `/repos/{old owner}/{old name}` gets `301 Moved Permanently` (GET and HEAD) or
`307 Temporary Redirect` (other methods) to the same path under `/repositories/{id}`,
with a JSON body naming that URL. `/repositories/{id}/...` serves the repository by its
id, whatever its name now. Creating a repository with the old name ends the redirect.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from sandbox_forge.kernel.errors import JSON_TYPE
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

REPO_PATH = re.compile(r"^/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)(?P<rest>/.*)?$")
BY_ID_PATH = re.compile(r"^/repositories/(?P<id>[0-9]+)(?P<rest>/.*)?$")
DOCS = "https://docs.github.com/rest/repos/repos#get-a-repository"


def moved_names(state: ForgeState) -> dict[str, int]:
    """Old full name (lower case) -> repository id."""
    return state.__dict__.setdefault("moved_repos", {})


def move_repo(state: ForgeState, full_name: str, new_full_name: str) -> RepoRecord:
    """Rename (same owner) or transfer (new owner) a repository; the old name redirects."""
    new_owner, _, new_name = new_full_name.partition("/")
    if not new_owner or not new_name or "/" in new_name:
        raise ValueError(f"bad repository name {new_full_name!r}")
    with state.lock:
        record = state.repos.get(full_name.lower())
        if record is None:
            raise ValueError(f"no repository {full_name}")
        if new_full_name.lower() in state.repos:
            raise ValueError(f"repository {new_full_name} already exists")
        old_key = record.full_name.lower()
        record.owner = state.ensure_user(new_owner).login
        record.name = new_name
        del state.repos[old_key]
        state.repos[record.full_name.lower()] = record
        collaborators = getattr(getattr(state, "access", None), "collaborators", None)
        if isinstance(collaborators, dict) and old_key in collaborators:
            collaborators[record.full_name.lower()] = collaborators.pop(old_key)
        moved = moved_names(state)
        moved.pop(record.full_name.lower(), None)
        moved[old_key] = record.id
        return record


def _by_id(state: ForgeState, repo_id: int) -> RepoRecord | None:
    return next((r for r in state.all_repos() if r.id == repo_id), None)


class MovedRepositories:
    """Inside the forge middleware (so auth, limits and the request log apply)."""

    def __init__(self, app: ASGIApp, state: ForgeState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        by_id = BY_ID_PATH.match(path)
        if by_id:
            record = _by_id(self.state, int(by_id["id"]))
            if record is not None:
                inner = f"/repos/{record.full_name}{by_id['rest'] or ''}"
                scope = dict(scope, path=inner, raw_path=inner.encode())
            await self.app(scope, receive, send)
            return
        named = REPO_PATH.match(path)
        if named and self.state.repo(named["owner"], named["name"]) is None:
            repo_id = moved_names(self.state).get(f"{named['owner']}/{named['name']}".lower())
            if repo_id is not None and _by_id(self.state, repo_id) is not None:
                await self._redirect(scope, send, repo_id, named["rest"] or "")
                return
        await self.app(scope, receive, send)

    async def _redirect(self, scope: Scope, send: Send, repo_id: int, rest: str) -> None:
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "localhost")
        prefix = scope.get("forge.api_prefix", "")
        query = scope.get("query_string", b"").decode("latin-1")
        location = f"{scope.get('scheme', 'http')}://{host}{prefix}/repositories/{repo_id}{rest}"
        if query:
            location += "?" + query
        safe = scope["method"] in ("GET", "HEAD")
        status = 301 if safe else 307
        message = "Moved Permanently" if safe else "Temporary Redirect"
        body = json.dumps({"message": message, "url": location, "documentation_url": DOCS})
        payload: list[Any] = [
            (b"content-type", JSON_TYPE.encode()),
            (b"location", location.encode()),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": payload})
        await send(
            {
                "type": "http.response.body",
                "body": b"" if scope["method"] == "HEAD" else body.encode(),
            }
        )
