"""Gists over the REST API, as compact typed records."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text

FILE_CAP = 64_000


class GistSummary(BaseModel):
    id: str
    description: str | None = None
    public: bool
    files: list[str]
    updated_at: str | None = None
    url: str


class GistPage(BaseModel):
    gists: list[GistSummary]
    next_cursor: str | None = None


class GistFile(BaseModel):
    name: str
    size: int
    content: str
    truncated: bool | None = None


class Gist(BaseModel):
    id: str
    description: str | None = None
    public: bool
    owner: str | None = None
    url: str
    files: list[GistFile]


def _summary(item: dict[str, Any]) -> GistSummary:
    description = cut_text(strip_invisible(item.get("description") or ""), 300)[0]
    return GistSummary(
        id=item["id"],
        description=description or None,
        public=bool(item.get("public")),
        files=sorted(item.get("files") or {}),
        updated_at=item.get("updated_at"),
        url=item["html_url"],
    )


def gist_detail(item: dict[str, Any]) -> Gist:
    files = []
    for name, meta in sorted((item.get("files") or {}).items()):
        if not meta:
            continue
        content, cut = cut_text(meta.get("content") or "", FILE_CAP)
        files.append(
            GistFile(
                name=name,
                size=int(meta.get("size") or 0),
                content=content,
                truncated=(cut or bool(meta.get("truncated"))) or None,
            )
        )
    summary = _summary(item)
    return Gist(
        id=summary.id,
        description=summary.description,
        public=summary.public,
        owner=(item.get("owner") or {}).get("login"),
        url=summary.url,
        files=files,
    )


async def list_gists(github: GitHubClient, *, limit: int, cursor: str | None) -> GistPage:
    page = await github.paginate("/gists", limit=limit, cursor=cursor)
    return GistPage(gists=[_summary(i) for i in page.items], next_cursor=page.next_cursor)


async def get_gist(github: GitHubClient, gist_id: str) -> Gist:
    return gist_detail(await github.request_json("GET", f"/gists/{encode_path(gist_id)}"))


async def create_gist(
    github: GitHubClient, files: dict[str, str], description: str | None, public: bool
) -> Gist:
    body: dict[str, Any] = {
        "files": {name: {"content": text} for name, text in files.items()},
        "public": public,
    }
    if description is not None:
        body["description"] = description
    return gist_detail(await github.request_json("POST", "/gists", json_body=body))


async def update_gist(
    github: GitHubClient,
    gist_id: str,
    files: dict[str, str | None] | None,
    description: str | None,
) -> Gist:
    body: dict[str, Any] = {}
    if files:
        body["files"] = {n: ({"content": t} if t is not None else None) for n, t in files.items()}
    if description is not None:
        body["description"] = description
    path = f"/gists/{encode_path(gist_id)}"
    return gist_detail(await github.request_json("PATCH", path, json_body=body))
