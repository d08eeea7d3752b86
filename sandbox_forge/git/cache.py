"""Fast reads for `GitRepo`: objects through the repository's long-lived cat-file process
(`git/cat.py`), caches of what never changes, and refs read straight from their files.

Objects never change, so answers keyed by a full object id are kept (positive ones only for
lookups: a missing object may be pushed a moment later; a path missing from a commit stays
missing). Refs move, so they are read afresh every time from the files git replaces
atomically (loose refs and packed-refs are both written to a lock file and renamed), in
git's own order: the loose file, then packed-refs. Whatever the fast path is unsure of
(symbolic refs, odd names, short shas, odd paths) comes back as UNKNOWN and the caller asks
git itself, so answers never differ from the plain CLI's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from sandbox_forge.git.cat import LRU, ObjectReader, ReaderError, close_readers
from sandbox_forge.git.memo import HistoryMemo
from sandbox_forge.git.objects import CommitInfo, TreeEntry, parse_commit

__all__ = ["UNKNOWN", "FastGit", "ReaderError", "RefFiles", "close_readers", "plain_ref_name"]

UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()
_MISS: Any = object()
_SHA = re.compile(r"[0-9a-f]{40}")
_REF_CHARS = re.compile(r"[A-Za-z0-9._/-]+")
# git's order for a short name (after GIT_DIR/name itself): the first that exists wins.
_DWIM_RULES = (
    "refs/{}",
    "refs/tags/{}",
    "refs/heads/{}",
    "refs/remotes/{}",
    "refs/remotes/{}/HEAD",
)
BLOB_CACHE_BYTES = 32 << 20
BLOB_CACHE_ITEM = 1 << 20


def plain_ref_name(name: str) -> bool:
    """A name the fast ref lookup handles: no revision syntax, nothing git would refuse."""
    if ".." in name or not _REF_CHARS.fullmatch(name):
        return False
    return all(
        part and part[0] not in ".-" and not part.endswith((".", ".lock"))
        for part in name.split("/")
    )


# --- refs ---------------------------------------------------------------------------------


class RefFiles:
    """Refs of a files-backend repository, read the way git reads them."""

    def __init__(self, git_dir: Path):
        self.git_dir = git_dir
        self._root = f"{git_dir}/"  # joined by hand: Path arithmetic costs more than the read
        self._packed: tuple[bytes, dict[str, str]] = (b"", {})

    def packed(self) -> dict[str, str]:
        try:
            with open(self._root + "packed-refs", "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return {}
        cached = self._packed
        if cached[0] == data:  # compared, not dated: a rewrite within a clock tick counts
            return cached[1]
        refs = {}
        for line in data.split(b"\n"):
            if line and line[:1] not in (b"#", b"^"):
                sha, _, name = line.partition(b" ")
                refs[name.decode("utf-8", "surrogateescape")] = sha.decode()
        self._packed = (data, refs)
        return refs

    def read(self, name: str) -> Any:
        """The object id a refs/... name holds directly; None if absent; UNKNOWN if symbolic
        or unreadable."""
        if not name.startswith("refs/") or not plain_ref_name(name):
            return UNKNOWN
        try:
            with open(self._root + name, "rb") as handle:
                data = handle.read(128)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            data = None
        except OSError:
            return UNKNOWN
        if data is not None:
            sha = data.rstrip(b"\n").decode("ascii", "replace")
            return sha if _SHA.fullmatch(sha) else UNKNOWN
        return self.packed().get(name)

    def listing(self, prefix: str) -> Any:
        """{refname: object id} under prefix ("refs/.../"), as for-each-ref lists them; UNKNOWN
        when git might list something else (symbolic refs, odd names, links, lock files)."""
        if not prefix.endswith("/") or not plain_ref_name(prefix[:-1] or "-"):
            return UNKNOWN
        names: list[str] = []
        if not prefix.startswith("refs/") or not self._loose(prefix, names):
            return UNKNOWN
        found: dict[str, str] = {}
        for name in names:  # loose refs before packed-refs, as git reads them
            sha = self._loose_sha(name)
            if sha is UNKNOWN:
                return UNKNOWN
            if sha is not None:
                found[name] = sha
        for name, sha in self.packed().items():
            if name.startswith(prefix) and name not in found:
                if not plain_ref_name(name):
                    return UNKNOWN
                found[name] = sha
        return found

    def _loose(self, rel: str, names: list[str]) -> bool:
        """Collect the loose ref files below rel; False when one is not plainly a ref."""
        try:
            entries = list(os.scandir(self._root + rel))
        except FileNotFoundError:
            return True
        except OSError:
            return False
        for entry in entries:
            name = rel + entry.name
            if entry.is_symlink() or not plain_ref_name(name):
                return False
            if entry.is_dir():
                if not self._loose(name + "/", names):
                    return False
            else:
                names.append(name)
        return True

    def _loose_sha(self, name: str) -> Any:
        try:
            with open(self._root + name, "rb") as handle:
                data = handle.read(128)
        except FileNotFoundError:
            return None  # deleted since it was listed
        except OSError:
            return UNKNOWN
        sha = data.rstrip(b"\n").decode("ascii", "replace")
        return sha if _SHA.fullmatch(sha) else UNKNOWN

    def any(self) -> bool | None:
        """True if some ref exists; None when none is seen (let git confirm)."""
        for _root, _dirs, files in os.walk(self.git_dir / "refs"):
            if any(not name.endswith(".lock") for name in files):
                return True
        return True if self.packed() else None

    def dwim(self, name: str) -> Any:
        """What `git rev-parse NAME` finds among refs: an object id, None when no ref
        matches, UNKNOWN when git might find something else (a file in the git dir, a
        symbolic ref)."""
        if not plain_ref_name(name):
            return UNKNOWN
        if name.startswith("refs/"):
            candidates = [name]
        elif os.path.lexists(self.git_dir / name):  # HEAD, FETCH_HEAD and the like
            return UNKNOWN
        else:
            candidates = []
        candidates += [rule.format(name) for rule in _DWIM_RULES]
        for candidate in candidates:
            found = self.read(candidate)
            if found is not None:
                return found
        return None


# --- objects, trees and paths -----------------------------------------------------------


class RawEntry(NamedTuple):
    mode: str
    type: str
    sha: str
    name: bytes


def _parse_tree(data: bytes) -> dict[bytes, RawEntry]:
    entries: dict[bytes, RawEntry] = {}
    pos, end = 0, len(data)
    while pos < end:
        space = data.index(b" ", pos)
        nul = data.index(b"\0", space)
        mode = int(data[pos:space], 8)
        kind = mode & 0o170000
        otype = "tree" if kind == 0o040000 else "commit" if kind == 0o160000 else "blob"
        name = data[space + 1 : nul]
        entries[name] = RawEntry(f"{mode:06o}", otype, data[nul + 1 : nul + 21].hex(), name)
        pos = nul + 21
    return entries  # dicts keep insertion order: the tree's own order, as ls-tree prints


def _bad_parts(parts: list[str]) -> bool:
    return any(part in ("", ".", "..") or "\0" in part for part in parts)


class FastGit:
    """The cached, process-free (or one-process) side of a GitRepo."""

    def __init__(self, git_dir: Path, env: dict[str, str]):
        self.reader = ObjectReader(git_dir, env)
        self.refs = RefFiles(git_dir)
        self._info = LRU(200_000)
        self._blobs = LRU(BLOB_CACHE_BYTES)
        self._trees = LRU(400_000)
        self._commits = LRU(20_000)
        self._paths = LRU(100_000)
        self._listings = LRU(400_000)
        self.memo = HistoryMemo(git_dir, env, self.refs.packed)

    # objects

    def info(self, sha: str) -> tuple[str, int] | None:
        return self.infos([sha])[0]

    def infos(self, shas: list[str]) -> list[tuple[str, int] | None]:
        found = [self._info.get(sha) for sha in shas]
        missing = [sha for sha, hit in zip(shas, found, strict=True) if hit is None]
        if missing:
            fetched = dict(zip(missing, self.reader.infos(missing), strict=True))
            for sha, got in fetched.items():
                if got is not None:
                    self._info.put(sha, got)
            found = [hit or fetched[sha] for sha, hit in zip(shas, found, strict=True)]
        return found

    def object(self, sha: str) -> tuple[str, bytes] | None:
        got = self._blobs.get(sha)
        if got is None:
            got = self.reader.contents([sha])[0]
            if got is not None:
                self._info.put(sha, (got[0], len(got[1])))
                if got[0] == "blob" and len(got[1]) <= BLOB_CACHE_ITEM:
                    self._blobs.put(sha, got, len(got[1]) + 64)
        return got

    def tree(self, sha: str) -> dict[bytes, RawEntry] | None:
        entries = self._trees.get(sha)
        if entries is None:
            got = self.object(sha)
            if got is None or got[0] != "tree":
                return None
            entries = _parse_tree(got[1])
            self._trees.put(sha, entries, len(entries) + 1)
        return entries

    def commit(self, sha: str) -> CommitInfo | None:
        info = self._commits.get(sha)
        if info is None:
            got = self.object(sha)
            if got is None or got[0] != "commit":
                return None
            info = parse_commit(sha, got[1])
            self._commits.put(sha, info)
        return info

    def commits(self, shas: list[str]) -> list[CommitInfo] | None:
        infos = {sha: self._commits.get(sha) for sha in shas}
        wanted = [sha for sha, info in infos.items() if info is None]
        for sha, got in zip(wanted, self.reader.contents(wanted), strict=True):
            if got is None or got[0] != "commit":
                return None
            infos[sha] = parse_commit(sha, got[1])
            self._commits.put(sha, infos[sha])
        return [infos[sha] for sha in shas]

    def peel(self, sha: str, target: str) -> str | None:
        """sha^{target} for target commit or tree; None if missing or not peelable."""
        for _ in range(32):
            info = self.info(sha)
            if info is None:
                return None
            if info[0] == target:
                return sha
            if info[0] == "commit" and target == "tree":
                commit = self.commit(sha)
                return commit.tree if commit else None
            if info[0] != "tag":
                return None
            got = self.object(sha)
            first = got[1].split(b"\n", 1)[0].decode("ascii", "replace") if got else ""
            if not first.startswith("object ") or not _SHA.fullmatch(first[7:]):
                return None
            sha = first[7:]
        return None

    # paths

    def _walk(self, tree: str, parts: list[str]) -> Any:
        """The raw entry at parts below tree; None if absent; UNKNOWN if git's answer might
        differ (a submodule on the way)."""
        entry: RawEntry | None = None
        for i, part in enumerate(parts):
            entries = self.tree(tree)
            if entries is None:
                return UNKNOWN
            entry = entries.get(part.encode("utf-8", "surrogateescape"))
            if entry is None:
                return None
            if i < len(parts) - 1:
                if entry.type != "tree":
                    return None
                tree = entry.sha
        return entry

    def _entries(self, raws: list[RawEntry], prefix: str) -> Any:
        blobs = [raw.sha for raw in raws if raw.type == "blob"]
        sizes = dict(zip(blobs, self.infos(blobs), strict=True))
        entries = []
        for raw in raws:
            size = None
            if raw.type == "blob":
                info = sizes[raw.sha]
                if info is None:
                    return UNKNOWN
                size = info[1]
            path = prefix + raw.name.decode("utf-8", "surrogateescape")
            entries.append(TreeEntry(raw.mode, raw.type, raw.sha, path, size))
        return entries

    def entry(self, commit: str, path: str) -> Any:
        """`ls-tree -l COMMIT -- PATH`'s entry named PATH: a TreeEntry, None, or UNKNOWN."""
        key = (commit, path)
        found = self._paths.get(key, _MISS)
        if found is not _MISS:
            return found
        parts = path.split("/")
        tree = self.peel(commit, "tree")
        if tree is None or _bad_parts(parts):
            return UNKNOWN
        raw = self._walk(tree, parts)
        if raw is UNKNOWN:
            return UNKNOWN
        found = None
        if raw is not None:
            entries = self._entries([raw], path[: len(path) - len(parts[-1])])
            if entries is UNKNOWN:
                return UNKNOWN
            found = entries[0]
        self._paths.put(key, found)
        return found

    def listing(self, treeish: str, path: str) -> Any:
        """`ls-tree -l TREEISH -- PATH` for PATH "" or "dir/": a list, or UNKNOWN."""
        key = (treeish, path)
        found = self._listings.get(key)
        if found is not None:
            return list(found)
        tree = self.peel(treeish, "tree")
        if tree is None or (path and not path.endswith("/")):
            return UNKNOWN
        if path:
            parts = path[:-1].split("/")
            if _bad_parts(parts):
                return UNKNOWN
            raw = self._walk(tree, parts)
            if raw is UNKNOWN or (raw is not None and raw.type == "commit"):
                return UNKNOWN  # ls-tree shows the submodule entry itself
            if raw is None or raw.type != "tree":
                self._listings.put(key, [], 1)
                return []
            tree = raw.sha
        entries = self.tree(tree)
        if entries is None:
            return UNKNOWN
        found = self._entries(list(entries.values()), path)
        if found is UNKNOWN:
            return UNKNOWN
        self._listings.put(key, found, len(found) + 1)
        return list(found)

    def cached_listing(self, key: Any, compute: Callable[[], list[TreeEntry]]) -> list:
        """A listing computed by git, kept under an immutable key."""
        found = self._listings.get(key)
        if found is None:
            found = compute()
            self._listings.put(key, found, len(found) + 1)
        return list(found)
