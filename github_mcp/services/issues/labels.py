"""A repository's labels over the REST API, as compact typed records."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import invalid_input, not_found
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.repo_facts import repo_path

SCAN_PAGES = 10


class Label(BaseModel):
    name: str
    color: str
    description: str | None = None


class LabelPage(BaseModel):
    labels: list[Label]
    next_cursor: str | None = None


class LabelDeleted(BaseModel):
    name: str
    deleted: bool = True


def _label(item: dict[str, Any]) -> Label:
    description = cut_text(strip_invisible(item.get("description") or ""), 400)[0]
    return Label(name=item["name"], color=item["color"], description=description or None)


def _path(full_name: str, name: str | None = None) -> str:
    base = f"{repo_path(full_name)}/labels"
    if name is None:
        return base
    if "/" in name:
        # The name would need an encoded slash in the path, which the client never sends
        # (a proxy may decode it into another path).
        raise invalid_input(
            f"label {name!r} holds a slash: it cannot be addressed by name in a URL",
            hint="Read it with list_labels; rename or delete it on GitHub itself.",
        )
    return f"{base}/{encode_path(name)}"


async def list_labels(
    github: GitHubClient, full_name: str, *, limit: int, cursor: str | None
) -> LabelPage:
    page = await github.paginate(_path(full_name), limit=limit, cursor=cursor, repo=full_name)
    return LabelPage(labels=[_label(i) for i in page.items], next_cursor=page.next_cursor)


async def get_label(github: GitHubClient, full_name: str, name: str) -> Label:
    if "/" not in name:
        return _label(await github.get_json(_path(full_name, name), repo=full_name))
    cursor = None
    for _ in range(SCAN_PAGES):  # a slashed name is found in the list instead
        page = await github.paginate(_path(full_name), limit=100, cursor=cursor, repo=full_name)
        found = [i for i in page.items if str(i.get("name", "")).lower() == name.lower()]
        if found:
            return _label(found[0])
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    raise not_found(
        f"no label {name!r} in {full_name}",
        hint=("List the repository's labels with list_labels, or create it with create_label."),
    )


async def create_label(github: GitHubClient, full_name: str, fields: dict[str, Any]) -> Label:
    return _label(await github.request_json("POST", _path(full_name), json_body=fields))


async def update_label(
    github: GitHubClient, full_name: str, name: str, fields: dict[str, Any]
) -> Label:
    path = _path(full_name, name)
    return _label(await github.request_json("PATCH", path, json_body=fields))


async def delete_label(github: GitHubClient, full_name: str, name: str) -> LabelDeleted:
    await github.request_json("DELETE", _path(full_name, name))
    return LabelDeleted(name=name)
