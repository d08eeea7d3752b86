"""Releases and tags over the REST API, as compact typed records.

Release names, bodies and tag messages are written by people with push access, but they
are still text from outside: they come back without invisible or direction-changing
characters, bodies capped.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.github_json import ReleaseJson
from github_mcp.services.shared.repo_facts import repo_path

BODY_CAP = 16_000


class Release(BaseModel):
    id: int
    tag: str
    name: str | None = None
    draft: bool
    prerelease: bool
    target: str = Field(description="The branch or commit the tag is (or will be) made from.")
    author: str | None = None
    created_at: str | None = None
    published_at: str | None = None
    url: str


class ReleaseDetail(Release):
    body: str = ""
    body_truncated: bool | None = None


class ReleasePage(BaseModel):
    releases: list[Release]
    next_cursor: str | None = None


class Tag(BaseModel):
    name: str
    sha: str = Field(description="The commit the tag points at.")


class TagPage(BaseModel):
    tags: list[Tag]
    next_cursor: str | None = None


class TagDetail(Tag):
    annotated: bool
    message: str | None = None
    tagger: str | None = None
    tagged_at: str | None = None
    tag_object_sha: str | None = None


def _text(value: str | None, cap: int = 300) -> str:
    return cut_text(strip_invisible(value or ""), cap)[0]


def _release(item: dict[str, Any]) -> Release:
    return Release(
        id=item["id"],
        tag=item["tag_name"],
        name=_text(item.get("name")) or None,
        draft=bool(item.get("draft")),
        prerelease=bool(item.get("prerelease")),
        target=item.get("target_commitish") or "",
        author=(item.get("author") or {}).get("login"),
        created_at=item.get("created_at"),
        published_at=item.get("published_at"),
        url=item["html_url"],
    )


def release_detail(item: dict[str, Any]) -> ReleaseDetail:
    body, cut = cut_text(strip_invisible(item.get("body") or ""), BODY_CAP)
    return ReleaseDetail(**_release(item).model_dump(), body=body, body_truncated=cut or None)


async def list_releases(
    github: GitHubClient, full_name: str, *, limit: int, cursor: str | None
) -> ReleasePage:
    page = await github.paginate(
        f"{repo_path(full_name)}/releases", limit=limit, cursor=cursor, repo=full_name
    )
    return ReleasePage(releases=[_release(i) for i in page.items], next_cursor=page.next_cursor)


async def get_release(
    github: GitHubClient, full_name: str, *, tag: str | None = None, release_id: int | None = None
) -> ReleaseDetail:
    """By tag (published releases only, as GitHub finds them), by id (drafts too), or
    the latest release when neither is given."""
    base = f"{repo_path(full_name)}/releases"
    if tag is not None:
        path = f"{base}/tags/{encode_path(tag)}"
    elif release_id is not None:
        path = f"{base}/{release_id}"
    else:
        path = f"{base}/latest"
    return release_detail(await github.get_json(path, repo=full_name))


async def raw_release(github: GitHubClient, full_name: str, release_id: int) -> ReleaseJson:
    """The release as GitHub has it now, uncached (a write's gate decides on it)."""
    path = f"{repo_path(full_name)}/releases/{release_id}"
    data: ReleaseJson = await github.request_json("GET", path)
    return data


async def generated_notes(
    github: GitHubClient,
    full_name: str,
    *,
    tag: str,
    target: str | None,
    previous_tag: str | None,
) -> str:
    """GitHub's own release notes for `tag`: merged pull requests since the previous
    release (or `previous_tag`) and a full-changelog link."""
    body: dict[str, Any] = {"tag_name": tag}
    if target:
        body["target_commitish"] = target
    if previous_tag:
        body["previous_tag_name"] = previous_tag
    path = f"{repo_path(full_name)}/releases/generate-notes"
    notes = await github.request_json("POST", path, json_body=body)
    return str(notes.get("body") or "")


async def create_draft(
    github: GitHubClient, full_name: str, fields: dict[str, Any]
) -> ReleaseDetail:
    path = f"{repo_path(full_name)}/releases"
    created = await github.request_json("POST", path, json_body={**fields, "draft": True})
    return release_detail(created)


async def update_release(
    github: GitHubClient, full_name: str, release_id: int, fields: dict[str, Any]
) -> ReleaseDetail:
    path = f"{repo_path(full_name)}/releases/{release_id}"
    return release_detail(await github.request_json("PATCH", path, json_body=fields))


async def list_tags(
    github: GitHubClient, full_name: str, *, limit: int, cursor: str | None
) -> TagPage:
    page = await github.paginate(
        f"{repo_path(full_name)}/tags", limit=limit, cursor=cursor, repo=full_name
    )
    tags = [Tag(name=i["name"], sha=i["commit"]["sha"]) for i in page.items]
    return TagPage(tags=tags, next_cursor=page.next_cursor)


async def get_tag(github: GitHubClient, full_name: str, tag: str) -> TagDetail:
    """A tag with the commit it names; an annotated tag also with its message and tagger."""
    ref = await github.get_json(
        f"{repo_path(full_name)}/git/ref/tags/{encode_path(tag)}", repo=full_name
    )
    target = ref["object"]
    if target["type"] != "tag":
        return TagDetail(name=tag, sha=target["sha"], annotated=False)
    obj = await github.get_json(
        f"{repo_path(full_name)}/git/tags/{target['sha']}", repo=full_name, immutable=True
    )
    pointed = obj["object"]
    if pointed["type"] != "commit":
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"tag {tag!r} points at a {pointed['type']}, not a commit",
            hint=("Release a tag that points at a commit; get_tag shows what the tag points at."),
        )
    tagger = obj.get("tagger") or {}
    return TagDetail(
        name=tag,
        sha=pointed["sha"],
        annotated=True,
        message=cut_text(strip_invisible(obj.get("message") or ""), 4000)[0],
        tagger=_text(tagger.get("name")) or None,
        tagged_at=tagger.get("date"),
        tag_object_sha=obj["sha"],
    )
