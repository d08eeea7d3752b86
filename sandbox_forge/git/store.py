"""Bare git repositories on disk, driven through the git CLI.

Every call goes through `git/runner.py` (argument lists, a fixed environment); reading
history (diffs, commit lists, grep) is in `git/history.py`. Hot reads go through `git/cache.py`
first (a long-lived cat-file process, caches keyed by object id, refs read from their
files); anything it is unsure of falls through to the plain git commands below.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import subprocess
import tempfile
import zlib
from collections.abc import Iterable
from pathlib import Path

from sandbox_forge.git.cache import UNKNOWN, ReaderError
from sandbox_forge.git.history import GitHistory
from sandbox_forge.git.objects import (
    FORGE_SIGNATURE,
    ZERO_SHA,
    CommitInfo,
    FileDiff,
    Signature,
    TreeChange,
    TreeEntry,
    parse_commit,
)
from sandbox_forge.git.runner import BASE_ENV, EMPTY_TREE, SHA_RE, GitError


class GitRepo(GitHistory):
    """One bare repository: its objects, trees and refs; history queries come from
    GitHistory, how git is run from GitRunner. Methods are blocking: call them from worker
    threads."""

    @classmethod
    def init_bare(cls, path: Path, default_branch: str = "main") -> GitRepo:
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "init", "--quiet", "--bare", f"--initial-branch={default_branch}", str(path)],
            check=True,
            capture_output=True,
            env={**os.environ, **BASE_ENV},
        )
        repo = cls(path)
        # Partial clones and lazy blob fetches need the uploadpack settings; pushes need
        # receivepack. Appended directly: one file write instead of a git process each.
        with open(path / "config", "a", encoding="utf-8") as config:
            config.write(
                "[uploadpack]\n\tallowFilter = true\n\tallowAnySHA1InWant = true\n"
                "\tallowReachableSHA1InWant = true\n"
                "[http]\n\treceivepack = true\n"
                "[receive]\n\tdenyNonFastForwards = false\n"
                "[gc]\n\tauto = 0\n"
            )
        return repo

    def set_head(self, branch: str) -> None:
        self.run("symbolic-ref", "HEAD", f"refs/heads/{branch}")

    # --- objects --------------------------------------------------------------------------

    def write_blob(self, data: bytes) -> str:
        """A loose blob written as `git hash-object -w` writes it (a blob needs no check),
        without a git process: a commit through the API wrote one per file."""
        header = b"blob %d\0" % len(data)
        sha = hashlib.sha1(header + data, usedforsecurity=False).hexdigest()
        target = self.path / "objects" / sha[:2] / sha[2:]
        if target.exists():
            return sha
        target.parent.mkdir(exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix="tmp_obj_", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(zlib.compress(header + data))
            os.chmod(temp, 0o444)
            os.replace(temp, target)  # atomic: a reader sees the whole object or none
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
        return sha

    def object_type(self, sha: str) -> str | None:
        if not sha or not re.fullmatch(r"[0-9a-fA-F]{4,40}", sha):
            return None
        if SHA_RE.match(sha):
            with contextlib.suppress(ReaderError):
                info = self.fast.info(sha)
                return info[0] if info else None
        out = self.run("cat-file", "-t", sha, check=False).decode().strip()
        return out or None

    def read_blob(self, sha: str) -> bytes:
        if SHA_RE.match(sha):
            with contextlib.suppress(ReaderError):
                got = self.fast.object(sha)
                if got is not None and got[0] == "blob":
                    return got[1]
        return self.run("cat-file", "blob", sha)

    def _resolve_fast(self, rev: str, target: str) -> str | None:
        """rev^{target} without a git process where that is certain; UNKNOWN otherwise."""
        try:
            if re.fullmatch(r"[0-9a-fA-F]{40}", rev):  # git reads these as ids, never refs
                sha = rev if rev.islower() or rev.isdigit() else UNKNOWN
            else:
                sha = self.fast.refs.dwim(rev)
            if sha is None:
                # No ref matched: only a short sha or describe output can still resolve.
                hexish = re.fullmatch(r"[0-9a-fA-F]{4,39}", rev) or "-g" in rev
                return UNKNOWN if hexish else None
            if sha is UNKNOWN:
                return UNKNOWN
            peeled = self.fast.peel(sha, target)
            # A missing or unpeelable full sha is certain; a ref to one is git's to judge.
            return peeled if peeled is not None or sha == rev else UNKNOWN
        except ReaderError:
            return UNKNOWN

    def resolve_commit(self, rev: str) -> str | None:
        """A branch, tag, full or short sha, or refs/... name -> commit sha, or None."""
        if not rev or rev.startswith("-") or ".." in rev or ":" in rev:
            return None
        fast = self._resolve_fast(rev, "commit")
        if fast is not UNKNOWN:
            return fast
        out = self.run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
        sha = out.decode().strip()
        return sha if SHA_RE.match(sha) else None

    def resolve_tree(self, rev: str) -> str | None:
        if not rev or rev.startswith("-") or ".." in rev:
            return None
        fast = self._resolve_fast(rev, "tree") if ":" not in rev else UNKNOWN
        if fast is not UNKNOWN:
            return fast
        out = self.run("rev-parse", "--verify", "--quiet", f"{rev}^{{tree}}", check=False)
        sha = out.decode().strip()
        return sha if SHA_RE.match(sha) else None

    def read_commit(self, sha: str) -> CommitInfo:
        if SHA_RE.match(sha):
            with contextlib.suppress(ReaderError):
                info = self.fast.commit(sha)
                if info is not None:
                    return info
        return parse_commit(sha, self.run("cat-file", "commit", sha))

    def read_commits(self, shas: list[str]) -> list[CommitInfo]:
        """Many commits: from the cache and the cat-file process, else one git process."""
        if not shas:
            return []
        if all(SHA_RE.match(sha) for sha in shas):
            with contextlib.suppress(ReaderError):
                infos = self.fast.commits(shas)
                if infos is not None:
                    return infos
        out = self.run("cat-file", "--batch", input=("\n".join(shas) + "\n").encode())
        commits, pos = [], 0
        for _ in shas:
            eol = out.index(b"\n", pos)
            header = out[pos:eol].decode().split()
            if len(header) != 3 or header[1] != "commit":
                raise GitError(["cat-file", "--batch"], 1, b"not a commit: " + out[pos:eol])
            size = int(header[2])
            commits.append(parse_commit(header[0], out[eol + 1 : eol + 1 + size]))
            pos = eol + 1 + size + 1
        return commits

    def create_commit(
        self,
        tree: str,
        parents: Iterable[str],
        message: str,
        author: Signature,
        committer: Signature,
        signature: str | None = None,
    ) -> str:
        """Write a commit object byte for byte, so dates and signatures are exact."""
        lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
        lines += [f"author {author.header()}", f"committer {committer.header()}"]
        if signature:
            sig_lines = signature.strip("\n").split("\n")
            lines.append("gpgsig " + sig_lines[0])
            lines += [" " + line for line in sig_lines[1:]]
        body = "\n".join(lines) + "\n\n" + message
        return (
            self.run("hash-object", "-t", "commit", "-w", "--stdin", input=body.encode())
            .decode()
            .strip()
        )

    # --- trees ----------------------------------------------------------------------------

    def ls_tree(self, treeish: str, path: str = "", recursive: bool = False) -> list[TreeEntry]:
        if SHA_RE.match(treeish):  # what an object id names never changes
            if recursive:
                key = (treeish, path, "recursive")
                return self.fast.cached_listing(key, lambda: self._ls_tree(treeish, path, True))
            if not path or path.endswith("/"):
                with contextlib.suppress(ReaderError):
                    found = self.fast.listing(treeish, path)
                    if found is not UNKNOWN:
                        return found
            else:
                with contextlib.suppress(ReaderError):
                    entry = self.fast.entry(treeish, path)
                    if entry is not UNKNOWN:
                        return [entry] if entry is not None else []
        return self._ls_tree(treeish, path, recursive)

    def _ls_tree(self, treeish: str, path: str, recursive: bool) -> list[TreeEntry]:
        args = ["ls-tree", "-l", "-z"]
        if recursive:
            args += ["-r", "-t"]
        args.append(treeish)
        if path:
            args += ["--", path]
        out = self.run(*args)
        entries = []
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, name = record.partition(b"\t")
            mode, otype, sha, size = meta.decode().split(maxsplit=3)
            entries.append(
                TreeEntry(
                    mode=mode,
                    type=otype,
                    sha=sha,
                    path=name.decode("utf-8", "surrogateescape"),
                    size=None if size.strip() == "-" else int(size),
                )
            )
        return entries

    def entry_at(self, commit: str, path: str) -> TreeEntry | None:
        """The tree entry at path in commit; path "" is the root tree."""
        if not path:
            tree = self.resolve_tree(commit)
            return TreeEntry("040000", "tree", tree, "") if tree else None
        if SHA_RE.match(commit):
            with contextlib.suppress(ReaderError):
                entry = self.fast.entry(commit, path)
                if entry is not UNKNOWN:
                    return entry
        found = self._ls_tree(commit, path, False)
        return next((e for e in found if e.path == path), None)

    def build_tree(self, base_tree: str | None, changes: list[TreeChange]) -> str:
        """Apply changes to base_tree through a throwaway index and write the new tree."""
        with tempfile.TemporaryDirectory(prefix="forge-index-") as tmp:
            env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            if base_tree:
                self.run("read-tree", base_tree, env=env)
            else:
                self.run("read-tree", "--empty", env=env)
            for index, change in enumerate(changes):
                # one update-index per change: its removals, then its entry (in order);
                # the first change's index is still the base tree, read without git
                first = self._base_removals(base_tree, change.path) if index == 0 else None
                info = first if first is not None else self._removals(change.path, env)
                if change.sha is not None and change.mode != "040000":
                    info += f"{change.mode} {change.sha}\t{change.path}\n"
                if info:
                    self.run("update-index", "--index-info", input=info.encode(), env=env)
                if change.sha is not None and change.mode == "040000":
                    self.run("read-tree", f"--prefix={change.path}/", change.sha, env=env)
            return self.run("write-tree", env=env).decode().strip()

    def _base_removals(self, base_tree: str | None, path: str) -> str | None:
        """`_removals` for an index holding `base_tree`, from the cat-file process: None
        when the path is a directory there or the reader is unsure (git lists it)."""
        parts = path.split("/")
        doomed = ["/".join(parts[:i]) for i in range(1, len(parts))]
        if base_tree:
            try:
                entry = self.fast.entry(base_tree, path)
            except ReaderError:
                return None
            if entry is UNKNOWN or (entry is not None and entry.type == "tree"):
                return None
            if entry is not None:
                doomed.append(path)
        return "".join(f"0 {ZERO_SHA}\t{p}\n" for p in doomed)

    def _removals(self, path: str, env: dict[str, str]) -> str:
        """--index-info lines removing the path itself, anything below it as a directory,
        and its parents stored as files."""
        listed = self.run("ls-files", "-z", "--", path, env=env)
        doomed = [p for p in listed.decode("utf-8", "surrogateescape").split("\0") if p]
        parts = path.split("/")
        doomed += ["/".join(parts[:i]) for i in range(1, len(parts))]
        return "".join(f"0 {ZERO_SHA}\t{p}\n" for p in doomed)

    # --- refs -----------------------------------------------------------------------------

    def read_ref(self, ref: str) -> str | None:
        if not ref.startswith("refs/"):
            return None
        sha = self.fast.refs.read(ref)
        if sha is None:
            return None
        if sha is not UNKNOWN:
            with contextlib.suppress(ReaderError):
                if self.fast.info(sha) is not None:  # show-ref refuses a ref to nothing
                    return sha
        out = self.run("show-ref", "--verify", "--hash", ref, check=False).decode().strip()
        return out if SHA_RE.match(out) else None

    def has_refs(self) -> bool:
        """Whether any ref exists under refs/ (is the repository empty?)."""
        return bool(self.fast.refs.any() or self.list_refs("refs/"))

    def list_refs(self, prefix: str = "refs/") -> list[tuple[str, str, str]]:
        """(refname, sha, object type) sorted by name."""
        with contextlib.suppress(ReaderError):
            fast = self._list_refs_fast(prefix)
            if fast is not None:
                return fast
        out = self.run(
            "for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)", prefix
        )
        refs = []
        for line in out.decode("utf-8", "surrogateescape").splitlines():
            name, sha, otype = line.split("\0")
            refs.append((name, sha, otype))
        return refs

    def _list_refs_fast(self, prefix: str) -> list[tuple[str, str, str]] | None:
        """list_refs from the ref files, when they say plainly what for-each-ref would."""
        refs = self.fast.refs.listing(prefix)
        if refs is UNKNOWN:
            return None
        names = sorted(refs)  # ref names here are ASCII: str order is git's byte order
        infos = self.fast.infos([refs[name] for name in names])
        if any(info is None for info in infos):
            return None  # a ref to a missing object: git's to report
        return [(n, refs[n], info[0]) for n, info in zip(names, infos, strict=True) if info]

    def update_ref(self, ref: str, new: str, old: str | None) -> bool:
        """Compare-and-swap: old=None means the ref must not exist. False if it moved."""
        return self.ok("update-ref", ref, new, old or ZERO_SHA)

    def force_ref(self, ref: str, new: str) -> None:
        self.run("update-ref", ref, new)

    def delete_ref(self, ref: str, old: str) -> bool:
        return self.ok("update-ref", "-d", ref, old)

    def valid_ref_name(self, ref: str) -> bool:
        return (
            subprocess.run(
                ["git", "check-ref-format", ref], capture_output=True, check=False
            ).returncode
            == 0
        )


__all__ = [
    "EMPTY_TREE",
    "FORGE_SIGNATURE",
    "SHA_RE",
    "ZERO_SHA",
    "CommitInfo",
    "FileDiff",
    "GitError",
    "GitRepo",
    "Signature",
    "TreeChange",
    "TreeEntry",
]
