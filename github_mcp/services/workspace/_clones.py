"""Keeping a workspace's clone usable: clone on first use inside the quotas, fetch (and reset)
after, and when a reset meets a clone broken for reasons of its own, clone again beside it and
swap only once the new clone is complete (the venv carried over)."""

from __future__ import annotations

import logging
import os
import secrets

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.workspace._gitfiles import git_dir_intact
from github_mcp.services.workspace._quota import WorkspaceQuota, remove_tree, write_identity
from github_mcp.services.workspace._repo import RepoOps
from github_mcp.services.workspace._status import VENV_DIR
from github_mcp.services.workspace._types import Progress, Workspace

log = logging.getLogger(__name__)

# Errors a fresh clone would meet again: re-cloning cannot recover from them.
NOT_THE_CLONES_FAULT = {
    ErrorCode.NOT_FOUND,
    ErrorCode.FORBIDDEN,
    ErrorCode.TIMEOUT,
    ErrorCode.UPSTREAM_ERROR,
    ErrorCode.WORKSPACE_UNAVAILABLE,
}


class LocalFailure(Exception):
    """A clone that cannot be fetched or reset for reasons of its own."""

    def __init__(self, error: GitHubMCPError) -> None:
        super().__init__(error.message)
        self.error = error


class CloneKeeper:
    """The clone lifecycle of the workspaces; every method expects the workspace held."""

    def __init__(self, ops: RepoOps, quota: WorkspaceQuota) -> None:
        self.ops = ops
        self.quota = quota

    async def bring_up(self, ws: Workspace, *, reset: bool, on_progress: Progress | None) -> bool:
        """Clone on first use, fetch after (and reset); True when it cloned. The caller
        holds the workspace. With `reset` a broken, tampered or unfetchable clone is
        replaced by a fresh one."""
        broken = not ws.cloned() or not git_dir_intact(ws.repo)
        if reset and broken and (ws.repo.exists() or ws.repo.is_symlink()):
            remove_tree(ws.repo)  # a broken or tampered workspace: start again
            self.ops.git.forget(ws.repo)
        created = await self.clone_if_missing(ws, on_progress)
        try:
            if not created:
                try:
                    await self.refresh(ws, reset, on_progress)
                except LocalFailure as failure:
                    log.warning("workspace %s: %s; cloning again", ws.dir, failure.error)
                    created = await self.reclone(ws, on_progress)
        finally:
            self.quota.touched(ws.dir)
        return created

    async def clone_if_missing(self, ws: Workspace, on_progress: Progress | None) -> bool:
        """Clone when missing, inside the clone and disk quotas; True when it cloned."""
        if ws.cloned():
            return False
        await self.quota.admit_clone(ws.dir)
        try:
            created = await self.ops.ensure_cloned(ws, on_progress)
        finally:
            self.quota.cloned(ws.dir)
        if created:
            write_identity(ws.dir, ws.full_name, ws.ref)
        return created

    async def refresh(self, ws: Workspace, reset: bool, on_progress: Progress | None) -> None:
        """Fetch (and reset). With `reset`, a failure of the clone itself (not of the
        network or the credentials) raises _LocalFailure, so the caller can re-clone."""
        try:
            try:
                await self.ops.prepare(ws)
                if reset and not await self.ops.healthy(ws):
                    raise GitHubMCPError(
                        ErrorCode.INTERNAL,
                        "the clone's repository is damaged",
                        hint=(
                            "Call ensure_workspace_clone again with reset=true, or "
                            "remove_workspace_clone and clone afresh."
                        ),
                    )
                await self.ops.fetch(ws, on_progress)
            except GitHubMCPError as err:
                if reset and (
                    err.code not in NOT_THE_CLONES_FAULT or not await self.ops.healthy(ws)
                ):
                    raise LocalFailure(err) from err
                raise
            if reset:
                try:
                    await self.ops.reset(ws)
                except GitHubMCPError as err:
                    raise LocalFailure(err) from err
        finally:
            self.ops.hand_over(ws)

    async def reclone(self, ws: Workspace, on_progress: Progress | None) -> bool:
        """Clone afresh beside the old clone; swap only when the new one is complete."""
        old = ws.dir / f".broken-{secrets.token_hex(4)}"
        os.replace(ws.repo, old)
        self.ops.git.forget(ws.repo)
        ws.kind = None
        try:
            await self.ops.ensure_cloned(ws, on_progress)
        except BaseException:
            if not ws.repo.exists():
                os.replace(old, ws.repo)  # nothing lost: the old clone is back
            raise
        venv = old / VENV_DIR
        if venv.is_dir() and not venv.is_symlink() and not (ws.repo / VENV_DIR).exists():
            os.replace(venv, ws.repo / VENV_DIR)  # same path: its scripts stay valid
        remove_tree(old)
        return True
