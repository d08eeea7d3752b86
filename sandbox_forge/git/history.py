"""Reading a repository's history: ancestry, commit lists, diffs, patches and grep."""

from __future__ import annotations

import re
from collections.abc import Iterable

from sandbox_forge.git.objects import FileDiff, parse_numstat, parse_raw_diff
from sandbox_forge.git.runner import EMPTY_TREE, SHA_RE, GitRunner


class GitHistory(GitRunner):
    """The read-only history queries of a bare repository (GitRepo adds objects and refs)."""

    # --- history --------------------------------------------------------------------------

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return self.ok("merge-base", "--is-ancestor", ancestor, descendant)

    def merge_base(self, a: str, b: str) -> str | None:
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
        args = ["rev-list", *extra, f"--skip={skip}"]
        if max_count is not None:
            args.append(f"--max-count={max_count}")
        args += [*revs, "--"]
        if path:
            args.append(path)
        return self.run(*args).decode().split()

    def count(self, revs: list[str], path: str | None = None, extra: Iterable[str] = ()) -> int:
        args = ["rev-list", "--count", *extra, *revs, "--"]
        if path:
            args.append(path)
        return int(self.run(*args).decode().strip() or 0)

    # --- diffs ----------------------------------------------------------------------------

    def diff(self, base: str | None, head: str) -> list[FileDiff]:
        """Per-file changes from base (None: the empty tree) to head, with hunks."""
        old = base or EMPTY_TREE
        opts = ["-r", "-M", "--no-color", "--no-ext-diff", "--full-index"]
        raw = self.run("diff-tree", *opts, "-z", "--raw", old, head)
        files = parse_raw_diff(raw)
        if not files:
            return files
        numstat = self.run("diff-tree", *opts, "-z", "--numstat", old, head)
        for diff, (add, dele) in zip(files, parse_numstat(numstat), strict=False):
            diff.binary = add is None
            diff.additions, diff.deletions = add or 0, dele or 0
        patch = self.run("diff-tree", *opts, "-p", old, head).decode("utf-8", "replace")
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
        args = ["grep", "-I", "-l", "-i", "-F", "-z", "--all-match"]
        for term in terms:
            args += ["-e", term]
        args += [commit, "--", *pathspecs]
        out = self.run(*args, check=False, env={"GIT_LITERAL_PATHSPECS": "0"})
        prefix = f"{commit}:"
        paths = []
        for item in out.decode("utf-8", "surrogateescape").split("\0"):
            if item:
                paths.append(item[len(prefix) :] if item.startswith(prefix) else item)
        return paths
