"""Conditional GET as GitHub answers it (ETag, If-None-Match, If-Modified-Since -> 304) and
the headers the forge adds to every API response."""

from __future__ import annotations

import hashlib
from email.utils import parsedate_to_datetime

from starlette.datastructures import Headers, MutableHeaders


def weak_etag(body: bytes) -> str:
    return f'W/"{hashlib.sha256(body).hexdigest()}"'


def etag_matches(if_none_match: str, etag: str) -> bool:
    wanted = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return "*" in wanted or etag.removeprefix("W/") in wanted


def not_modified_since(if_modified_since: str, last_modified: str) -> bool:
    try:
        return parsedate_to_datetime(last_modified) <= parsedate_to_datetime(if_modified_since)
    except (TypeError, ValueError):
        return False


def conditional(request: Headers, response: MutableHeaders, body: bytes) -> tuple[int, bytes]:
    etag = response.get("etag")
    if etag is None:
        etag = weak_etag(body)
        response["etag"] = etag
    if_none_match = request.get("if-none-match")
    if if_none_match is not None:
        return (304, b"") if etag_matches(if_none_match, etag) else (200, body)
    last_modified = response.get("last-modified")
    since = request.get("if-modified-since")
    if since and last_modified and not_modified_since(since, last_modified):
        return 304, b""
    return 200, body


def complete_headers(
    out_headers: MutableHeaders, extra: dict[str, str], status: int, raw: bytes
) -> None:
    """Add the forge's own headers where the route set none; a 304 carries no body headers."""
    for name, value in extra.items():
        out_headers.setdefault(name, value)
    if status == 304:
        for name in ("content-type", "content-length"):
            if name in out_headers:
                del out_headers[name]
    else:
        out_headers["content-length"] = str(len(raw))
