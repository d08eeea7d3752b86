"""Commands and tests in a workspace clone: cloned on first use, run under the workspace's
lock within the quotas, with the clone's venv when asked; a test run's JUnit report is read
from the workspace's tmp/."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path

from github_mcp.services.workspace._clones import CloneKeeper
from github_mcp.services.workspace._exec import (
    CommandRunner,
    build_test_result,
    check_command,
    resolve_workdir,
    take_file,
)
from github_mcp.services.workspace._locks import heal_stale_locks
from github_mcp.services.workspace._procs import ProcResult
from github_mcp.services.workspace._quota import WorkspaceQuota
from github_mcp.services.workspace._results import CommandResult, TestRunResult
from github_mcp.services.workspace._status import is_pytest_command, runner_hint
from github_mcp.services.workspace._types import Progress, Workspace

Hold = Callable[[Workspace], AbstractAsyncContextManager[None]]


@dataclass
class Where:
    """Where and how a command runs: the workspace, its working directory, the venv."""

    ws: Workspace
    workdir: str | None
    use_venv: bool
    on_progress: Progress | None


class Commands:
    def __init__(
        self, runner: CommandRunner, clones: CloneKeeper, quota: WorkspaceQuota, hold: Hold
    ) -> None:
        self._runner, self._clones, self.quota, self._hold = runner, clones, quota, hold

    async def run(
        self, where: Where, command: str, timeout_s: float | None, allow_network: bool
    ) -> CommandResult:
        timeout = self._runner.timeout(timeout_s)
        res, _ = await self._run(where, check_command(command), timeout, allow_network, None, 0)
        return CommandResult(
            exit_code=res.exit_code,
            timed_out=res.timed_out,
            stdout=res.stdout,
            stderr=res.stderr,
            stdout_truncated=res.stdout_truncated,
            stderr_truncated=res.stderr_truncated,
            duration_s=res.duration_s,
            killed_by=res.killed_by,
            timeout_s=timeout,
        )

    async def run_tests(
        self, where: Where, test_command: str, timeout_s: float | None
    ) -> TestRunResult:
        command = check_command(test_command)
        timeout = self._runner.timeout(timeout_s)
        junit = None
        if is_pytest_command(command):
            junit = where.ws.tmp / f"junit-{secrets.token_hex(6)}.xml"
            command = f"{command} --junitxml={junit}"
        res, report = await self._run(where, command, timeout, False, junit, 400_000)
        return build_test_result(res, report, runner_hint(test_command))

    async def _run(
        self,
        where: Where,
        command: str,
        limit_s: float,
        allow_network: bool,
        report: Path | None,
        keep_tail: int,
    ) -> tuple[ProcResult, bytes | None]:
        ws, on_progress = where.ws, where.on_progress
        await self._runner.require_sandbox()
        async with self._hold(ws):
            await self._clones.clone_if_missing(ws, on_progress)
            await self.quota.admit_command()
            heal_stale_locks(ws.repo, reason="before a command")
            self._runner.prepare_dirs(ws)
            cwd = resolve_workdir(ws, where.workdir)
            env = self._runner.user_env(ws, where.use_venv)
            if where.use_venv:
                await self._runner.ensure_venv(ws, env, on_progress)
            take_file(report)  # a stale report must not pass for this run's
            try:
                res = await self._runner.execute(
                    ws,
                    [self._runner.bash, "-c", command],
                    cwd=cwd,
                    env=env,
                    timeout_s=limit_s,
                    allow_network=allow_network,
                    on_progress=on_progress,
                    label="command",
                    keep_tail_chars=keep_tail,
                )
            finally:
                self.quota.touched(ws.dir)
            return res, take_file(report)
