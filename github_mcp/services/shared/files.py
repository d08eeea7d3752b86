"""Reading files at a ref: one GraphQL request for the commit and the blobs together
(raw REST reads only for what GraphQL cannot give whole), binary detection, metadata
fallback, and caching by commit SHA (content at a commit never changes); a branch or tag
maps to its commit for the cache TTL."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.github.graphql import FilesAt, files_at
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring import client_log
from github_mcp.services.shared.file_blobs import FileRead, from_entry, read_at_commit
from github_mcp.services.shared.repo_facts import (
    DEFAULT_BRANCH_TTL,
    SHA_RE,
    repo_path,
    resolve_commit_sha,
)

MAX_READ_BYTES = 1024 * 1024
DEFAULT_READ_BYTES = 64 * 1024


def blob_url(web_base_url: str, full_name: str, commit_sha: str, path: str) -> str:
    """The web page of a file at a commit, as a person would open it."""
    return f"{web_base_url.rstrip('/')}/{full_name}/blob/{commit_sha}/{encode_path(path)}"


async def read_file(
    github: GitHubClient,
    full_name: str,
    path: str,
    ref: str | None,
    *,
    max_bytes: int = DEFAULT_READ_BYTES,
    allow_binary: bool = False,
) -> FileRead:
    """One file at a branch, tag or SHA (None: the default branch). A first read is one
    GraphQL request (commit and blob together); a repeat within the ref's TTL is none."""
    _, [read] = await _read_batch(
        github, full_name, [path], ref, max_bytes, allow_binary, prime_ref=True
    )
    if isinstance(read, GitHubMCPError):
        raise read
    return read


async def read_many(
    github: GitHubClient,
    full_name: str,
    paths: list[str],
    ref: str | None,
    *,
    max_bytes: int,
) -> tuple[str, list[FileRead | GitHubMCPError]]:
    """Several files at one commit in one GraphQL request (plus, concurrently, a raw read
    for each file GraphQL cannot give whole); one failure does not fail the batch.
    Returns the ref read (the default branch's name when `ref` is None) and the reads."""
    return await _read_batch(github, full_name, paths, ref, max_bytes, False)


def _content_key(full_name: str, commit: str, path: str, max_bytes: int, binary: bool) -> str:
    return json.dumps([full_name.lower(), commit, path, max_bytes, binary])


def _ref_key(full_name: str, ref: str) -> str:
    return json.dumps([full_name.lower(), ref])


async def _read_batch(
    github: GitHubClient,
    full_name: str,
    paths: list[str],
    ref: str | None,
    max_bytes: int,
    allow_binary: bool,
    *,
    prime_ref: bool = False,
) -> tuple[str, list[FileRead | GitHubMCPError]]:
    if not 1 <= max_bytes <= MAX_READ_BYTES:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "max_bytes must be between 1 and 1048576.",
            hint=(
                "Give max_bytes between 1 and 1048576; for larger files use a clone in "
                "the workspace."
            ),
        )
    ref, commit = await _known_commit(github, full_name, ref)
    found: dict[int, FileRead | GitHubMCPError] = {}
    if commit:
        for i, path in enumerate(paths):
            key = _content_key(full_name, commit, path, max_bytes, allow_binary)
            hit, read = github.cache.lookup("content", key)
            if hit:
                found[i] = read
    missing = [i for i in range(len(paths)) if i not in found]
    if missing:
        ref, commit = await _load(
            github,
            full_name,
            paths,
            missing,
            ref,
            commit,
            max_bytes,
            allow_binary,
            found,
            prime_ref=prime_ref,
        )
    assert ref is not None
    reads = [found[i] for i in range(len(paths))]
    for read in reads:
        if isinstance(read, FileRead) and read.truncated:
            await client_log.warning(f"{read.path}: truncated to the first {max_bytes} bytes")
    return ref, [r if isinstance(r, GitHubMCPError) else replace(r, ref=ref) for r in reads]


async def _known_commit(
    github: GitHubClient, full_name: str, ref: str | None
) -> tuple[str | None, str | None]:
    """The ref (the cached default branch when none is given) and the commit it is known
    to point at, from the cache; None when that takes a call."""
    cache = github.cache
    if ref is None:
        hit, cached_default = cache.lookup("default_branch", full_name.lower())
        ref = cached_default if hit else None
    if ref is None or SHA_RE.match(ref):
        return ref, ref
    stale = cache.peek_stale("ref_commit", _ref_key(full_name, ref))
    commit: str | None = cache.lookup("ref_commit", _ref_key(full_name, ref))[1]
    if commit is None and stale is not None:
        # Read before and expired: revalidate the ref with its ETag (a 304 is free);
        # the content cached for its commit usually answers the rest.
        commit = await resolve_commit_sha(github, full_name, ref)
        _remember_ref(github, full_name, ref, commit)
    return ref, commit


async def _load(
    github: GitHubClient,
    full_name: str,
    paths: list[str],
    missing: list[int],
    ref: str | None,
    commit: str | None,
    max_bytes: int,
    allow_binary: bool,
    found: dict[int, FileRead | GitHubMCPError],
    *,
    prime_ref: bool,
) -> tuple[str, str]:
    """Read the `missing` paths (one GraphQL request, then raw reads for what GraphQL cannot
    give whole), filling `found`; returns the ref's name and the commit read. With
    `prime_ref`, a branch's REST ref is read alongside (same round trip), so that once the
    TTL runs out the ref is revalidated by ETag for free."""
    wanted = [paths[i] for i in missing]
    at = await _files_at(github, full_name, wanted, ref, commit, prime_ref=prime_ref)
    if at.other_object and ref is not None:
        # A tag of a tag: peel it through REST, then read at the commit.
        commit = await resolve_commit_sha(github, full_name, ref)
        at = await files_at(github, full_name, wanted, ref=None, oid=commit)
    if at.commit is None and not commit:
        raise _refnot_found(full_name, ref)
    commit = at.commit or commit
    assert commit is not None
    if ref is None:
        ref = at.branch or commit
        github.cache.set("default_branch", full_name.lower(), ref, ttl=DEFAULT_BRANCH_TTL)
    if not SHA_RE.match(ref):
        _remember_ref(github, full_name, ref, commit)
    raw: list[int] = []
    for i, entry in zip(missing, at.entries, strict=True):
        try:
            read = from_entry(full_name, paths[i], commit, entry, max_bytes, allow_binary)
        except GitHubMCPError as exc:
            found[i] = exc
            continue
        if read is None:
            raw.append(i)
        else:
            found[i] = read
    at_commit = commit

    async def raw_read(i: int) -> FileRead | GitHubMCPError:
        try:
            return await read_at_commit(
                github, full_name, paths[i], at_commit, max_bytes, allow_binary
            )
        except GitHubMCPError as exc:
            return exc

    fetched = await asyncio.gather(*(raw_read(i) for i in raw))
    found.update(zip(raw, fetched, strict=True))
    _cache_reads(github, full_name, commit, paths, missing, found, max_bytes, allow_binary)
    return ref, commit


async def _files_at(
    github: GitHubClient,
    full_name: str,
    wanted: list[str],
    ref: str | None,
    commit: str | None,
    *,
    prime_ref: bool,
) -> FilesAt:
    lookup = files_at(github, full_name, wanted, ref=ref, oid=commit)
    if prime_ref and ref is not None and commit is None:
        at, _ = await asyncio.gather(lookup, _prime(github, full_name, ref))
        return at
    return await lookup


def _refnot_found(full_name: str, ref: str | None) -> GitHubMCPError:
    if ref is None:
        return GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"{full_name} has no default branch (the repository is empty).",
            hint="Push a first commit to the repository, or name a ref explicitly.",
        )
    return GitHubMCPError(
        ErrorCode.NOT_FOUND,
        f"Ref {ref!r} was not found in {full_name}.",
        hint="list_branches shows the branches; tags and full SHAs work too.",
    )


def _cache_reads(
    github: GitHubClient,
    full_name: str,
    commit: str,
    paths: list[str],
    missing: list[int],
    found: dict[int, FileRead | GitHubMCPError],
    max_bytes: int,
    allow_binary: bool,
) -> None:
    """Keep each whole read by commit: content at a commit never changes."""
    for i in missing:
        outcome = found[i]
        if isinstance(outcome, FileRead):
            key = _content_key(full_name, commit, paths[i], max_bytes, allow_binary)
            github.cache.set("content", key, outcome, ttl=None, repo=full_name)


def _remember_ref(github: GitHubClient, full_name: str, ref: str, commit: str) -> None:
    ttl = github.settings.cache_ttl_seconds
    github.cache.set("ref_commit", _ref_key(full_name, ref), commit, ttl=ttl, repo=full_name)


async def _prime(github: GitHubClient, full_name: str, ref: str) -> None:
    """GET the branch's ref through the ETag cache; a tag or a failure is left alone."""
    try:
        await github.get_json(
            f"{repo_path(full_name)}/git/ref/heads/{encode_path(ref)}", repo=full_name
        )
    except GitHubMCPError:
        pass
