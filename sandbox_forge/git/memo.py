"""Answers of history queries (diffs, merge bases, commit lists, grep) kept by the object
ids they were asked about, shared by every request.

Commits never change, so what git answers about full object ids stays true, with three
exceptions that rewrite history in place: replace refs, a grafts file and a shallow file.
While any of them exists nothing is served from here. Only answers are kept, never
failures (an object missing now may be pushed a moment later), and never anything asked by a
branch or other ref name: those move, and a push must be seen at once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from sandbox_forge.git.cat import LRU

T = TypeVar("T")
FULL_ID = re.compile(r"\^?[0-9a-f]{40}")
MEMO_BYTES = 32 << 20
_REWRITERS = ("GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE")


def by_ids(*revs: str | None) -> bool:
    """Every rev is a full object id (optionally ^-negated): the answer cannot move."""
    return all(rev is not None and FULL_ID.fullmatch(rev) for rev in revs)


class HistoryMemo:
    """A bounded map of git answers keyed by object ids, served only while history is
    plain (no replace refs, grafts or shallow file)."""

    def __init__(self, git_dir: Path, env: dict[str, str], packed: Callable[[], dict]):
        self._packed = packed
        self._env_rewrites = any(name in env for name in _REWRITERS)
        self._rewriters = [str(git_dir / name) for name in ("shallow", "info/grafts")]
        self._replace = str(git_dir / "refs" / "replace")
        self._answers = LRU(MEMO_BYTES)

    def plain(self) -> bool:
        if self._env_rewrites or any(os.path.lexists(path) for path in self._rewriters):
            return False
        if os.path.lexists(self._replace):
            for _root, _dirs, files in os.walk(self._replace):
                if files:
                    return False
        return not any(name.startswith("refs/replace/") for name in self._packed())

    def kept(self, key: tuple, compute: Callable[[], T], weigh: Callable[[T], int]) -> T:
        """compute()'s answer for key, computed once while history stays plain."""
        if not self.plain():
            return compute()
        found = self._answers.get(key)
        if found is None:
            found = compute()
            if found is not None and self.plain():
                self._answers.put(key, found, weigh(found))
        return found
