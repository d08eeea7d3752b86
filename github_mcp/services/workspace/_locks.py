"""Self-healing clones: lock files left by a git process that no longer exists are removed.

A container-style kill during the server's own `git add` leaves `.git/index.lock` behind,
and every later git call in that clone then fails ("Unable to create index.lock: File
exists"). git writes no pid into its lock files, so staleness is decided from the outside:

- the caller holds the workspace's own lock, so no server git call and no user command of
  ours is running in this clone (commands are killed, with all they started, before the
  workspace lock is released); at start-up nothing of ours runs yet;
- and no live process has its working directory, its root or an open file inside the
  clone (this catches a git started by anything else, e.g. a command's escaped child
  under the unsandboxed mode).

Each removal is logged with the lock's age.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Protocol

from github_mcp.monitoring.observability import log_event

log = logging.getLogger(__name__)


class HeldLease(Protocol):
    """A lock held across processes: `check` raises unless this holder still has it."""

    async def check(self) -> None: ...


# Replicas sharing a workspace volume: the lock of one workspace directory, held across
# processes (leased, renewed, fenced); with wait=False it yields None at once when
# another process holds it.
SharedWorkspaceLock = Callable[[Path, bool], AbstractAsyncContextManager[HeldLease | None]]


class WorkspaceBusy(Exception):
    """Another replica is working in this workspace (only when not waiting for it)."""


@contextlib.asynccontextmanager
async def hold_workspace(
    local: asyncio.Lock, workspace: Path, shared: SharedWorkspaceLock | None, *, wait: bool
) -> AsyncIterator[None]:
    """The workspace to ourselves: this process's lock, then (replicas on a shared
    volume) the shared one, whose holder is checked still to be us before the work."""
    async with local:
        if shared is None:
            yield
            return
        async with shared(workspace, wait) as lease:
            if lease is None:
                raise WorkspaceBusy(str(workspace))
            await lease.check()
            yield


# Loose-object fan-out directories hold no locks worth a walk.
_FANOUT = re.compile(r"^[0-9a-f]{2}$")
MAX_LOCKS = 1000


def lock_files(git_dir: Path) -> list[Path]:
    """Every `*.lock` under a .git directory (index, HEAD, refs, packed-refs, config,
    shallow, gc.log, commit-graph…), never following a symlink."""
    found: list[Path] = []
    if git_dir.is_symlink() or not git_dir.is_dir():
        return found
    for dirpath, dirs, files in os.walk(git_dir, followlinks=False):
        here = Path(dirpath)
        if here.name == "objects":
            dirs[:] = [d for d in dirs if not _FANOUT.match(d)]
        for name in files:
            if name.endswith(".lock"):
                path = here / name
                if not path.is_symlink():
                    found.append(path)
                if len(found) >= MAX_LOCKS:
                    return found
    return found


def _inside(target: str, root: str) -> bool:
    target = target.removesuffix(" (deleted)")
    return target == root or target.startswith(root + "/")


def processes_using(root: Path) -> list[int]:
    """Live processes (other than this one) whose cwd, root or an open file is in root.

    Processes we may not inspect are skipped: as root we inspect every process; an
    unprivileged server's clones are writable by its own uid only, whose processes it can
    inspect.
    """
    me = os.getpid()
    where = str(root)
    users = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        proc = f"/proc/{name}"
        try:
            links = [os.readlink(f"{proc}/cwd"), os.readlink(f"{proc}/root")]
            fds = os.listdir(f"{proc}/fd")
        except OSError:
            continue
        for fd in fds:
            with contextlib.suppress(OSError):
                links.append(os.readlink(f"{proc}/fd/{fd}"))
        if any(_inside(link, where) for link in links):
            users.append(int(name))
    return users


def heal_stale_locks(repo: Path, *, reason: str) -> list[str]:
    """Remove the clone's stale lock files; returns their paths relative to the clone.

    The caller must hold the workspace lock (or be starting up).
    """
    git_dir = repo / ".git"
    locks = lock_files(git_dir)
    if not locks:
        return []
    users = processes_using(repo.resolve())
    if users:
        log_event(
            "workspace_lock_kept",
            level=logging.WARNING,
            clone=str(repo),
            locks=[str(p.relative_to(repo)) for p in locks],
            live_pids=users[:20],
        )
        return []
    removed = []
    now = time.time()
    for path in locks:
        try:
            age = now - path.lstat().st_mtime
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning("could not remove stale lock %s: %s", path, exc)
            continue
        rel = str(path.relative_to(repo))
        removed.append(rel)
        log_event(
            "workspace_stale_lock_removed",
            level=logging.WARNING,
            clone=str(repo),
            lock=rel,
            age_s=round(age, 1),
            reason=reason,
        )
    return removed


def heal_all(root: Path) -> int:
    """At start-up: heal every workspace clone under the workspace root."""
    count = 0
    if not root.is_dir():
        return 0
    for owner in root.iterdir():
        if owner.name.startswith(".") or owner.is_symlink() or not owner.is_dir():
            continue
        for ws_dir in owner.iterdir():
            repo = ws_dir / "repo"
            if ws_dir.is_symlink() or not (repo / ".git").is_dir():
                continue
            count += len(heal_stale_locks(repo, reason="start-up"))
    return count
