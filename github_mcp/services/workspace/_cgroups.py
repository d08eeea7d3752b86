"""Per-command cgroups: the one mechanism that caps a process tree's size and memory for root.

RLIMIT_NPROC is not enforced for root, and rlimits are per process, so a fork bomb or a
tree of modest processes escapes them. A cgroup counts every descendant, survives
`setsid`, and lets us find and kill each member. Two layouts are supported:

- cgroup v2: a delegated, writable subtree of the server's own cgroup with the `pids` and
  `memory` controllers (`pids.max`, `memory.max`, `memory.swap.max`, `cgroup.kill`).
- cgroup v1: writable `pids` and `memory` hierarchies (`pids.max`,
  `memory.limit_in_bytes`, `memory.memsw.limit_in_bytes`).

Groups live at `<server's cgroup>/github-mcp-ws/<server pid>/<run id>`. Groups left by a
server that died are emptied and removed at the next start.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

GROUP_DIR = "github-mcp-ws"


@dataclass(frozen=True)
class Mount:
    point: Path
    fstype: str
    options: frozenset[str]


def parse_mountinfo(text: str) -> list[Mount]:
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields, rfields = left.split(), right.split()
        if len(fields) < 5 or len(rfields) < 3:
            continue
        point = fields[4].replace("\\040", " ")
        mounts.append(Mount(Path(point), rfields[0], frozenset(rfields[2].split(","))))
    return mounts


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """Map each v1 controller (and "" for v2) to this process's cgroup path."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for ctrl in parts[1].split(",") if parts[1] else [""]:
            out[ctrl] = parts[2]
    return out


@dataclass(frozen=True)
class CgroupPlan:
    """Where per-command groups are created: one base per hierarchy."""

    version: int
    pids_base: Path
    memory_base: Path | None  # v1 only; v2 uses pids_base for both

    def describe(self) -> str:
        if self.version == 2:
            return "cgroup2"
        return "cgroup1" + ("" if self.memory_base else " (pids only)")


def plan_cgroups(mountinfo: str, proc_cgroup: str) -> list[CgroupPlan]:
    """Candidate layouts, best first (pure: the caller probes writability)."""
    mounts = parse_mountinfo(mountinfo)
    own = parse_proc_cgroup(proc_cgroup)
    plans: list[CgroupPlan] = []
    for m in mounts:
        if m.fstype == "cgroup2" and "" in own:
            plans.append(CgroupPlan(2, m.point / own[""].lstrip("/") / GROUP_DIR, None))
    pids = next((m for m in mounts if m.fstype == "cgroup" and "pids" in m.options), None)
    mem = next((m for m in mounts if m.fstype == "cgroup" and "memory" in m.options), None)
    if pids and "pids" in own:
        mem_base = None
        if mem and "memory" in own:
            mem_base = mem.point / own["memory"].lstrip("/") / GROUP_DIR
        plans.append(CgroupPlan(1, pids.point / own["pids"].lstrip("/") / GROUP_DIR, mem_base))
    return plans


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def _prepare_v2(base: Path) -> bool:
    parent = base.parent
    ctrls = set((parent / "cgroup.controllers").read_text().split())
    if not {"pids", "memory"} <= ctrls:
        return False
    enabled = set((parent / "cgroup.subtree_control").read_text().split())
    if not {"pids", "memory"} <= enabled:
        try:
            _write(parent / "cgroup.subtree_control", "+pids +memory")
        except OSError:
            # "No internal processes": a non-root group that holds processes cannot
            # hand controllers to children. When we are its only process, move into a leaf.
            procs = (parent / "cgroup.procs").read_text().split()
            if procs != [str(os.getpid())]:
                return False
            leaf = parent / "github-mcp-server"
            leaf.mkdir(exist_ok=True)
            _write(leaf / "cgroup.procs", str(os.getpid()))
            _write(parent / "cgroup.subtree_control", "+pids +memory")
    base.mkdir(exist_ok=True)
    if not {"pids", "memory"} <= set((base / "cgroup.subtree_control").read_text().split()):
        _write(base / "cgroup.subtree_control", "+pids +memory")
    return True


def _probe(plan: CgroupPlan) -> bool:
    try:
        if plan.version == 2:
            if not _prepare_v2(plan.pids_base):
                return False
        else:
            plan.pids_base.mkdir(exist_ok=True)
            if plan.memory_base is not None:
                plan.memory_base.mkdir(exist_ok=True)
        probe = plan.pids_base / f"probe-{os.getpid()}"
        probe.mkdir(exist_ok=True)
        ok = (probe / "pids.max").exists()
        probe.rmdir()
        return ok
    except OSError as exc:
        log.debug("cgroup plan %s unusable: %s", plan, exc)
        return False


_detected: list[CgroupPlan | None] = []


def detect_cgroups() -> CgroupPlan | None:
    """The first writable layout, or None (probed once per process).

    Also removes groups left behind by servers that died.
    """
    if not _detected:
        _detected.append(_detect())
    return _detected[0]


def _detect() -> CgroupPlan | None:
    try:
        mountinfo = Path("/proc/self/mountinfo").read_text()
        own = Path("/proc/self/cgroup").read_text()
    except OSError:
        return None
    for plan in plan_cgroups(mountinfo, own):
        if _probe(plan):
            _reap_stale(plan)
            atexit.register(_remove_own_dirs, plan)
            return plan
    return None


def _remove_own_dirs(plan: CgroupPlan) -> None:
    for base in (plan.pids_base, plan.memory_base):
        if base is not None:
            with contextlib.suppress(OSError):
                (base / str(os.getpid())).rmdir()


def _pid_alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def _reap_stale(plan: CgroupPlan) -> None:
    for base in (plan.pids_base, plan.memory_base):
        if base is None or not base.is_dir():
            continue
        for server_dir in base.iterdir():
            if not server_dir.is_dir() or not server_dir.name.isdigit():
                continue
            if _pid_alive(int(server_dir.name)):
                continue
            for group in [p for p in server_dir.iterdir() if p.is_dir()]:
                CommandCgroup([group], plan.version).destroy()
            try:
                server_dir.rmdir()
            except OSError:
                pass


class CommandCgroup:
    """The group(s) one user command runs in."""

    def __init__(self, dirs: list[Path], version: int) -> None:
        self.dirs = dirs
        self.version = version

    @classmethod
    def create(
        cls, plan: CgroupPlan, run_id: str, *, max_processes: int | None, memory_mb: int | None
    ) -> CommandCgroup:
        bases = [plan.pids_base] + ([plan.memory_base] if plan.memory_base else [])
        dirs = [b / str(os.getpid()) / run_id for b in bases]
        group = cls(dirs, plan.version)
        try:
            for d in dirs:
                d.mkdir(parents=True)
            pids_dir = dirs[0]
            if max_processes:
                _write(pids_dir / "pids.max", str(max_processes))
            if memory_mb:
                limit = str(memory_mb * 1024 * 1024)
                if plan.version == 2:
                    _write(pids_dir / "memory.max", limit)
                    if (pids_dir / "memory.swap.max").exists():
                        _write(pids_dir / "memory.swap.max", "0")
                elif plan.memory_base is not None:
                    mem_dir = dirs[1]
                    _write(mem_dir / "memory.limit_in_bytes", limit)
                    if (mem_dir / "memory.memsw.limit_in_bytes").exists():
                        _write(mem_dir / "memory.memsw.limit_in_bytes", limit)
        except OSError:
            group.destroy()
            raise
        return group

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def members(self) -> set[int]:
        pids: set[int] = set()
        for d in self.dirs:
            try:
                pids.update(int(p) for p in (d / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return pids

    def oom_kills(self) -> int:
        if self.version == 2:
            name, d = "memory.events", self.dirs[0]
        elif len(self.dirs) > 1:
            name, d = "memory.oom_control", self.dirs[1]
        else:
            return 0
        try:
            for line in (d / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def kill_all(self, deadline_s: float = 5.0) -> None:
        """SIGKILL every member until the group is empty (pids.max bounds the chase)."""
        if self.version == 2 and (self.dirs[0] / "cgroup.kill").exists():
            try:
                _write(self.dirs[0] / "cgroup.kill", "1")
            except OSError:
                pass
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            pids = self.members()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)
        log.warning("cgroup %s still has members after kill", self.dirs[0])

    def destroy(self) -> None:
        self.kill_all()
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
