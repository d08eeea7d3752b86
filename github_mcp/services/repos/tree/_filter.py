"""The four-layer tree filter: platform, gitignore, user, size.

Pure and synchronous: `filter_entries` takes the tree entries and the text of
the relevant `.gitignore` files and returns what is kept and what is excluded.

How it stays fast on 100 000 entries: blobs are grouped by directory, each
directory is evaluated once (`tree_engine`), and most blobs then cost a dict
lookup or two. The generational GC is paused during the loop.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter

from github_mcp.kernel.errors import invalid_input
from github_mcp.services.repos.tree._engine import (
    SIZE_VERDICT,
    DirState,
    Engine,
    compile_gitignores,
    user_rules,
)
from github_mcp.services.repos.tree._model import (
    MAX_IGNORE_PATTERN_CHARS,
    MAX_IGNORE_PATTERNS,
    PLATFORM_PATTERNS,
    SIZE_LIMIT_BYTES,
    ExcludedDir,
    ExcludedItem,
    Reason,
    TreeEntry,
    TreeFilterResult,
)

__all__ = [
    "MAX_IGNORE_PATTERNS",
    "MAX_IGNORE_PATTERN_CHARS",
    "PLATFORM_PATTERNS",
    "SIZE_LIMIT_BYTES",
    "ExcludedDir",
    "ExcludedItem",
    "Reason",
    "TreeEntry",
    "TreeFilterResult",
    "filter_entries",
    "gitignore_paths_needed",
    "validate_ignore_patterns",
]


def validate_ignore_patterns(patterns: Sequence[str] | None) -> tuple[str, ...]:
    if patterns is None:
        return ()
    if isinstance(patterns, str):
        raise invalid_input(
            "ignore_patterns must be a list of strings",
            hint='Give ignore_patterns as a list, e.g. ["*.lock", "dist/"].',
        )
    if len(patterns) > MAX_IGNORE_PATTERNS:
        raise invalid_input(
            f"ignore_patterns has {len(patterns)} entries; at most {MAX_IGNORE_PATTERNS}",
            hint="Combine patterns with globs, or narrow the listing with path.",
        )
    out: list[str] = []
    for i, p in enumerate(patterns):
        if not isinstance(p, str):
            raise invalid_input(
                f"ignore_patterns[{i}] is not a string",
                hint="Give every entry of ignore_patterns as a string glob.",
            )
        if len(p) > MAX_IGNORE_PATTERN_CHARS:
            raise invalid_input(
                f"ignore_patterns[{i}] is {len(p)} chars; at most {MAX_IGNORE_PATTERN_CHARS}",
                hint="Shorten the pattern; a glob like '**/name' matches at any depth.",
            )
        if "\n" in p or "\r" in p or "\x00" in p:
            raise invalid_input(
                f"ignore_patterns[{i}] contains a line break or NUL",
                hint="Give one pattern per list entry, on one line.",
            )
        out.append(p)
    return tuple(out)


# --------------------------------------------------------------------------- API

_by_path = attrgetter("path")


def filter_entries(
    entries: Iterable[TreeEntry],
    *,
    subtree: str = "",
    gitignores: Mapping[str, str] | None = None,
    ignore_patterns: Sequence[str] = (),
    force: bool = False,
    list_dirs: bool = False,
) -> TreeFilterResult:
    """Run the four layers over `entries` (repo-rooted paths) below `subtree`.

    `gitignores` maps a directory ('' for the root) to its .gitignore text; it
    should hold every .gitignore from the root down to the subtree and inside
    it (see `gitignore_paths_needed`). Blobs are filtered; with `list_dirs`,
    tree entries are listed and filtered as directories (size does not apply).
    Submodules (type "commit") are reported apart, unfiltered. Kept entries are
    the input `TreeEntry` objects themselves.
    """
    subtree = subtree.strip("/")
    user = user_rules(validate_ignore_patterns(ignore_patterns))
    engine = Engine(compile_gitignores(gitignores or {}), user)
    # The loop allocates ~one object per excluded blob and nothing that forms
    # cycles; generational GC passes over the large live input only cost time.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(engine, entries, subtree, None if force else SIZE_LIMIT_BYTES, list_dirs)
    finally:
        if gc_was_enabled:
            gc.enable()


def _run(
    engine: Engine,
    entries: Iterable[TreeEntry],
    subtree: str,
    limit: int | None,
    list_dirs: bool,
) -> TreeFilterResult:
    states = engine.states
    state_of = engine.state
    kept: list[TreeEntry] = []
    excluded: list[ExcludedItem] = []
    submodules: list[TreeEntry] = []
    keep = kept.append
    exclude = excluded.append
    new = tuple.__new__
    item = ExcludedItem
    counts = {"platform": 0, "gitignore": 0, "user": 0, "size": 0}
    prefix = subtree + "/" if subtree else ""
    plen = len(prefix)
    max_size = 1 << 62 if limit is None else limit
    last_dir: str | None = None
    st = DirState()

    for e in entries:
        path, etype, _sha, size, _mode = e
        if plen and path[:plen] != prefix:
            continue
        if etype != "blob":
            if etype == "tree" and list_dirs:
                _list_dir(engine, e, kept, excluded, counts)
            elif etype == "commit":
                submodules.append(e)
            continue
        cut = path.rfind("/")
        d = path[:cut] if cut >= 0 else ""
        if d != last_dir:
            last_dir = d
            st = states.get(d) or state_of(d)
        exd = st.excluded
        v: tuple[Reason, str | None, str | None] | None
        if exd is not None:
            exd.files += 1
            v = exd.verdict
        else:
            v = st.decider.file_verdict(path[cut + 1 :])
            if v is None:
                if size is not None and size > max_size:
                    v = SIZE_VERDICT
                else:
                    keep(e)
                    continue
        counts[v[0]] += 1
        exclude(new(item, (path, v[0], size, v[1], v[2], "blob")))
    return _sorted_result(engine, kept, excluded, submodules, counts, list_dirs)


def _sorted_result(
    engine: Engine,
    kept: list[TreeEntry],
    excluded: list[ExcludedItem],
    submodules: list[TreeEntry],
    counts: dict[str, int],
    list_dirs: bool,
) -> TreeFilterResult:
    # Python orders str by code point, which is also UTF-8 byte order and so
    # git's order of blob paths: the input is usually sorted already, and then
    # Timsort makes one linear pass.
    kept.sort(key=_by_path)
    excluded.sort(key=_by_path)
    submodules.sort(key=_by_path)
    dirs = sorted((r for r in engine.excluded_dirs if r.files or list_dirs), key=_by_path)
    total = len(kept) + len(excluded)
    return TreeFilterResult(
        kept, excluded, dirs, submodules, {"total": total, "kept": len(kept), **counts}
    )


def _list_dir(
    engine: Engine,
    e: TreeEntry,
    kept: list[TreeEntry],
    excluded: list[ExcludedItem],
    counts: dict[str, int],
) -> None:
    exd = engine.state(e.path).excluded
    if exd is None:
        kept.append(e)
        return
    counts[exd.reason] += 1
    excluded.append(ExcludedItem(e.path, exd.reason, None, exd.pattern, exd.source, "tree"))


def gitignore_paths_needed(entries: Iterable[TreeEntry], subtree: str = "") -> list[str]:
    """Paths of the `.gitignore` blobs that can affect `subtree`.

    Those in an ancestor directory of the subtree (root included) and those
    inside it, but none under a platform-excluded directory such as
    node_modules/ (everything there is excluded whatever they say), and no
    symlink (git does not follow a symlinked .gitignore).
    """
    subtree = subtree.strip("/")
    engine = Engine({}, None)
    out: list[str] = []
    for e in entries:
        path = e.path
        if e.type != "blob" or e.mode == "120000":
            continue
        if not (path == ".gitignore" or path.endswith("/.gitignore")):
            continue
        d = path[: -len("/.gitignore")] if "/" in path else ""
        is_ancestor = not d or subtree == d or subtree.startswith(d + "/")
        if not is_ancestor and subtree and not d.startswith(subtree + "/"):
            continue
        if d and engine.state(d).excluded is not None:
            continue
        out.append(path)
    out.sort()
    return out
