"""Running user commands in a workspace, and turning test output into a result."""

from __future__ import annotations

import logging
import os
import pwd
import shutil
from pathlib import Path

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.actions import parse_counts, parse_failures, parse_junit_xml
from github_mcp.services.actions.runners.base import TestFailure
from github_mcp.services.workspace._cgroups import CgroupPlan
from github_mcp.services.workspace._child_setup import Identity, Limits
from github_mcp.services.workspace._gitfiles import read_nofollow
from github_mcp.services.workspace._procs import (
    ProcResult,
    ProcSpec,
    run_contained,
    signal_cause,
)
from github_mcp.services.workspace._results import FailingTest, TestRunResult
from github_mcp.services.workspace._sandbox import (
    SANDBOX_NONE_HINT,
    bwrap_argv,
    bwrap_supports,
    find_bwrap,
    scrub_env,
    unavailable,
    untraversable,
)
from github_mcp.services.workspace._status import VENV_DIR
from github_mcp.services.workspace._types import Progress, Workspace, WorkspaceConfig

log = logging.getLogger(__name__)

MAX_COMMAND_CHARS = 32768
MAX_FAILING = 50


class CommandRunner:
    """Starts user commands with the workspace's environment, limits and sandbox."""

    def __init__(
        self, config: WorkspaceConfig, identity: Identity | None, cgroups: CgroupPlan | None
    ) -> None:
        self.config = config
        self.identity = identity
        self.cgroups = cgroups
        mem_cgroup = cgroups is not None and (cgroups.version == 2 or cgroups.memory_base)
        address_space = config.address_space_mb
        if address_space is None:
            address_space = config.memory_mb * 4 if mem_cgroup else config.memory_mb
        self.limits = Limits(
            cpu_seconds=config.cpu_seconds or None,
            address_space_mb=address_space or None,
            max_file_mb=config.max_file_mb or None,
            max_processes=config.max_processes or None,
            memory_mb=config.memory_mb or None,
        )
        self.bash = shutil.which("bash") or "/bin/bash"
        self._bwrap_ok = False

    def timeout(self, timeout_s: float | None) -> float:
        if timeout_s is None:
            return self.config.default_timeout_s
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float) or timeout_s <= 0:
            raise GitHubMCPError(
                ErrorCode.INVALID_INPUT,
                "timeout_seconds must be positive",
                hint=(
                    "Give timeout_seconds as a positive number (it is capped by the "
                    "server's maximum)."
                ),
            )
        return float(min(timeout_s, self.config.max_timeout_s))

    def user_env(self, ws: Workspace, use_venv: bool) -> dict[str, str]:
        """An allow-listed environment: nothing of the server's secrets or settings."""
        user = self.identity.name if self.identity else pwd.getpwuid(os.geteuid())[0]
        extra = {
            "HOME": str(ws.home),
            "TMPDIR": str(ws.tmp),
            "USER": user,
            "LOGNAME": user,
            "GIT_TERMINAL_PROMPT": "0",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            # Bytecode caches go to HOME, not into the tree that gets committed.
            "PYTHONPYCACHEPREFIX": str(ws.home / ".cache" / "pycache"),
            "GIT_AUTHOR_NAME": self.config.git_user_name,
            "GIT_AUTHOR_EMAIL": self.config.git_user_email,
            "GIT_COMMITTER_NAME": self.config.git_user_name,
            "GIT_COMMITTER_EMAIL": self.config.git_user_email,
        }
        env = scrub_env(os.environ, self.config.env_allowlist, extra)
        if use_venv:
            venv = ws.repo / VENV_DIR
            env["VIRTUAL_ENV"] = str(venv)
            env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
        return env

    def prepare_dirs(self, ws: Workspace) -> None:
        for d in (ws.home, ws.tmp):
            d.mkdir(exist_ok=True)
            if self.identity is not None:
                os.chown(d, self.identity.uid, self.identity.gid, follow_symlinks=False)

    async def ensure_venv(
        self, ws: Workspace, env: dict[str, str], on_progress: Progress | None
    ) -> None:
        venv = ws.repo / VENV_DIR
        if (venv / "bin" / "python").exists():
            return
        res = await self.execute(
            ws,
            [self.config.venv_python, "-m", "venv", str(venv)],
            cwd=ws.repo,
            env={k: v for k, v in env.items() if k != "VIRTUAL_ENV"},
            timeout_s=min(300.0, self.config.max_timeout_s),
            allow_network=False,
            on_progress=on_progress,
            label=f"creating {VENV_DIR}",
        )
        if res.exit_code != 0:
            raise GitHubMCPError(
                ErrorCode.INTERNAL,
                f"could not create {VENV_DIR}",
                hint="check that python3 and its venv module are installed",
                stderr=res.stderr[-600:],
            )

    async def execute(
        self,
        ws: Workspace,
        argv: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        timeout_s: float,
        allow_network: bool,
        on_progress: Progress | None,
        label: str,
        keep_tail_chars: int = 0,
    ) -> ProcResult:
        if self.config.sandbox == "bwrap":
            await self.require_sandbox()
            argv = self._jail(ws.dir, cwd, allow_network) + argv
        spec = ProcSpec(
            argv=argv,
            cwd=cwd,
            env=env,
            timeout_s=timeout_s,
            limits=self.limits,
            identity=self.identity,
            cgroups=self.cgroups,
            stdout_max_chars=self.config.stdout_max_chars,
            stderr_max_chars=self.config.stderr_max_chars,
            keep_tail_chars=keep_tail_chars,
            kill_grace_s=self.config.kill_grace_s,
            on_progress=on_progress,
            progress_interval_s=self.config.progress_interval_s,
            label=label,
        )
        res = await run_contained(spec)
        if self.config.sandbox == "bwrap" and res.killed_by is None and res.exit_code:
            # bwrap's init reports a command killed by signal N as exit status 128 + N.
            sig = res.exit_code - 128
            if 0 < sig < 65:
                res.killed_by = signal_cause(-sig, 0)
        return res

    def _jail(self, workspace_dir: Path, cwd: Path, allow_network: bool) -> list[str]:
        bwrap = find_bwrap(self.config.bwrap_path)
        return bwrap_argv(
            bwrap,
            workspace_dir=workspace_dir,
            cwd=cwd,
            allow_network=allow_network,
            ro_binds=self.config.sandbox_ro_binds,
            disable_userns=bwrap_supports(bwrap, "--disable-userns"),
        )

    async def require_sandbox(self) -> None:
        """Refuse (`workspace_unavailable`) unless bubblewrap can build the jail here.

        Probed with the real options, the real identity and a real workspace-like directory,
        until it first works; a failure is not cached, so fixing the host needs no restart.
        """
        if self.config.sandbox != "bwrap" or self._bwrap_ok:
            return
        root = self.config.root
        if self.identity is not None:
            blocked = untraversable(root.resolve())
            if blocked is not None:
                raise unavailable(
                    f"the workspace directory is not reachable by the sandbox user "
                    f"{self.identity.name!r}",
                    hint=f"let other users traverse {blocked} (chmod o+x), or set "
                    "GITHUB_MCP_WORKSPACE_DIR to a directory they can traverse, "
                    f"{SANDBOX_NONE_HINT}",
                )
        probe_dir = root / ".sandbox-probe"
        probe_dir.mkdir(exist_ok=True)
        os.chmod(probe_dir, 0o755)  # noqa: S103 - empty; the sandbox user must enter it
        jail = self._jail(probe_dir, probe_dir, allow_network=False)
        spec = ProcSpec(
            argv=[*jail, "true"],
            cwd=probe_dir,
            env={"PATH": "/usr/local/bin:/usr/bin:/bin"},
            timeout_s=30,
            identity=self.identity,
            label="sandbox probe",
        )
        res = await run_contained(spec)
        if res.exit_code != 0:
            raise unavailable(
                "bubblewrap cannot create the workspace sandbox on this host",
                hint="allow unprivileged user namespaces (sysctl "
                "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; in a "
                "container: a seccomp/AppArmor profile "
                f"that permits them, see docs/DEPLOY.md), {SANDBOX_NONE_HINT}",
                bwrap_stderr=res.stderr[-400:],
            )
        self._bwrap_ok = True


def check_command(command: object) -> str:
    if not isinstance(command, str) or not command.strip():
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "command must be a non-empty string",
            hint="Give the shell command to run, e.g. 'make test'.",
        )
    if len(command) > MAX_COMMAND_CHARS or "\0" in command:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"command must be at most {MAX_COMMAND_CHARS} characters, without NUL",
            hint=("Shorten the command; put a long script in a file in the clone and run that."),
        )
    return command


def resolve_workdir(ws: Workspace, workdir: str | None) -> Path:
    """The directory to run in: must resolve (symlinks followed) inside the clone."""
    root = ws.repo.resolve()
    if workdir is None or workdir in ("", "."):
        return root
    if not isinstance(workdir, str) or "\0" in workdir or len(workdir) > 4096:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "invalid workdir",
            hint="Give workdir as a path relative to the clone's root, e.g. 'src'.",
        )
    target = (root / workdir).resolve()
    if target != root and root not in target.parents:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "workdir resolves outside the clone",
            hint="give a directory relative to the repository root",
        )
    if not target.is_dir():
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "workdir is not a directory in the clone",
            hint=(
                "Give an existing directory of the clone; get_workspace_changes_summary "
                "shows the clone."
            ),
        )
    return target


def take_file(path: Path | None) -> bytes | None:
    """Read and delete a scratch file (never through a symlink a command planted)."""
    if path is None:
        return None
    data = read_nofollow(path, 64 << 20)
    path.unlink(missing_ok=True)
    return data


def build_test_result(
    res: ProcResult, report: bytes | None, runner: str | None = None
) -> TestRunResult:
    """Counts and failures from the JUnit report, else from the output's summary lines.

    `runner` (from the command) is used when the output alone names no runner.
    """
    counts, source = None, None
    failures: list[TestFailure] = []
    if report:
        try:
            counts, failures = parse_junit_xml(report)
            source = "junit"
        except Exception:  # a malformed report falls back to the console output
            log.info("unreadable JUnit report", exc_info=True)
    if counts is None:
        text = (res.stdout_tail or res.stdout) + "\n" + res.stderr
        counts = parse_counts(text)
        failures = parse_failures(text)
        if counts is None and not failures and runner is not None:
            counts = parse_counts(text, runner=runner)
            failures = parse_failures(text, runner=runner)
        source = "summary" if counts is not None or failures else None
    failing = [
        FailingTest(
            name=f.test, message=(f.message or "")[:2000], file=f.file or None, line=f.line or None
        )
        for f in failures[:MAX_FAILING]
    ]
    tail = (res.stdout_tail or res.stdout)[-4000:]
    if res.stderr.strip():
        tail += "\n--- stderr ---\n" + res.stderr[-2000:]
    duration = counts.duration_s if counts and counts.duration_s else res.duration_s
    return TestRunResult(
        passed=counts.passed if counts else 0,
        failed=counts.failed if counts else len(failures),
        errors=counts.errors if counts else 0,
        skipped=counts.skipped if counts else 0,
        failing=failing,
        duration_s=round(duration, 3),
        exit_code=res.exit_code,
        timed_out=res.timed_out,
        output_tail=tail,
        parsed_from=source,
        killed_by=res.killed_by,
        failing_truncated=len(failures) > MAX_FAILING,
    )
