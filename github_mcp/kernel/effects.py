"""What a call tells the pipeline in types: the target a write resolves to before the gate,
and what a write changed on GitHub after it.

The pipeline (`running.run_tool`) reads these instead of each handler acting on them:
after a successful write it drops the repository's cached reads and fast-forwards a clean
workspace clone of the branch that moved. A handler never invalidates or refreshes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Target:
    """Where a write lands, as a target resolver finds it: the branch the gate authorises
    (None: unscoped), the repository when only the resolver could name it (from PR
    references, say), and for a write outside repositories its own visibility."""

    branch: str | None
    repo: str | None = None
    # Where the write publishes, when it is not a repository's own visibility: a gist's
    # `public` or `secret`. None: the repository's, looked up (the cross-visibility guard).
    visibility: str | None = None


@dataclass(frozen=True)
class Written:
    """What a write changed: the repository (its cached reads go), and the branch whose
    head moved to `sha`, if any (a clean clone of it is fast-forwarded)."""

    repo: str
    branch: str | None = None
    sha: str | None = None


@runtime_checkable
class ReportsWrite(Protocol):
    """A write's result that names what it wrote. `repo` is the repository the call was
    authorised for. None: nothing on GitHub changed (a command run in a clone, say).

    A write tool whose result does not implement this is taken to have changed its
    repository without moving a branch."""

    def written(self, repo: str) -> Written | None: ...


@runtime_checkable
class ReportsRefresh(Protocol):
    """A result that shows how the workspace clone of the written branch was refreshed."""

    def clone_refreshed(self, state: str) -> None: ...
