"""What the workspace service answers: typed models the workspace tools return as they are,
so their output schemas are generated from these types. A field marked `exclude=True` is
for the server (tests, logs), never in the tool's answer; a None field is left out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.effects import Written
from github_mcp.services.shared.commit_types import CommitSignature

Refresh = Literal[
    "cloned", "reset", "fast_forwarded", "up_to_date", "dirty_left_behind", "diverged_left_behind"
]


class CloneState(BaseModel):
    full_name: str
    ref: str
    kind: str
    path: str
    branch: str | None = None
    head_sha: str
    remote_sha: str | None = None
    ahead: int
    behind: int
    dirty: bool
    changed_files: list[str]
    changed_files_total: int
    created: bool
    reset: bool
    refresh: Refresh = Field(
        description="What this call did to a reused clone; *_left_behind: still stale."
    )
    previous_head_sha: str | None = None
    new_commits: int = Field(0, description="Commits fast-forwarded (or still behind).")
    stale_reason: str | None = None


class _ChangesOnlyTheClone(BaseModel):
    def written(self, repo: str) -> Written | None:
        return None  # commands and tests change the clone only: they hold no credential


class CommandResult(_ChangesOnlyTheClone):
    exit_code: int | None = None  # None when timed out; 128+N when killed by signal N
    timed_out: bool
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    duration_s: float
    # timeout | memory_limit | cpu_limit | file_size_limit | signal:NAME
    killed_by: str | None = None
    timeout_s: float = Field(0.0, exclude=True)


class FailingTest(BaseModel):
    name: str
    message: str
    file: str | None = None
    line: int | None = Field(None, exclude=True)


class TestRunResult(_ChangesOnlyTheClone):
    __test__ = False  # not a pytest class

    passed: int
    failed: int
    errors: int
    skipped: int
    failing: list[FailingTest]
    duration_s: float
    exit_code: int | None = None
    timed_out: bool
    output_tail: str
    parsed_from: str | None = None  # "junit" | "summary" | None
    killed_by: str | None = Field(None, exclude=True)
    failing_truncated: bool = Field(False, exclude=True)


class ChangesSummary(BaseModel):
    branch: str | None = None
    head_sha: str | None = None
    ahead: int = 0
    behind: int = 0
    dirty: bool
    status: list[dict[str, Any]]  # {path, status, from?} (their schema stays an open object)
    diffstat: dict[str, Any]  # {files, insertions, deletions}
    status_truncated: bool = Field(False, exclude=True)


class CommittedPath(BaseModel):
    path: str
    status: str


class WorkspaceCommit(BaseModel):
    commit_sha: str
    pushed: bool
    forced: bool = Field(
        description="True only when force=true replaced history on the remote branch."
    )
    files: list[CommittedPath]
    signature: CommitSignature | None = Field(
        None,
        description="Set when the push was replayed through createCommitOnBranch because "
        "the branch requires signed commits: commit_sha is then the signed commit.",
    )
    replayed_from: str | None = Field(None, description="The local commit that was replayed.")
    branch: str | None = Field(None, exclude=True)


@dataclass
class Pushed:
    """What a push did: replaced history (`forced`) or, replayed as a signed commit, the
    commit GitHub made and the local one it came from."""

    forced: bool
    commit_sha: str | None = None
    replayed_from: str | None = None
    signature: CommitSignature | None = None


class RemovedClone(BaseModel):
    full_name: str
    ref: str
    freed_bytes: int = Field(description="Disk bytes the workspace used, now free.")


@dataclass
class PendingFile:
    path: str
    additions: int
    deletions: int
    patch: str | None


@dataclass
class PendingCommit:
    """The commit a gated commit_workspace will make: its tree, parent and files."""

    tree: str
    parent: str
    files: list[PendingFile]


@dataclass
class Containment:
    """How user commands are contained on this host (for diagnostics)."""

    sandbox: str
    run_as: str
    process_limit: str
    memory_limit: str
    cpu_seconds: int | None
    max_file_mb: int | None
