"""Persistent workspace clones: cloning and refreshing, running user commands in a
sandbox, tests, and committing and pushing what changed.

The modules behind this face are private; import from the package.
"""

from __future__ import annotations

from github_mcp.services.workspace._commit import push_commit
from github_mcp.services.workspace._manager import WorkspaceConfig, WorkspaceManager
from github_mcp.services.workspace._procs import terminate_running
from github_mcp.services.workspace._rebase import RebaseOutcome, ScratchRepos
from github_mcp.services.workspace._repo import RepoOps
from github_mcp.services.workspace._results import (
    ChangesSummary,
    CloneState,
    CommandResult,
    CommittedPath,
    Containment,
    FailingTest,
    PendingCommit,
    PendingFile,
    Pushed,
    RemovedClone,
    TestRunResult,
    WorkspaceCommit,
)
from github_mcp.services.workspace._types import Workspace, basic_auth_header

__all__ = [
    "ChangesSummary",
    "CloneState",
    "CommandResult",
    "CommittedPath",
    "Containment",
    "FailingTest",
    "PendingCommit",
    "PendingFile",
    "Pushed",
    "RebaseOutcome",
    "RemovedClone",
    "RepoOps",
    "ScratchRepos",
    "TestRunResult",
    "Workspace",
    "WorkspaceCommit",
    "WorkspaceConfig",
    "WorkspaceManager",
    "basic_auth_header",
    "push_commit",
    "terminate_running",
]
