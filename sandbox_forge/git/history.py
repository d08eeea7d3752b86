"""Reading a repository's history: ancestry, commit lists, diffs, patches and grep."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from sandbox_forge.git.memo import by_ids
from sandbox_forge.git.objects import FileDiff, parse_numstat, split_raw_diff
from sandbox_forge.git.runner import EMPTY_TREE, SHA_RE, GitRunner

DIFF_OPTS = ("-r", "-M", "--no-color", "--no-ext-diff", "--full-index")
# rev-list options whose answer depends on the commits alone (never on today's date).
_FIXED_OPTIONS = ("--reverse", "-i", "--all-match", "--no-merges", "--first-parent")
_FIXED_PREFIXES = ("--author=", "--committer=", "--grep=")


def _fixed(extra: Iterable[str]) -> bool:
    return all(opt in _FIXED_OPTIONS or opt.startswith(_FIXED_PREFIXES) for opt in extra)


class GitHistory(GitRunner):
    """The read-only history queries of a bare repository (GitRepo adds objects and refs)."""

    # --- history --------------------------------------------------------------------------

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        if not by_ids(ancestor, descendant):
            return self.ok("merge-base", "--is-ancestor", ancestor, descendant)
        key = ("is-ancestor", ancestor, descendant)
        return bool(self.fast.memo.kept(key, lambda: self._ancestry(ancestor, descendant), _one))

    def _ancestry(self, ancestor: str, descendant: str) -> bool | None:
        """The verdict, or None when git could not tell (a missing object: not kept)."""
        code = self._returncode("merge-base", "--is-ancestor", ancestor, descendant)
        return code == 0 if code in (0, 1) else None

    def merge_base(self, a: str, b: str) -> str | None:
        if not by_ids(a, b):
            return self._merge_base(a, b)
        return self.fast.memo.kept(("merge-base", a, b), lambda: self._merge_base(a, b), _one)

    def _merge_base(self, a: str, b: str) -> str | None:
        out = self.run("merge-base", a, b, check=False).decode().strip()
        return out if SHA_RE.match(out) else None

    def rev_list(
        self,
        revs: list[str],
        path: str | None = None,
        skip: int = 0,
        max_count: int | None = None,
        extra: Iterable[str] = (),
    ) -> list[str]:
        extra = list(extra)
        args = ["rev-list", *extra, f"--skip={skip}"]
        if max_count is not None:
            args.append(f"--max-count={max_count}")
        args += [*revs, "--"]
        if path:
            args.append(path)
        return list(self._listed(revs, extra, args, lambda: self.run(*args).decode().split()))

    def count(self, revs: list[str], path: str | None = None, extra: Iterable[str] = ()) -> int:
        extra = list(extra)
        args = ["rev-list", "--count", *extra, *revs, "--"]
        if path:
            args.append(path)
        return self._listed(revs, extra, args, lambda: int(self.run(*args).decode().strip() or 0))

    def _listed(self, revs: list[str], extra: list[str], args: list[str], compute: Any) -> Any:
        if not revs or not by_ids(*revs) or not _fixed(extra):
            return compute()
        return self.fast.memo.kept(tuple(args), compute, _size)

    # --- diffs ----------------------------------------------------------------------------

    def diff(self, base: str | None, head: str) -> list[FileDiff]:
        """Per-file changes from base (None: the empty tree) to head, with hunks."""
        return self._kept_diff("diff", base, head, self._diff)

    def diff_stats(self, base: str | None, head: str) -> list[FileDiff]:
        """diff() without the hunks (patch None): a pull request's sizes and file list."""
        return self._kept_diff("stats", base, head, self._stats)

    def _kept_diff(self, kind: str, base: str | None, head: str, compute: Any) -> list[FileDiff]:
        old = base or EMPTY_TREE
        if not by_ids(old, head):
            return compute(old, head)
        found = self.fast.memo.kept((kind, old, head), lambda: compute(old, head), _weight)
        return [dataclasses.replace(d) for d in found]  # callers get their own copies

    def _stats(self, old: str, head: str) -> list[FileDiff]:
        # One run prints both: every raw record, then every numstat record.
        out = self.run("diff-tree", *DIFF_OPTS, "-z", "--raw", "--numstat", old, head)
        files, numstat = split_raw_diff(out)
        for diff, (add, dele) in zip(files, parse_numstat(numstat), strict=False):
            diff.binary = add is None
            diff.additions, diff.deletions = add or 0, dele or 0
        return files

    def _diff(self, old: str, head: str) -> list[FileDiff]:
        files = self._stats(old, head)
        if not files:
            return files
        patch = self.run("diff-tree", *DIFF_OPTS, "-p", old, head).decode("utf-8", "replace")
        sections = re.split(r"^(?=diff --git )", patch, flags=re.M)
        sections = [s for s in sections if s.startswith("diff --git ")]
        for diff, section in zip(files, sections, strict=False):
            hunk_at = section.find("\n@@")
            if not diff.binary and hunk_at >= 0:
                diff.patch = section[hunk_at + 1 :].rstrip("\n")
        return files

    def unified_diff(self, base: str | None, head: str) -> str:
        old = base or EMPTY_TREE
        out = self.run("diff-tree", "-r", "-M", "-p", "--no-color", "--no-ext-diff", old, head)
        return out.decode("utf-8", "replace")

    def format_patch(self, *revs: str) -> str:
        out = self.run("format-patch", "--stdout", "--no-color", *revs)
        return out.decode("utf-8", "replace")

    # --- search ---------------------------------------------------------------------------

    def grep_files(self, commit: str, terms: list[str], pathspecs: list[str]) -> list[str]:
        """Paths in commit containing every term (fixed strings, case-insensitive)."""
        if not by_ids(commit):
            return self._grep(commit, terms, pathspecs)[0]
        failed: list[list[str]] = []

        def compute() -> list[str] | None:
            paths, ok = self._grep(commit, terms, pathspecs)
            if not ok:
                failed.append(paths)  # answered as before, but never kept
            return paths if ok else None

        key = ("grep", commit, tuple(terms), tuple(pathspecs))
        found = self.fast.memo.kept(key, compute, _size)
        return list(found) if found is not None else failed[0]

    def _grep(self, commit: str, terms: list[str], pathspecs: list[str]) -> tuple[list[str], bool]:
        """(paths, whether git answered: exit 0, or 1 for no match)."""
        args = ["grep", "-I", "-l", "-i", "-F", "-z", "--all-match"]
        for term in terms:
            args += ["-e", term]
        args += [commit, "--", *pathspecs]
        code, out = self.run_code(*args, env={"GIT_LITERAL_PATHSPECS": "0"})
        prefix = f"{commit}:"
        paths = []
        for item in out.decode("utf-8", "surrogateescape").split("\0"):
            if item:
                paths.append(item[len(prefix) :] if item.startswith(prefix) else item)
        return paths, code in (0, 1)


def _one(_found: object) -> int:
    return 64


def _size(found: Any) -> int:
    return 64 + sum(len(item) + 48 for item in found) if isinstance(found, list) else 64


def _weight(diffs: list[FileDiff]) -> int:
    return 64 + sum(len(d.patch or "") + len(d.path) + 256 for d in diffs)
