"""GitHub URL helpers: path encoding, route templates for metrics, pagination cursors."""

from __future__ import annotations

import base64
import functools
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError

_ROUTE_RULES = [
    (re.compile(r"^/repos/[^/]+/[^/]+"), "/repos/{owner}/{repo}"),
    (re.compile(r"/contents/.*$"), "/contents/{path}"),
    (re.compile(r"/git/(refs|ref|matching-refs)/.*$"), r"/git/\1/{ref}"),
    (re.compile(r"/(branches|compare|commits)/[^/]+.*$"), r"/\1/{ref}"),
    (re.compile(r"/[0-9a-f]{40}(?=/|$)"), "/{sha}"),
    (re.compile(r"/\d+(?=/|$)"), "/{n}"),
    (re.compile(r"^/users/[^/]+"), "/users/{user}"),
]


@functools.lru_cache(maxsize=4096)  # every request names its route; few distinct paths
def route_template(path: str) -> str:
    for pattern, repl in _ROUTE_RULES:
        path = pattern.sub(repl, path)
    return path


def encode_path(path: str) -> str:
    """Encode each segment, keeping '/' separators (an encoded '/' would name another file)."""
    return "/".join(quote(seg, safe="") for seg in path.split("/"))


@dataclass
class Page:
    items: list[Any]
    next_cursor: str | None
    total: int | None = None


def encode_cursor(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str | None) -> dict[str, Any]:
    if not cursor:
        return {}
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        if not isinstance(data, dict):
            raise ValueError
        return data
    except (ValueError, json.JSONDecodeError, UnicodeDecodeError):
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT, "cursor is not valid", hint="Pass next_cursor unchanged."
        ) from None


def link_target(header: str, rel: str) -> str | None:
    for part in header.split(","):
        match = re.match(r'\s*<([^>]+)>;\s*rel="([^"]+)"', part)
        if match and match.group(2) == rel:
            return match.group(1)
    return None


def next_page(header: str) -> int | None:
    url = link_target(header, "next")
    if not url:
        return None
    page = parse_qs(urlsplit(url).query).get("page")
    return int(page[0]) if page and page[0].isdigit() else None


def next_after(header: str) -> str | None:
    """The `after` cursor of the Link header's next page (cursor-paged endpoints)."""
    url = link_target(header, "next")
    found = parse_qs(urlsplit(url).query).get("after") if url else None
    return found[0] if found else None
