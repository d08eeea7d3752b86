"""The commit engine's data: a change to make, a branch head, a commit's outcome. Its own
module so commits.py, signed_commits.py and commit_checks.py share them without importing
each other."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.effects import Written

MAX_REBASES = 8
TEXT_MODE = "100644"
NO_CHANGE = "no_change"
DIFF_MAX_CHARS = 20_000


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


Via = Literal["createCommitOnBranch", "git_data"]


class CommitSignature(BaseModel):  # GitHub's verdict on a commit's signature, and the path
    verified: bool = Field(
        description="GitHub's verification of the commit's signature (its "
        "`verification.verified`): true for a commit GitHub signed (createCommitOnBranch)."
    )
    reason: str | None = None
    via: Via

    @classmethod
    def of(cls, verification: Mapping[str, Any], via: Via) -> CommitSignature:
        """GitHub's `verification` of a commit, as the answer's `signature`."""
        verified = verification.get("verified") is True
        return cls(verified=verified, reason=verification.get("reason"), via=via)


class Verification(BaseModel):
    verified: bool
    commit_sha: str
    branch_sha: str | None = None
    files_checked: int


class WrittenFile(BaseModel):
    path: str
    status: str
    sha: str | None = None
    ok: bool


class CommitResult(BaseModel):  # a verified commit's answer (CommitOutcome.result)
    status: Literal["committed", "no_change"] = Field(
        "committed",
        description="no_change: the branch already held this content; nothing was written "
        "and commit_sha is the branch head.",
    )
    commit_sha: str
    branch: str
    parent_sha: str
    files: list[WrittenFile]
    verification: Verification
    signature: CommitSignature | None = None
    rebased_onto: list[str] | None = None
    created_branch: bool | None = None
    diff: str | None = None
    diff_truncated: bool | None = None

    def written(self, repo: str) -> Written:
        return Written(repo, self.branch, self.commit_sha)


@dataclass
class CommitOutcome:
    commit_sha: str
    branch: str
    parent_sha: str
    verification: Verification
    rebased_onto: list[str] = field(default_factory=list)
    files: list[WrittenFile] = field(default_factory=list)
    created_branch: bool = False
    status: str = "committed"  # or NO_CHANGE: the branch already held this content
    signature: CommitSignature | None = None

    def result(self, diff: str | None = None) -> CommitResult:
        """The answer for this commit (with its diff, capped, when given)."""
        return CommitResult(
            status="no_change" if self.status == NO_CHANGE else "committed",
            commit_sha=self.commit_sha,
            branch=self.branch,
            parent_sha=self.parent_sha,
            files=self.files,
            verification=self.verification,
            signature=self.signature,
            rebased_onto=self.rebased_onto or None,
            created_branch=self.created_branch or None,
            diff=None if diff is None else diff[:DIFF_MAX_CHARS],
            diff_truncated=(diff is not None and len(diff) > DIFF_MAX_CHARS) or None,
        )
