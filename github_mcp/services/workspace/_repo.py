"""Git operations on one workspace clone: clone, fetch, reset, state."""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Any, TypedDict

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring import client_log
from github_mcp.services.workspace._child_setup import Identity
from github_mcp.services.workspace._git import HEX_SHA, GitResult, GitRunner
from github_mcp.services.workspace._gitfiles import atomic_write, read_nofollow
from github_mcp.services.workspace._locks import heal_stale_locks
from github_mcp.services.workspace._procs import report_progress
from github_mcp.services.workspace._results import CloneState
from github_mcp.services.workspace._status import VENV_DIR, StatusEntry, parse_porcelain_z
from github_mcp.services.workspace._types import (
    MAX_LISTED,
    GitCredentials,
    Progress,
    RefKind,
    Workspace,
)
from github_mcp.services.workspace._validate import check_clone_url


class GitAuth(TypedDict):
    """Keyword arguments that give one git call the credentials, scoped to the repo URL."""

    auth_header: str | None
    url: str
    network: bool


class RepoOps:
    """The server's git work on workspace clones (credentials per call, config checked)."""

    def __init__(
        self,
        git: GitRunner,
        credentials: GitCredentials,
        identity: Identity | None,
        progress_interval_s: float,
    ) -> None:
        self.git = git
        self.credentials = credentials
        self.identity = identity
        self.progress_interval_s = progress_interval_s

    # --- plumbing ---------------------------------------------------------------------

    def url(self, ws: Workspace) -> str:
        return check_clone_url(self.credentials.clone_url(ws.full_name))

    async def auth(self, ws: Workspace) -> GitAuth:
        return GitAuth(
            auth_header=await self.credentials.auth_header(), url=self.url(ws), network=True
        )

    async def run(self, ws: Workspace, args: list[str], **kw: Any) -> GitResult:
        return await self.git(args, cwd=ws.repo, **kw)

    async def out(self, ws: Workspace, args: list[str], action: str, **kw: Any) -> str:
        return await self.git.ok(args, cwd=ws.repo, action=action, **kw)

    async def with_progress(
        self,
        args: list[str],
        *,
        cwd: Path,
        action: str,
        on_progress: Progress | None,
        **kw: Any,
    ) -> str:
        if on_progress is None:
            return await self.git.ok(args, cwd=cwd, action=action, **kw)
        last = [""]
        task = asyncio.create_task(
            self.git.ok(
                [args[0], "--progress", *args[1:]],
                cwd=cwd,
                action=action,
                on_stderr=lambda line: last.__setitem__(0, line),
                **kw,
            )
        )
        start = time.monotonic()
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=self.progress_interval_s)
                if done:
                    return task.result()
                elapsed = time.monotonic() - start
                await report_progress(on_progress, elapsed, f"{action}: {elapsed:.0f}s | {last[0]}")
        finally:
            if not task.done():
                task.cancel()

    async def prepare(self, ws: Workspace) -> None:
        """Before the server's git touches a clone that a user command may have modified.

        The caller holds the workspace lock: lock files left by a killed git go first.
        """
        heal_stale_locks(ws.repo, reason="before a server git call")
        await self.git.sanitise(ws.repo, self.url(ws))
        info = ws.repo / ".git" / "info"
        if info.is_symlink():
            info.unlink()
        info.mkdir(exist_ok=True)
        exclude = info / "exclude"
        current = (read_nofollow(exclude, 1 << 20) or b"").decode(errors="replace")
        line = f"/{VENV_DIR}/"
        if line not in current.splitlines():
            sep = "" if not current or current.endswith("\n") else "\n"
            atomic_write(exclude, f"{current}{sep}{line}\n")

    async def healthy(self, ws: Workspace) -> bool:
        """Whether git can still read the clone locally (HEAD, objects, index)."""
        for args in (
            ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
            ["status", "--porcelain", "-z", "--untracked-files=no"],
        ):
            if (await self.run(ws, args)).rc != 0:
                return False
        return True

    async def kind(self, ws: Workspace) -> RefKind:
        if ws.kind is None:
            kind: RefKind = "commit"
            for candidate, prefix in (("branch", "refs/remotes/origin/"), ("tag", "refs/tags/")):
                res = await self.run(ws, ["show-ref", "--verify", "--quiet", prefix + ws.ref])
                if res.rc == 0:
                    kind = candidate  # type: ignore[assignment]
                    break
            ws.kind = kind
        return ws.kind

    async def target(self, ws: Workspace) -> str:
        """What the workspace tracks: the remote branch, the tag's commit, or the commit."""
        name = {
            "branch": f"refs/remotes/origin/{ws.ref}",
            "tag": f"refs/tags/{ws.ref}^{{commit}}",
            "commit": f"{ws.ref}^{{commit}}",
        }[await self.kind(ws)]
        return (await self.out(ws, ["rev-parse", "--verify", "--quiet", name], "resolve")).strip()

    async def head(self, ws: Workspace) -> str:
        return (await self.out(ws, ["rev-parse", "HEAD"], "rev-parse")).strip()

    async def branch(self, ws: Workspace) -> str | None:
        res = await self.run(ws, ["symbolic-ref", "--quiet", "--short", "HEAD"])
        if res.rc != 0:
            return None
        return res.stdout.strip() or None

    # --- clone, fetch, reset ------------------------------------------------------------

    async def ensure_cloned(self, ws: Workspace, on_progress: Progress | None) -> bool:
        """Clone when missing; True when this call created the clone."""
        if ws.cloned():
            return False
        if ws.repo.exists() or ws.repo.is_symlink():
            raise GitHubMCPError(
                ErrorCode.CONFLICT,
                "the workspace exists but is not a git clone any more",
                hint="call ensure_workspace_clone with reset=true to re-create it",
            )
        ws.dir.mkdir(parents=True, exist_ok=True)
        for d in (ws.dir.parent, ws.dir):
            # Ours; a command user may traverse them but never rename what they hold.
            os.chmod(d, 0o755 if self.identity else 0o700)
        tmp = ws.dir / f".clone-{secrets.token_hex(4)}"
        try:
            await self._clone_into(ws, tmp, on_progress)
            os.replace(tmp, ws.repo)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        self.git.forget(ws.repo)
        ws.kind = None
        await self.prepare(ws)
        for d in (ws.home, ws.tmp):
            d.mkdir(exist_ok=True)
        self.hand_over(ws)
        return True

    async def _clone_into(self, ws: Workspace, dest: Path, on_progress: Progress | None) -> None:
        auth = await self.auth(ws)
        url = auth["url"]
        base = ["clone", "--filter=blob:none"]
        await client_log.info(f"cloning {ws.full_name} at {ws.ref}")
        try:
            await self.with_progress(
                [*base, "--single-branch", "--branch", ws.ref, "--", url, str(dest)],
                cwd=ws.dir,
                action="clone",
                on_progress=on_progress,
                **auth,
            )
            return
        except GitHubMCPError as err:
            if err.details.get("reason") != "ref_not_found" or not HEX_SHA.match(ws.ref):
                raise
        # A commit SHA: clone every branch without checkout, then resolve and detach.
        shutil.rmtree(dest, ignore_errors=True)
        await self.with_progress(
            [*base, "--no-checkout", "--", url, str(dest)],
            cwd=ws.dir,
            action="clone",
            on_progress=on_progress,
            **auth,
        )
        rev = ["rev-parse", "--verify", "--quiet", f"{ws.ref}^{{commit}}"]
        found = await self.git(rev, cwd=dest)
        if found.rc != 0 and len(ws.ref) in (40, 64):
            fetch = ["fetch", "--quiet", "origin", ws.ref]
            await self.git(fetch, cwd=dest, auth_header=auth["auth_header"], url=url)
            found = await self.git(rev, cwd=dest)
        if found.rc != 0:
            raise GitHubMCPError(
                ErrorCode.NOT_FOUND,
                f"ref {ws.ref!r} is not a branch, tag or commit of {ws.full_name}",
                reason="ref_not_found",
                hint=("Check the name with list_branches or list_tags, or give a full commit SHA."),
            )
        checkout = ["checkout", "--quiet", "--detach", found.stdout.strip()]
        await self.git.ok(checkout, cwd=dest, action="checkout", **auth)

    async def fetch(self, ws: Workspace, on_progress: Progress | None) -> None:
        kind = await self.kind(ws)
        if kind == "commit":
            return  # a commit never changes
        if kind == "branch":
            refspec = f"+refs/heads/{ws.ref}:refs/remotes/origin/{ws.ref}"
        else:
            refspec = f"+refs/tags/{ws.ref}:refs/tags/{ws.ref}"
        await client_log.info(f"fetching {ws.full_name} at {ws.ref}")
        await self.with_progress(
            ["fetch", "--no-write-fetch-head", "origin", refspec],
            cwd=ws.repo,
            action="fetch",
            on_progress=on_progress,
            **(await self.auth(ws)),
        )

    async def reset(self, ws: Workspace) -> None:
        """Match the remote exactly: drop local commits, changes and untracked files."""
        if await self.kind(ws) == "branch":
            args = ["checkout", "-q", "-f", "-B", ws.ref, f"refs/remotes/origin/{ws.ref}"]
        else:
            args = ["checkout", "-q", "-f", "--detach", await self.target(ws)]
        await self.out(ws, args, "reset", **(await self.auth(ws)))
        await self.out(ws, ["clean", "-ffdxq", "-e", f"/{VENV_DIR}"], "clean")

    def hand_over(self, ws: Workspace) -> None:
        """Give the tree to the unprivileged command user (no-op when commands run as us).

        The workspace directory itself stays ours, so `repo`, `home` and `tmp` cannot be
        swapped for symlinks; fwalk works on directory fds and never follows a link.
        """
        ident = self.identity
        if ident is None:
            return
        for top in (ws.repo, ws.home, ws.tmp):
            if not top.is_dir() or top.is_symlink():
                continue
            for _root, dirs, files, dir_fd in os.fwalk(top, follow_symlinks=False):
                os.fchown(dir_fd, ident.uid, ident.gid)
                for name in dirs + files:
                    os.chown(name, ident.uid, ident.gid, dir_fd=dir_fd, follow_symlinks=False)

    # --- state ------------------------------------------------------------------------

    async def status(self, ws: Workspace) -> list[StatusEntry]:
        args = ["status", "--porcelain=v1", "-z", "--untracked-files=all"]
        return parse_porcelain_z(await self.out(ws, args, "status"))

    async def ahead_behind(self, ws: Workspace, remote: str | None) -> tuple[int, int]:
        if not remote:
            return 0, 0
        args = ["rev-list", "--left-right", "--count", f"HEAD...{remote}"]
        ahead, behind = (int(x) for x in (await self.out(ws, args, "compare")).split())
        return ahead, behind

    async def state(self, ws: Workspace, *, created: bool, reset: bool) -> CloneState:
        head = await self.head(ws)
        remote = await self.target(ws) or None
        ahead, behind = await self.ahead_behind(ws, remote)
        status = await self.status(ws)
        return CloneState(
            full_name=ws.full_name,
            ref=ws.ref,
            kind=await self.kind(ws),
            path=str(ws.repo),
            branch=await self.branch(ws),
            head_sha=head,
            remote_sha=remote,
            ahead=ahead,
            behind=behind,
            dirty=bool(status),
            changed_files=[e.path for e in status[:MAX_LISTED]],
            changed_files_total=len(status),
            created=created,
            reset=reset,
            refresh="cloned" if created else "reset",  # a reused clone's is set by its caller
        )
