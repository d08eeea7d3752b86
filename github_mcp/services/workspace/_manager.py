"""Persistent workspaces: one blobless clone per (repo, ref); commands, tests and commits in it.

Layout under `WorkspaceConfig.root`::

    .server/                          the server's git HOME (0700), never seen by commands
    <owner>__<repo>/<ref>-<hash>/     one workspace; the directory stays the server's
        repo/                         the clone, where commands run; `.venv-mcp` lives here
        home/                         HOME for user commands (pip/npm caches persist)
        tmp/                          TMPDIR, and the server's scratch files (JUnit reports)

Containment of user commands, best available first (`describe()` says what is in force):

1. A cgroup per command (`pids.max`, memory limit), v2 or v1, when the cgroup filesystem
   is writable: it caps fork bombs and memory even for root, and lists every process to kill.
2. Otherwise, when the server is root, commands run as `nobody`, so that RLIMIT_NPROC
   applies (root ignores it); the tree is handed to that user after each server git call.
3. Always: a new session, rlimits (CPU, address space, file size, no core dumps), a
   scrubbed environment, and a kill of every process the command started (cgroup members,
   /proc descendants, its session and group, and the run's environment marker).
4. Optionally bubblewrap (`sandbox="bwrap"`): read-only system, only the workspace
   writable, its own pid namespace (the server's processes and /proc are invisible), and
   no network unless `installing_dependencies`.

The server's own git gets credentials per call and distrusts `.git/` (see `workspace_git`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import pwd
import re
from contextlib import AbstractAsyncContextManager
from pathlib import Path

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.workspace._approved import pending_commit
from github_mcp.services.workspace._cgroups import detect_cgroups
from github_mcp.services.workspace._clones import CloneKeeper
from github_mcp.services.workspace._commands import Commands, Where
from github_mcp.services.workspace._commit import (
    CatchUp,
    Pusher,
    catch_up,
    commit_changes,
    follow_remote,
    validate_commit_args,
)
from github_mcp.services.workspace._exec import (
    CommandRunner,
)
from github_mcp.services.workspace._git import GitRunner
from github_mcp.services.workspace._gitfiles import read_nofollow
from github_mcp.services.workspace._locks import (
    SharedWorkspaceLock,
    WorkspaceBusy,
    heal_all,
    hold_workspace,
)
from github_mcp.services.workspace._quota import (
    QuotaLimits,
    WorkspaceQuota,
    remove_tree,
    tree_bytes,
)
from github_mcp.services.workspace._rebase import ScratchRepos, scratch_repos
from github_mcp.services.workspace._repo import RepoOps
from github_mcp.services.workspace._results import (
    ChangesSummary,
    CloneState,
    CommandResult,
    Containment,
    PendingCommit,
    RemovedClone,
    TestRunResult,
    WorkspaceCommit,
)
from github_mcp.services.workspace._sandbox import resolve_identity, untraversable
from github_mcp.services.workspace._status import (
    VENV_DIR,
    count_text_lines,
    parse_numstat_z,
)
from github_mcp.services.workspace._types import (
    MAX_LISTED,
    GitCredentials,
    Progress,
    TokenCredentials,
    Workspace,
    WorkspaceConfig,
)
from github_mcp.services.workspace._validate import validate_full_name, validate_ref

log = logging.getLogger(__name__)

__all__ = [
    "VENV_DIR",
    "CloneState",
    "CommandResult",
    "GitCredentials",
    "TestRunResult",
    "TokenCredentials",
    "WorkspaceConfig",
    "WorkspaceManager",
]


class WorkspaceManager:
    def __init__(self, config: WorkspaceConfig, credentials: GitCredentials) -> None:
        self.config = config
        sandboxed = config.sandbox == "bwrap"
        self._cgroups = detect_cgroups() if config.use_cgroups else None
        self._identity = resolve_identity(
            config.run_as_user, cgroups_available=self._cgroups is not None, sandboxed=sandboxed
        )
        created = not config.root.exists()
        config.root.mkdir(parents=True, exist_ok=True)
        if self._identity is not None:
            if created:
                config.root.chmod(0o755)
            blocked = untraversable(config.root.resolve())
            # Sandboxed, the first workspace call refuses with `workspace_unavailable`.
            if blocked is not None and not sandboxed and config.run_as_user == "auto":
                log.warning("%s is private: workspace commands stay root, uncapped", blocked)
                self._identity = None
            elif blocked is not None and not sandboxed:
                raise GitHubMCPError(
                    ErrorCode.INTERNAL,
                    f"the workspace root is not reachable by the user {self._identity.name!r}",
                    hint=f"{blocked} must be traversable by others (chmod o+x), "
                    "or move the workspace root",
                )
        if created and self._identity is None:  # private clones stay private
            config.root.chmod(0o700)
        healed = heal_all(config.root)
        if healed:
            log.warning("removed %d stale git lock file(s) left by a previous run", healed)
        git = GitRunner(
            home=config.root / ".server",
            user_name=config.git_user_name,
            user_email=config.git_user_email,
            timeout_s=config.git_timeout_s,
        )
        git.prepare()
        self._ops = RepoOps(git, credentials, self._identity, config.progress_interval_s)
        self._runner = CommandRunner(config, self._identity, self._cgroups)
        self._workspaces: dict[Path, Workspace] = {}
        # Replicas on a shared workspace volume: a lock per workspace held across
        # processes (None: this process is alone with its clones)
        self.shared_lock: SharedWorkspaceLock | None = None
        self.quota = WorkspaceQuota(
            config.root, QuotaLimits(max_clones=config.max_clones, max_bytes=config.max_bytes)
        )
        self._clones = CloneKeeper(self._ops, self.quota)
        self._commands = Commands(self._runner, self._clones, self.quota, self._hold)

    def describe(self) -> Containment:
        """How user commands are contained on this host (for diagnostics tools)."""
        limits = self._runner.limits
        if self._cgroups is not None:
            procs = f"{self._cgroups.describe()}: pids.max={limits.max_processes}"
        elif self._identity is not None or os.geteuid() != 0:
            procs = f"RLIMIT_NPROC (current + {limits.max_processes})"
        else:
            procs = "none: root without a writable cgroup"
        memory = f"RLIMIT_AS={limits.address_space_mb} MB per process"
        if self._cgroups is not None and "pids only" not in self._cgroups.describe():
            memory = f"cgroup {limits.memory_mb} MB per command; {memory}"
        return Containment(
            sandbox=self.config.sandbox,
            run_as=self._identity.name if self._identity else pwd.getpwuid(os.geteuid())[0],
            process_limit=procs,
            memory_limit=memory,
            cpu_seconds=limits.cpu_seconds,
            max_file_mb=limits.max_file_mb,
        )

    def workspace_dir(self, full_name: str, ref: str) -> Path:
        """`<root>/<owner>__<repo>/<ref, sanitised>-<hash of repo and ref>`."""
        full_name, ref = validate_full_name(full_name), validate_ref(ref)
        owner, repo = full_name.lower().split("/")
        safe_ref = re.sub(r"[^A-Za-z0-9._-]+", "_", ref).strip("._-")[:48] or "ref"
        digest = hashlib.sha256(f"{full_name.lower()}\0{ref}".encode()).hexdigest()[:10]
        return self.config.root / f"{owner}__{repo}" / f"{safe_ref}-{digest}"

    def _ws(self, full_name: str, ref: str) -> Workspace:
        full_name, ref = validate_full_name(full_name), validate_ref(ref)
        path = self.workspace_dir(full_name, ref)
        ws = self._workspaces.get(path)
        if ws is None:
            ws = self._workspaces[path] = Workspace(full_name, ref, path)
        return ws

    def _hold(self, ws: Workspace, *, wait: bool = True) -> AbstractAsyncContextManager[None]:
        return hold_workspace(ws.lock, ws.dir, self.shared_lock, wait=wait)

    # --- clones -----------------------------------------------------------------------

    async def ensure_clone(
        self, full_name: str, ref: str, *, reset: bool = False, on_progress: Progress | None = None
    ) -> CloneState:
        """Clone on first use, fetch after; `reset` discards local work but keeps .venv-mcp.

        `reset` always recovers a clone: stale locks are removed, a tampered or broken
        `.git` is discarded, and when the clone still cannot be fetched and reset it is
        cloned again (the old one is kept until the new clone has succeeded).
        """
        ws = self._ws(full_name, ref)
        await self._runner.require_sandbox()
        async with self._hold(ws):
            created = await self._clones.bring_up(ws, reset=reset, on_progress=on_progress)
            caught = None if (created or reset) else await self._catch_up(ws)
            state = await self._ops.state(ws, created=created, reset=reset)
        if caught is not None:
            state.refresh, state.stale_reason = caught.state, caught.reason
            state.previous_head_sha, state.new_commits = caught.old_sha, caught.commits
        return state

    async def _catch_up(self, ws: Workspace) -> CatchUp:
        """A reused clone was fetched: bring it to the branch's head, or say why not."""
        await self._ops.prepare(ws)
        try:
            caught = await catch_up(self._ops, ws)
        except BaseException:
            self._ops.hand_over(ws)
            raise
        if caught.state == "fast_forwarded":
            self._ops.hand_over(ws)  # the merge wrote files as the server
        return caught

    async def changes_summary(self, full_name: str, ref: str) -> ChangesSummary:
        """Branch, ahead/behind, per-file status and a diffstat of the uncommitted work."""
        ws = self._ws(full_name, ref)
        await self._runner.require_sandbox()
        async with self._hold(ws):
            ws.require_clone()
            await self._ops.prepare(ws)
            ops = self._ops
            head = await ops.head(ws)
            ahead, behind = await ops.ahead_behind(ws, await ops.target(ws) or None)
            status = await ops.status(ws)
            numstat = await ops.out(
                ws,
                ["diff", "--numstat", "-z", "--no-ext-diff", "--no-textconv", "HEAD", "--"],
                "diff",
            )
            files, insertions, deletions = parse_numstat_z(numstat)
            untracked = [e for e in status if e.status == "untracked"]
            for entry in untracked[:200]:
                insertions += count_text_lines(read_nofollow(ws.repo / entry.path, 1 << 20))
            return ChangesSummary(
                branch=await ops.branch(ws),
                head_sha=head,
                ahead=ahead,
                behind=behind,
                status=[e.to_dict() for e in status[:MAX_LISTED]],
                status_truncated=len(status) > MAX_LISTED,
                diffstat={
                    "files": files + len(untracked),
                    "insertions": insertions,
                    "deletions": deletions,
                },
                dirty=bool(status),
            )

    # --- commands (_commands.py) ----------------------------------------------------------

    async def run(
        self,
        full_name: str,
        ref: str,
        command: str,
        *,
        timeout_s: float | None = None,
        workdir: str | None = None,
        use_venv: bool = False,
        installing_dependencies: bool = False,
        on_progress: Progress | None = None,
    ) -> CommandResult:
        """Run `bash -c command` in the clone (cloned on first use, never fetched here)."""
        where = Where(self._ws(full_name, ref), workdir, use_venv, on_progress)
        return await self._commands.run(where, command, timeout_s, installing_dependencies)

    async def run_tests(
        self,
        full_name: str,
        ref: str,
        test_command: str = "pytest",
        *,
        timeout_s: float | None = None,
        workdir: str | None = None,
        use_venv: bool = True,
        on_progress: Progress | None = None,
    ) -> TestRunResult:
        """Run tests: pytest reports through a JUnit file in tmp/, others by summary lines."""
        where = Where(self._ws(full_name, ref), workdir, use_venv, on_progress)
        return await self._commands.run_tests(where, test_command, timeout_s)

    def scratch(self) -> ScratchRepos:
        """Server-private scratch repos for trial merges and stacked-branch rebases."""
        root = self.config.root / ".server" / "scratch"
        return scratch_repos(self, self._ops.git, self._ops.credentials, root)

    # --- commits ----------------------------------------------------------------------

    async def commit(
        self,
        full_name: str,
        ref: str,
        message: str,
        *,
        paths: list[str] | None = None,
        push: bool = False,
        force: bool = False,
        approved: dict[str, str] | None = None,
        pusher: Pusher | None = None,
    ) -> WorkspaceCommit:
        """Commit the clone's changes (never .venv-mcp or scratch files); push when asked.

        The push is a fast-forward of the branch: if the branch moved upstream, or the local
        history no longer contains the remote head, nothing is pushed and `conflict` is
        raised (the local commit stays). `force=True` replaces the remote branch, leased on
        the remote SHA last fetched; the result's `forced` says whether it did.
        """
        checked = validate_commit_args(message, paths)
        ws = self._ws(full_name, ref)
        await self._runner.require_sandbox()
        async with self._hold(ws):
            ws.require_clone()
            await self._ops.prepare(ws)
            try:
                return await commit_changes(
                    self._ops, ws, message, checked, push,
                    force=force, approved=approved, pusher=pusher,
                )  # fmt: skip
            finally:
                self._ops.hand_over(ws)
                self.quota.touched(ws.dir)

    async def pending_commit(
        self, full_name: str, ref: str, paths: list[str] | None
    ) -> PendingCommit:
        """What commit() of `paths` would commit (tree, parent, files with their diffs),
        for a human to approve; the clone is not changed."""
        checked = validate_commit_args("approval", paths)
        ws = self._ws(full_name, ref)
        async with self._hold(ws):
            ws.require_clone()
            await self._ops.prepare(ws)
            try:
                return await pending_commit(self._ops, ws, checked)
            finally:
                self._ops.hand_over(ws)

    async def refresh_after_api_commit(self, full_name: str, ref: str) -> str:
        """After a commit made through the API: fast-forward a clean clone, leave a dirty one.

        Returns "fast_forwarded", "up_to_date", "dirty_left_behind", "diverged_left_behind"
        (local commits, or HEAD moved off the branch), "busy_left_behind" (a command holds
        the workspace: this never waits for it) or "no_clone".
        """
        ws = self._ws(full_name, ref)
        if not ws.cloned():
            return "no_clone"
        if ws.lock.locked():
            return "busy_left_behind"
        try:
            async with self._hold(ws, wait=False):
                await self._ops.prepare(ws)
                try:
                    return await follow_remote(self._ops, ws)
                finally:
                    self._ops.hand_over(ws)
                    self.quota.touched(ws.dir)
        except WorkspaceBusy:
            return "busy_left_behind"

    async def remove(self, full_name: str, ref: str) -> RemovedClone:
        """Delete the workspace of (repo, ref): its clone, uncommitted work, venv, HOME and
        scratch files. Waits for a command running in it. Frees its clone slot and disk."""
        ws = self._ws(full_name, ref)
        async with self._hold(ws):
            if not ws.dir.exists():
                raise GitHubMCPError(
                    ErrorCode.NOT_FOUND,
                    f"no workspace clone of {ws.full_name} at {ws.ref}",
                    hint="ensure_workspace_clone makes one",
                )
            freed = await asyncio.to_thread(tree_bytes, ws.dir)
            await asyncio.to_thread(remove_tree, ws.dir)
            self._ops.git.forget(ws.repo)
            self.quota.forget(ws.dir)
            ws.kind = None
        self._workspaces.pop(ws.dir, None)
        return RemovedClone(full_name=ws.full_name, ref=ws.ref, freed_bytes=freed)
