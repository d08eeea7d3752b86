"""One file's bytes at a commit, shaped as a read: from GraphQL's tree entry when it holds
the whole text, else from a raw REST read (with the Contents API for size and blob sha)."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring import client_log
from github_mcp.monitoring.observability import log_event
from github_mcp.services.shared.content import detect_and_decode, git_blob_sha
from github_mcp.services.shared.repo_facts import repo_path


@dataclass(frozen=True)
class FileRead:
    path: str
    ref: str
    commit_sha: str
    content: str
    encoding: str  # "utf-8" or "base64"
    truncated: bool
    total_bytes: int
    sha: str | None
    size: int


def not_found(full_name: str, path: str, commit: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.NOT_FOUND,
        f"{path} does not exist in {full_name} at {commit[:12]}.",
        hint="list_repository_tree shows the files at this ref.",
    )


_REPLACEMENT = "\ufffd".encode()


def from_entry(
    full_name: str,
    path: str,
    commit: str,
    entry: dict[str, Any] | None,
    max_bytes: int,
    allow_binary: bool,
) -> FileRead | None:
    """The read GraphQL's tree entry gives, or None when only the raw bytes will do: a
    binary blob (text is null), text GitHub cut at 512,000 bytes before max_bytes, text
    that may have lost bytes (a replacement character, or a length that disagrees with
    byteSize), or a submodule."""
    if entry is None:
        raise not_found(full_name, path, commit)
    if entry.get("type") == "tree":
        raise GitHubMCPError(
            ErrorCode.NOT_A_FILE,
            f"{path} is a directory.",
            hint="Use list_repository_tree with this path.",
        )
    blob = entry.get("object") or {}
    text = blob.get("text")
    if entry.get("type") != "blob" or text is None or "byteSize" not in blob:
        return None
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: GitHub could not decode the bytes
        return None
    total = int(blob["byteSize"])
    if blob.get("isTruncated"):
        # Only a prefix with a whole character to spare beyond max_bytes is certain.
        if len(encoded) < max_bytes + 4:
            return None
    elif len(encoded) != total:
        return None
    data = encoded[:max_bytes]
    if _REPLACEMENT in encoded[: max_bytes + 4]:
        return None
    return shaped(path, commit, data, len(encoded) > max_bytes, total, entry["oid"], allow_binary)


def shaped(
    path: str,
    commit: str,
    data: bytes,
    truncated: bool,
    total: int,
    sha: str | None,
    allow_binary: bool,
) -> FileRead:
    """A read from a file's first bytes: text, or base64 for an allowed binary file."""
    decoded = detect_and_decode(data, truncated=truncated)
    if decoded.is_binary:
        if not allow_binary:
            raise GitHubMCPError(
                ErrorCode.BINARY_FILE,
                f"{path} is a binary file.",
                hint="Pass allow_binary=true to get base64.",
                total_bytes=total,
                magic_hex=decoded.magic_hex,
            )
        content = base64.b64encode(data).decode()
        return FileRead(path, "", commit, content, "base64", truncated, total, sha, len(data))
    text = decoded.text or ""
    size = len(text.encode("utf-8"))
    return FileRead(path, "", commit, text, "utf-8", truncated, total, sha, size)


async def read_at_commit(
    github: GitHubClient,
    full_name: str,
    path: str,
    commit_sha: str,
    max_bytes: int,
    allow_binary: bool,
) -> FileRead:
    url = f"{repo_path(full_name)}/contents/{encode_path(path)}"
    try:
        data, truncated, content_type = await github.read_raw(
            url, params={"ref": commit_sha}, max_bytes=max_bytes
        )
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:
            raise not_found(full_name, path, commit_sha) from None
        raise
    if content_type.startswith("application/json") and _looks_like_listing(data, truncated):
        raise GitHubMCPError(
            ErrorCode.NOT_A_FILE,
            f"{path} is a directory.",
            hint="Use list_repository_tree with this path.",
        )
    total, sha = len(data), None
    if truncated:
        total, sha = await _metadata(github, url, commit_sha)
    else:
        sha = git_blob_sha(data)
    return shaped(path, commit_sha, data, truncated, total, sha, allow_binary)


def _looks_like_listing(data: bytes, truncated: bool) -> bool:
    if truncated:
        return False
    try:
        parsed = json.loads(data)
    except ValueError:
        return False
    return isinstance(parsed, list) and all(isinstance(i, dict) and "type" in i for i in parsed)


async def _metadata(github: GitHubClient, url: str, commit_sha: str) -> tuple[int, str | None]:
    """total_bytes and blob sha from the JSON Contents API; -1 when unknown."""
    try:
        meta = await github.request_json(
            "GET", url, params={"ref": commit_sha}, accept="application/vnd.github.object"
        )
        return int(meta.get("size", -1)), meta.get("sha")
    except (GitHubMCPError, ValueError, AttributeError):
        log_event("read_file_metadata_fallback_failed", url=url)
        await client_log.warning("the file's size and blob sha are unknown (metadata read failed)")
        return -1, None
