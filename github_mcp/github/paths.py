"""The request path guard: a path the HTTP stack or a proxy would normalise into a different
one is refused before any I/O, so what is sent is exactly what the write gate checked."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from github_mcp.github.urls import route_template
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event


def refuse_unstable_path(path: str) -> None:
    """Refuse a request path that URL normalisation would change (RFC 3986 dot segments,
    also percent-encoded; an encoded '/' or a backslash inside a segment; an empty inner
    segment; a fragment). The HTTP stack or a proxy would otherwise send a different
    path from the one the write gate saw, e.g. `refs/heads/./main` as `refs/heads/main`.
    Raised before any network I/O."""
    raw = urlsplit(path).path if path.startswith(("http://", "https://")) else path
    problem = None
    if "#" in path or "\\" in path:
        problem = "a '#' or a backslash"
    else:
        raw = raw.split("?", 1)[0]
        segments = raw.split("/")[1:] if raw.startswith("/") else raw.split("/")
        for index, segment in enumerate(segments):
            decoded = unquote(segment)
            if decoded in (".", "..") or "/" in decoded or "\\" in decoded:
                problem = f"the segment {segment[:40]!r}"
                break
            if not segment and index != len(segments) - 1:
                problem = "an empty segment"
                break
    if problem:
        log_event("github_path_refused", route=route_template(raw)[:200])
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"Refusing to send a request whose path would change under URL normalisation "
            f"({problem}).",
            hint="Branch, ref and path arguments may not contain '.' or '..' segments.",
        )
