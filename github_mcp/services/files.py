"""Reading files at a ref: streamed raw reads, binary detection, metadata fallback,
and caching by commit SHA (content at a commit never changes)."""

from __future__ import annotations

import asyncio
import base64
import json
from dataclasses import dataclass
from typing import Any

from .. import client_log
from ..errors import ErrorCode, GitHubMCPError
from ..github.client import GitHubClient, encode_path
from ..observability import log_event
from .content import detect_and_decode, git_blob_sha
from .repos import repo_path, resolve_commit_sha

MAX_READ_BYTES = 1024 * 1024
DEFAULT_READ_BYTES = 64 * 1024


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


def blob_url(web_base_url: str, full_name: str, commit_sha: str, path: str) -> str:
    """The web page of a file at a commit, as a person would open it."""
    return f"{web_base_url.rstrip('/')}/{full_name}/blob/{commit_sha}/{encode_path(path)}"


async def read_file(
    github: GitHubClient,
    full_name: str,
    path: str,
    ref: str,
    *,
    max_bytes: int = DEFAULT_READ_BYTES,
    allow_binary: bool = False,
) -> FileRead:
    if not 1 <= max_bytes <= MAX_READ_BYTES:
        raise GitHubMCPError(ErrorCode.INVALID_INPUT, "max_bytes must be between 1 and 1048576.")
    commit_sha = await resolve_commit_sha(github, full_name, ref)
    key = json.dumps([full_name.lower(), commit_sha, path, max_bytes, allow_binary])
    read = await github.cache.get_or_load(
        "content",
        key,
        lambda: _read_at_commit(github, full_name, path, commit_sha, max_bytes, allow_binary),
        ttl=None,
        repo=full_name,
    )
    if read.truncated:
        await client_log.warning(f"{path}: truncated to the first {max_bytes} bytes")
    return FileRead(**{**read.__dict__, "ref": ref})


async def _read_at_commit(
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
            raise GitHubMCPError(
                ErrorCode.NOT_FOUND,
                f"{path} does not exist in {full_name} at {commit_sha[:12]}.",
                hint="list_repository_tree shows the files at this ref.",
            ) from None
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
        return FileRead(
            path,
            "",
            commit_sha,
            base64.b64encode(data).decode(),
            "base64",
            truncated,
            total,
            sha,
            len(data),
        )
    text = decoded.text or ""
    return FileRead(
        path, "", commit_sha, text, "utf-8", truncated, total, sha, len(text.encode("utf-8"))
    )


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


async def read_many(
    github: GitHubClient,
    full_name: str,
    paths: list[str],
    ref: str,
    *,
    max_bytes: int,
) -> list[FileRead | GitHubMCPError]:
    """Read several files in parallel (the client's concurrency cap applies);
    one failure does not fail the batch."""

    async def one(p: str) -> FileRead | GitHubMCPError:
        try:
            return await read_file(github, full_name, p, ref, max_bytes=max_bytes)
        except GitHubMCPError as exc:
            return exc

    await resolve_commit_sha(github, full_name, ref)  # resolve once, shared by the cache
    return list(await asyncio.gather(*(one(p) for p in paths)))


def file_payload(read: FileRead) -> dict[str, Any]:
    return {
        "path": read.path,
        "content": read.content,
        "encoding": read.encoding,
        "truncated": read.truncated,
        "total_bytes": read.total_bytes,
        "sha": read.sha,
        "size": read.size,
    }
