"""Persistent workspace clones: cloning and refreshing, running user commands in a
sandbox, tests, and committing and pushing what changed.

The modules behind this face are private; import from the package.
"""

from __future__ import annotations

from ._manager import (
    WorkspaceConfig,
    WorkspaceManager,
)
from ._procs import (
    terminate_running,
)
from ._rebase import (
    RebaseOutcome,
    ScratchRepos,
)
from ._types import (
    basic_auth_header,
)

__all__ = [
    "RebaseOutcome",
    "ScratchRepos",
    "WorkspaceConfig",
    "WorkspaceManager",
    "basic_auth_header",
    "terminate_running",
]
