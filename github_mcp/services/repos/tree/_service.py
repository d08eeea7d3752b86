"""Repository tree listing.

`build_tree` does the I/O through an injected `TreeSource`, so it knows nothing
of the GitHub client: it resolves the requested directory, fetches the tree
recursively, completes a listing GitHub reported as truncated by walking
subtrees, fetches the `.gitignore` blobs that apply, runs the pure four-layer
filter (`tree_filter.filter_entries`), and pages the sorted result.

Choices, for the record:
- A path that does not exist is `not_found`. A path that names a file or a
  submodule is `invalid_input`, with a hint to read it as a file instead.
- User `ignore_patterns` are gitignore patterns relative to the repository
  root, like every path in the output.
- The cursor is opaque: it encodes the last path of the page. `excluded`
  entries are paged by the same path range, so the pages concatenate to
  exactly the full lists.
- A non-recursive listing GitHub reports as truncated (one directory with more
  than its entry limit) cannot be completed, and raises `unprocessable`
  rather than returning a partial list.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import bisect
from collections.abc import Awaitable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, invalid_input, not_found
from github_mcp.services.repos.tree._filter import (
    MAX_IGNORE_PATTERN_CHARS,
    MAX_IGNORE_PATTERNS,
    PLATFORM_PATTERNS,
    SIZE_LIMIT_BYTES,
    ExcludedDir,
    ExcludedItem,
    TreeEntry,
    TreeFilterResult,
    filter_entries,
    gitignore_paths_needed,
    validate_ignore_patterns,
)
from github_mcp.services.repos.tree._result import TreeListing

__all__ = [
    "MAX_IGNORE_PATTERNS",
    "MAX_IGNORE_PATTERN_CHARS",
    "MAX_PATH_CHARS",
    "PLATFORM_PATTERNS",
    "SIZE_LIMIT_BYTES",
    "ExcludedDir",
    "ExcludedItem",
    "TreeEntry",
    "TreeFilterResult",
    "TreeListing",
    "TreeSource",
    "build_tree",
    "decode_cursor",
    "encode_cursor",
    "filter_entries",
    "gitignore_paths_needed",
    "normalize_tree_path",
    "validate_ignore_patterns",
]

MAX_PATH_CHARS = 4096
DEFAULT_CONCURRENCY = 8
# Above this many entries the CPU-bound filter runs in a worker thread, so the
# event loop keeps serving other calls and health checks.
_THREAD_THRESHOLD = 20_000
_CURSOR_PREFIX = "t1:"


class TreeSource(Protocol):
    """Git tree access. Paths in `get_tree` results are relative to `tree_sha`."""

    async def get_tree(self, tree_sha: str, recursive: bool) -> tuple[list[TreeEntry], bool]:
        """Return (entries, truncated) for the tree, recursively or one level."""
        ...

    async def get_blob_text(self, blob_sha: str) -> str:
        """Return a blob decoded as text (the caller caches by blob SHA)."""
        ...


def normalize_tree_path(path: str | None) -> str:
    """Validate a directory path ('' = root); a trailing slash is dropped."""
    if path is None:
        return ""
    if not isinstance(path, str):
        raise invalid_input(
            "path must be a string",
            hint="Give path as a string relative to the repository root, e.g. 'src/app'.",
        )
    if len(path) > MAX_PATH_CHARS:
        raise invalid_input(
            f"path is {len(path)} chars; at most {MAX_PATH_CHARS}",
            hint="Give a shorter path; list its parent directory instead.",
        )
    if "\\" in path or "\x00" in path:
        raise invalid_input("path must not contain a backslash or NUL", hint="use '/' separators")
    if path.startswith("/"):
        raise invalid_input(
            "path must be relative to the repository root (no leading '/')",
            hint="Drop the leading '/', e.g. 'src/app'; '' is the root.",
        )
    path = path.rstrip("/")
    if not path:
        return ""
    for seg in path.split("/"):
        if seg in ("", ".", ".."):
            raise invalid_input(
                "path must not contain empty, '.' or '..' segments",
                hint="Write the path without '.', '..' or '//', e.g. 'src/app'.",
            )
    return path


def encode_cursor(last_path: str) -> str:
    raw = (_CURSOR_PREFIX + last_path).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> str:
    bad = invalid_input(
        "cursor is not valid", hint="pass next_cursor from the previous page unchanged"
    )
    if not isinstance(cursor, str) or not cursor or len(cursor) > 2 * MAX_PATH_CHARS:
        raise bad
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        raise bad from None
    if not text.startswith(_CURSOR_PREFIX) or len(text) == len(_CURSOR_PREFIX):
        raise bad
    return text[len(_CURSOR_PREFIX) :]


async def build_tree(
    source: TreeSource,
    root_tree_sha: str,
    *,
    path: str = "",
    recursive: bool = True,
    ignore_patterns: Sequence[str] = (),
    force: bool = False,
    limit: int | None = None,
    cursor: str | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> TreeListing:
    """List and filter the tree under `path` of the tree `root_tree_sha`.

    Walks down to `path` one level at a time (which also yields the SHAs of
    the ancestors' .gitignore files), lists it recursively (or its direct
    children with `recursive=False`, directories included), fetches each
    applicable .gitignore once per blob SHA, filters, and returns the page
    after `cursor`. Results depend only on the tree SHA and the arguments, so
    the caller may cache them without expiry.
    """
    subtree = normalize_tree_path(path)
    patterns = validate_ignore_patterns(ignore_patterns)
    after = decode_cursor(cursor) if cursor is not None else None
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise invalid_input(
            "limit must be a positive integer",
            hint="Give limit as a whole number of 1 or more, or leave it out.",
        )
    fetch = _Fetcher(source, max(1, concurrency))

    tree_sha, ancestor_gitignores = await _resolve_dir(fetch, root_tree_sha, subtree)
    completion: dict[str, Any] | None = None
    if recursive:
        listing, truncated = await fetch.tree(tree_sha, True)
        if truncated:
            before = fetch.requests
            entries = await _complete(fetch, tree_sha, subtree)
            completion = {"method": "subtree_walk", "extra_requests": fetch.requests - before}
        else:
            entries = _prefixed(listing, subtree)
    else:
        entries = _prefixed(await fetch.level(tree_sha, subtree), subtree)

    gitignores, gi_paths = await _load_gitignores(fetch, entries, ancestor_gitignores, subtree)
    args = (entries,)
    kw: dict[str, Any] = {
        "subtree": subtree,
        "gitignores": gitignores,
        "ignore_patterns": patterns,
        "force": force,
        "list_dirs": not recursive,
    }
    if len(entries) > _THREAD_THRESHOLD:
        result = await asyncio.to_thread(filter_entries, *args, **kw)
    else:
        result = filter_entries(*args, **kw)
    return _page(result, subtree, recursive, after, limit, completion, gi_paths, fetch.requests)


class _Fetcher:
    """Bounded, counted access to the source."""

    def __init__(self, source: TreeSource, concurrency: int) -> None:
        self.source = source
        self.sem = asyncio.Semaphore(concurrency)
        self.requests = 0

    async def tree(self, sha: str, recursive: bool) -> tuple[list[TreeEntry], bool]:
        async with self.sem:
            self.requests += 1
            return await self.source.get_tree(sha, recursive)

    async def level(self, sha: str, where: str) -> list[TreeEntry]:
        entries, truncated = await self.tree(sha, False)
        if truncated:
            raise GitHubMCPError(
                ErrorCode.UNPROCESSABLE,
                f"directory '{where or '/'}' has too many entries to list completely",
                hint="list a subdirectory instead",
            )
        return entries

    async def blob_text(self, sha: str) -> str:
        async with self.sem:
            return await self.source.get_blob_text(sha)


async def _resolve_dir(fetch: _Fetcher, root_sha: str, subtree: str) -> tuple[str, list[TreeEntry]]:
    """Walk down to `subtree`; return its tree SHA and the ancestors' .gitignore blobs."""
    sha = root_sha
    walked = ""
    gitignores: list[TreeEntry] = []
    if not subtree:
        return sha, gitignores
    for seg in subtree.split("/"):
        children = await fetch.level(sha, walked)
        found: TreeEntry | None = None
        for c in children:
            if c.path == ".gitignore" and c.type == "blob":
                gitignores.append(_with_path(c, _join(walked, ".gitignore")))
            elif c.path == seg:
                found = c
        here = _join(walked, seg)
        if found is None:
            raise not_found(f"no directory '{here}' in this tree")
        if found.type == "blob":
            raise invalid_input(
                f"'{here}' is a file, not a directory", hint="read it with get_file_contents"
            )
        if found.type == "commit":
            raise invalid_input(
                f"'{here}' is a submodule", hint="list the submodule's own repository"
            )
        sha, walked = found.sha, here
    return sha, gitignores


async def _complete(fetch: _Fetcher, sha: str, base: str) -> list[TreeEntry]:
    """Rebuild a truncated recursive listing: list a level, then fetch each
    subdirectory recursively, splitting again wherever that is truncated."""
    out: list[TreeEntry] = []

    async def visit(tree_sha: str, where: str) -> None:
        children = await fetch.level(tree_sha, where)
        subtrees = []
        for c in children:
            entry = _with_path(c, _join(where, c.path))
            out.append(entry)
            if c.type == "tree":
                subtrees.append(whole(c.sha, entry.path))
        await _gather_all(subtrees)

    async def whole(tree_sha: str, where: str) -> None:
        entries, truncated = await fetch.tree(tree_sha, True)
        if truncated:
            await visit(tree_sha, where)
        else:
            out.extend(_prefixed(entries, where))

    await visit(sha, base)
    return out


async def _load_gitignores(
    fetch: _Fetcher, entries: list[TreeEntry], ancestors: list[TreeEntry], subtree: str
) -> tuple[dict[str, str], list[str]]:
    candidates = [*ancestors, *(e for e in entries if e.path.endswith(".gitignore"))]
    needed = gitignore_paths_needed(candidates, subtree)
    sha_of = {e.path: e.sha for e in candidates}
    shas = sorted({sha_of[p] for p in needed})
    texts: dict[str, str] = {}

    async def one(sha: str) -> None:
        texts[sha] = await fetch.blob_text(sha)

    await _gather_all([one(s) for s in shas])
    gitignores = {p[: -len("/.gitignore")] if "/" in p else "": texts[sha_of[p]] for p in needed}
    return gitignores, needed


def _page(
    result: TreeFilterResult,
    subtree: str,
    recursive: bool,
    after: str | None,
    limit: int | None,
    completion: dict[str, Any] | None,
    gi_paths: list[str],
    requests: int,
) -> TreeListing:
    files = result.file_tree
    start = bisect.bisect_right(files, after, key=_path_key) if after is not None else 0
    end = len(files) if limit is None else min(len(files), start + limit)
    page = files[start:end]
    more = end < len(files)
    hi = page[-1].path if more and page else None
    next_cursor = encode_cursor(hi) if hi is not None else None
    return TreeListing(
        path=subtree,
        recursive=recursive,
        file_tree=page,
        excluded=_in_range(result.excluded, after, hi),
        excluded_dirs=_in_range(result.excluded_dirs, after, hi),
        submodules=_in_range(result.submodules, after, hi),
        counts=result.counts,
        total=len(files),
        next_cursor=next_cursor,
        completion=completion,
        gitignores=gi_paths,
        requests=requests,
    )


class _HasPath(Protocol):
    @property
    def path(self) -> str: ...


_Item = TypeVar("_Item", bound=_HasPath)


def _in_range(items: list[_Item], lo: str | None, hi: str | None) -> list[_Item]:
    """Items with lo < path <= hi (open bounds when None); items sorted by path."""
    a = 0 if lo is None else bisect.bisect_right(items, lo, key=_path_key)
    b = len(items) if hi is None else bisect.bisect_right(items, hi, key=_path_key)
    return items[a:b]


def _path_key(item: _HasPath) -> str:
    return item.path


def _join(base: str, name: str) -> str:
    return f"{base}/{name}" if base else name


def _with_path(e: TreeEntry, path: str) -> TreeEntry:
    return TreeEntry(path, e.type, e.sha, e.size, e.mode)


def _prefixed(entries: Iterable[TreeEntry], base: str) -> list[TreeEntry]:
    if not base:
        return list(entries)
    pre = base + "/"
    return [TreeEntry(pre + e.path, e.type, e.sha, e.size, e.mode) for e in entries]


async def _gather_all(aws: Iterable[Awaitable[None]]) -> None:
    """Run all; on the first failure cancel the rest and re-raise that failure."""
    tasks = [asyncio.ensure_future(a) for a in aws]
    if not tasks:
        return
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
