"""Running one untrusted command: limits, capped capture, progress, and a kill that leaves nothing.

Each command is the leader of a new session. It gets rlimits (CPU, address space, file
size, core, processes), joins its own cgroup when the host allows (see
`workspace_cgroups`), and may drop to an unprivileged uid. When it ends, times out or is
cancelled, every process it started is found and killed: the cgroup's members, plus a walk
of /proc for its descendants, its session and process group, and any process whose
environment carries the run's marker (which catches daemons that called `setsid` and were
re-parented to init); that walk of /proc is `_proctree`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring import tracing
from github_mcp.services.workspace._capture import OutputCapture, pump
from github_mcp.services.workspace._cgroups import CgroupPlan, CommandCgroup
from github_mcp.services.workspace._child_setup import Identity, Limits, make_preexec, rlimits
from github_mcp.services.workspace._proctree import (
    RUN_MARKER,
    find_tree,
    signal_all,
)

log = logging.getLogger(__name__)

ProgressCallback = Callable[[float, str], "Awaitable[None] | None"]


@dataclass
class ProcSpec:
    argv: list[str]
    cwd: Path
    env: dict[str, str]
    timeout_s: float
    limits: Limits = field(default_factory=Limits)
    identity: Identity | None = None
    cgroups: CgroupPlan | None = None
    stdout_max_chars: int = 12000
    stderr_max_chars: int = 6000
    keep_tail_chars: int = 0
    kill_grace_s: float = 2.0
    on_progress: ProgressCallback | None = None
    progress_interval_s: float = 2.0
    label: str = "command"


@dataclass
class ProcResult:
    exit_code: int | None
    timed_out: bool
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    duration_s: float
    killed_by: str | None
    stdout_tail: str = ""  # up to keep_tail_chars, for parsers
    containment: str = ""


async def report_progress(cb: ProgressCallback | None, elapsed: float, message: str) -> None:
    if cb is None:
        return
    try:
        res = cb(elapsed, message)
        if inspect.isawaitable(res):
            await res
    except Exception:  # a broken progress sink must not break the command
        log.debug("progress callback failed", exc_info=True)


async def _leader_exit(proc: asyncio.subprocess.Process) -> None:
    """Resolves when the leader exits, even while its orphans still hold the pipes.

    (`Process.wait()` in 3.11 also waits for the pipes to close.)
    """
    try:
        fd = os.pidfd_open(proc.pid)
    except OSError:
        fd = -1
    if fd < 0:
        while proc.returncode is None:  # noqa: ASYNC110 - no pidfd: poll the exit status
            await asyncio.sleep(0.05)
        return
    loop = asyncio.get_running_loop()
    exited = loop.create_future()

    def wake() -> None:
        if not exited.done():
            exited.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await exited
    finally:
        loop.remove_reader(fd)
        os.close(fd)


class _Tracker:
    """Finds and kills everything a run started."""

    def __init__(self, leader: int, run_id: str, cgroup: CommandCgroup | None) -> None:
        self.leader, self.run_id, self.cgroup = leader, run_id, cgroup

    def members(self) -> set[int]:
        pids = find_tree(self.leader, self.run_id)
        if self.cgroup is not None:
            pids |= self.cgroup.members()
        return pids

    def kill_now(self) -> None:
        if self.cgroup is not None:
            self.cgroup.kill_all()
        for _ in range(100):
            pids = self.members()
            if not pids:
                return
            signal_all(pids, signal.SIGKILL)
            time.sleep(0.01)
        log.warning("run %s: processes survived SIGKILL: %s", self.run_id, sorted(pids))

    async def terminate(self, grace_s: float) -> None:
        signal_all(self.members(), signal.SIGTERM)
        end = time.monotonic() + grace_s
        # Nothing signals "all exited" across sessions: poll /proc and the cgroup.
        while time.monotonic() < end and self.members():  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        await asyncio.to_thread(self.kill_now)


def signal_cause(rc: int, oom: int) -> str | None:
    if oom:
        return "memory_limit"
    if rc >= 0:
        return None
    sig = -rc
    if sig == signal.SIGXCPU:
        return "cpu_limit"
    if sig == signal.SIGXFSZ:
        return "file_size_limit"
    try:
        return f"signal:{signal.Signals(sig).name}"
    except ValueError:
        return f"signal:{sig}"


# The commands running now, so a shutdown can end them cleanly (terminate_running).
RUNNING: set[_Tracker] = set()


async def terminate_running(grace_s: float) -> int:
    """End every running workspace command: SIGTERM to its whole tree, SIGKILL after
    grace_s. Each command's call then returns its result (killed by the signal)."""
    trackers = list(RUNNING)
    await asyncio.gather(*(t.terminate(grace_s) for t in trackers), return_exceptions=True)
    return len(trackers)


async def run_contained(spec: ProcSpec) -> ProcResult:
    """Run spec.argv to completion or timeout; kill whatever it leaves behind."""
    with tracing.span(
        f"workspace {spec.label}",
        **{"process.label": spec.label, "process.timeout_s": spec.timeout_s},
    ) as current:
        result = await _run_contained(spec)
        tracing.annotate(
            current,
            **{"process.exit_code": result.exit_code, "process.killed_by": result.killed_by},
        )
        return result


async def _run_contained(spec: ProcSpec) -> ProcResult:
    run_id = secrets.token_hex(8)
    env = dict(spec.env)
    env[RUN_MARKER] = run_id
    cgroup = _create_cgroup(spec, run_id)
    containment = _containment(spec, cgroup)
    preexec = make_preexec(
        cgroup.procs_files if cgroup else [], rlimits(spec.limits, spec.identity), spec.identity
    )
    start = time.monotonic()
    try:
        proc = await _spawn(spec, env, preexec, run_id, cgroup)
        return await _supervise(proc, spec, run_id, cgroup, start, containment)
    finally:
        if cgroup is not None:
            await asyncio.to_thread(cgroup.destroy)


def _create_cgroup(spec: ProcSpec, run_id: str) -> CommandCgroup | None:
    if spec.cgroups is None:
        return None
    try:
        return CommandCgroup.create(
            spec.cgroups,
            run_id,
            max_processes=spec.limits.max_processes,
            memory_mb=spec.limits.memory_mb,
        )
    except OSError as exc:
        raise GitHubMCPError(
            ErrorCode.INTERNAL,
            "could not create the command's cgroup",
            hint="check that the cgroup filesystem is writable, or disable cgroups",
        ) from exc


def _containment(spec: ProcSpec, cgroup: CommandCgroup | None) -> str:
    """What contains the command, as the result reports it (e.g. cgroup+uid:x+rlimits)."""
    return "+".join(
        x
        for x in (
            spec.cgroups.describe() if cgroup and spec.cgroups else "",
            f"uid:{spec.identity.name}" if spec.identity else "",
            "rlimits",
        )
        if x
    )


async def _spawn(
    spec: ProcSpec,
    env: dict[str, str],
    preexec: Callable[[], None],
    run_id: str,
    cgroup: CommandCgroup | None,
) -> asyncio.subprocess.Process:
    # The spawn is shielded: cancelled half-way, asyncio would kill only the leader
    # and wait on it, which can hang; here a cancelled start is finished, its whole
    # process tree killed and reaped, and the cancellation passed on.
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *spec.argv,
            cwd=spec.cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            preexec_fn=preexec,
        )
    )
    try:
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:
        await _kill_started(spawn, run_id, cgroup)
        raise
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        raise GitHubMCPError(
            ErrorCode.INTERNAL,
            f"could not start {spec.label}",
            hint="the executable, the working directory or the sandbox setup is unavailable",
            reason=type(exc).__name__,
        ) from exc


async def _kill_started(
    spawn: asyncio.Future[asyncio.subprocess.Process], run_id: str, cgroup: CommandCgroup | None
) -> None:
    """After a cancelled start: let the spawn finish, then kill everything it began."""
    try:
        proc = await spawn
    except Exception:
        return  # it never started
    tracker = _Tracker(proc.pid, run_id, cgroup)
    await asyncio.to_thread(tracker.kill_now)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    await proc.wait()


async def _supervise(
    proc: asyncio.subprocess.Process,
    spec: ProcSpec,
    run_id: str,
    cgroup: CommandCgroup | None,
    start: float,
    containment: str,
) -> ProcResult:
    out = OutputCapture(spec.stdout_max_chars, spec.keep_tail_chars)
    err = OutputCapture(spec.stderr_max_chars)
    readers = [
        asyncio.create_task(pump(proc.stdout, out)),
        asyncio.create_task(pump(proc.stderr, err)),
    ]
    waiter = asyncio.create_task(_leader_exit(proc))
    tracker = _Tracker(proc.pid, run_id, cgroup)
    RUNNING.add(tracker)
    try:
        timed_out = await _wait_reporting(waiter, spec, start, out)
        if timed_out:
            await tracker.terminate(spec.kill_grace_s)
        else:
            # Background jobs do not outlive the command that started them.
            await asyncio.to_thread(tracker.kill_now)
        _done, pending = await asyncio.wait(readers, timeout=5.0)
        for task in pending:
            task.cancel()
        await proc.wait()
    except BaseException:
        # Cancelled by the caller (or failing): nothing may survive us.
        RUNNING.discard(tracker)
        tracker.kill_now()
        waiter.cancel()
        for task in readers:
            task.cancel()
        raise
    RUNNING.discard(tracker)
    return _result(proc, spec, cgroup, timed_out, out, err, start, containment)


async def _wait_reporting(
    waiter: asyncio.Task[None], spec: ProcSpec, start: float, out: OutputCapture
) -> bool:
    """Wait for the leader to exit, reporting progress; True when the timeout came first."""
    deadline = start + spec.timeout_s
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True
        done, _ = await asyncio.wait({waiter}, timeout=min(remaining, spec.progress_interval_s))
        if waiter in done:
            return False
        elapsed = time.monotonic() - start
        msg = f"{spec.label}: {elapsed:.0f}s elapsed (timeout {spec.timeout_s:.0f}s)"
        if out.last_line:
            msg += f" | {out.last_line}"
        await report_progress(spec.on_progress, elapsed, msg)


def _result(
    proc: asyncio.subprocess.Process,
    spec: ProcSpec,
    cgroup: CommandCgroup | None,
    timed_out: bool,
    out: OutputCapture,
    err: OutputCapture,
    start: float,
    containment: str,
) -> ProcResult:
    rc = proc.returncode if proc.returncode is not None else -signal.SIGKILL
    oom = cgroup.oom_kills() if cgroup else 0
    killed_by = "timeout" if timed_out else signal_cause(rc, oom)
    exit_code = None if timed_out else (rc if rc >= 0 else 128 - rc)
    return ProcResult(
        exit_code=exit_code,
        timed_out=timed_out,
        stdout=out.text(),
        stderr=err.text(),
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        duration_s=round(time.monotonic() - start, 3),
        killed_by=killed_by,
        stdout_tail=out.tail_text(spec.keep_tail_chars),
        containment=containment,
    )
