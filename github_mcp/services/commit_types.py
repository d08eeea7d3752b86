"""The commit engine's data: a change to make, a branch head, a commit's outcome. Its own
module so commits.py, signed_commits.py and commit_checks.py share them without importing
each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_REBASES = 8
TEXT_MODE = "100644"
NO_CHANGE = "no_change"


@dataclass
class Change:
    """Create or update `path` with `content`; `content=None` deletes it."""

    path: str
    content: str | bytes | None
    expected_sha: str | None = None
    mode: str = TEXT_MODE

    @property
    def data(self) -> bytes | None:
        if self.content is None:
            return None
        return self.content.encode("utf-8") if isinstance(self.content, str) else self.content


@dataclass
class Head:
    branch: str
    commit_sha: str
    tree_sha: str
    exists: bool = True
    protected: bool = False


@dataclass
class CommitOutcome:
    commit_sha: str
    branch: str
    parent_sha: str
    rebased_onto: list[str] = field(default_factory=list)
    verification: dict[str, Any] = field(default_factory=dict)
    files: list[dict[str, Any]] = field(default_factory=list)
    created_branch: bool = False
    status: str = "committed"  # or NO_CHANGE: the branch already held this content
    signature: dict[str, Any] | None = None  # GitHub's verdict on its signature, and the path
