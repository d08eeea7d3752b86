"""Redirect handling of the GitHub client: a renamed or transferred repository answers 3xx;
reads follow it on the API host only (the token never leaves it), writes are refused with
the new address rather than replayed."""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

import httpx2 as httpx

from github_mcp.github.paths import refuse_unstable_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring import client_log
from github_mcp.monitoring.observability import log_event, redact

# GitHub answers a renamed or transferred repository's URL with one of these; its own
# clients follow them for reads. A write is never replayed elsewhere.
REDIRECT_STATUSES = {301, 302, 307, 308}
SAFE_METHODS = {"GET", "HEAD"}
MAX_REDIRECTS = 3


async def redirect_target(
    response: httpx.Response, method: str, route: str, stream: bool, base_url: str
) -> str:
    """Where to go next after a 3xx, or a clear error. Followed only for GET and HEAD,
    only to the API host itself (so the token never reaches another host)."""
    status = response.status_code
    location = response.headers.get("location", "")
    if stream:
        await response.aread()
    await response.aclose()
    target = str(httpx.URL(str(response.request.url)).join(location)) if location else ""
    where = urlsplit(target)
    shown = redact(where.path or location)[:200]
    if status not in REDIRECT_STATUSES or not target:
        raise _unusable(status, method, route)
    if not _on_api_host(where, base_url):
        log_event("github_redirect_refused", route=route, status=status, host=where.netloc)
        raise _other_host(status, method, route, where.netloc)
    if method not in SAFE_METHODS:
        raise _moved_write(status, method, route, shown)
    refuse_unstable_path(target)
    log_event("github_redirect_followed", route=route, status=status, to=shown)
    await client_log.notice(f"GitHub redirected {method} {route} ({status}) to {shown}")
    return target


def _on_api_host(where: SplitResult, base_url: str) -> bool:
    base = urlsplit(base_url)
    return (where.scheme, where.netloc) == (base.scheme, base.netloc) and (
        where.path + "/"
    ).startswith(base.path.rstrip("/") + "/")


def _unusable(status: int, method: str, route: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.UPSTREAM_ERROR,
        f"GitHub answered an unexpected {status} to {method} {route}.",
        status=status,
        hint=(
            "GitHub gave no usable redirect; retry later, and report the call_id to "
            "the server operator if it persists."
        ),
    )


def _other_host(status: int, method: str, route: str, host: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.UPSTREAM_ERROR,
        f"GitHub redirected {method} {route} to another host ({host}); "
        "not followed, so the credentials stay with the API host.",
        status=status,
        hint=(
            "This is refused on purpose; if the API host moved, the operator must "
            "change the server's GitHub base URL."
        ),
    )


def _moved_write(status: int, method: str, route: str, shown: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.NOT_FOUND,
        f"GitHub answered {status} to {method} {route}: the resource moved to {shown}. "
        "A write is not replayed at a new address.",
        hint="The repository was probably renamed or transferred: get_repository "
        "on the old name reports the new one; repeat the write with it.",
        status=status,
        moved_to=shown,
    )
