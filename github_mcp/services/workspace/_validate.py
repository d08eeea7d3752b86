"""Checks on what reaches the server's git: repository names, refs, work-tree paths, and
the clone URL credentials may travel to."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.params import check_full_name
from github_mcp.kernel.refnames import require_canonical


def validate_full_name(full_name: object) -> str:
    """`owner/repo` by the rule every tool argument follows (github_mcp.kernel.params)."""
    if not isinstance(full_name, str):
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "full_name must be a string",
            hint="Give full_name as 'owner/repo'.",
        )
    name = full_name.strip()
    try:
        return check_full_name(name)
    except ValueError as exc:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"{exc}: {name[:140]!r}",
            hint="letters, digits, '.', '_' and '-' only (no part of only dots), "
            "at most 140 characters",
        ) from None


def validate_ref(ref: object) -> str:
    """A ref in its canonical spelling, by the rules every tool shares (kernel.refnames)."""
    return require_canonical(ref, branch=False, arg="ref")


def validate_repo_path(path: object) -> str:
    """A path inside the work tree, as given to git (no '..', no '.', not absolute)."""
    if not isinstance(path, str) or not path or len(path) > 4096:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "a path must be 1–4096 characters",
            hint="Give a path of 1 to 4096 characters, relative to the clone's root.",
        )
    if "\0" in path or "\\" in path or path.startswith("/"):
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"invalid path {path[:200]!r}",
            hint="relative paths with '/' separators",
        )
    parts = path.rstrip("/").split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"invalid path {path[:200]!r}: no '.', '..' or empty segments",
            hint="Write the path without '.', '..' or '//', e.g. 'src/app.py'.",
        )
    if parts[0] == ".git":
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "paths inside .git are not allowed",
            hint="Name files of the working tree; the server manages .git itself.",
        )
    return "/".join(parts)


def check_clone_url(url: str) -> str:
    """Credentials go over TLS, or over plain HTTP to this machine only (the sandbox forge)."""
    parts = urlsplit(url)
    if parts.scheme == "https" or parts.scheme == "file":
        return url
    if parts.scheme == "http":
        host = parts.hostname or ""
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if loopback:
            return url
    raise GitHubMCPError(
        ErrorCode.INTERNAL,
        "refusing a clone URL that is neither https nor a loopback http URL",
        hint="configure an https API/clone URL",
    )
