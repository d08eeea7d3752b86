"""Which processes belong to one workspace run, read from /proc: the leader's
descendants, its session and process group, and any process whose environment carries the
run's marker (a daemon that called `setsid` and was re-parented to init still has it)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

# The environment variable each run's processes inherit, naming the run.
RUN_MARKER = "WORKSPACE_RUN_ID"


def read_stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, ppid, pgrp, session) from /proc/<pid>/stat."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    rest = raw[raw.rfind(b")") + 2 :].split()
    try:
        return rest[0].decode(), int(rest[1]), int(rest[2]), int(rest[3])
    except (IndexError, ValueError):
        return None


def all_pids() -> list[int]:
    return [int(n) for n in os.listdir("/proc") if n.isdigit()]


def has_marker(pid: int, marker: bytes) -> bool:
    try:
        return marker in b"\0" + Path(f"/proc/{pid}/environ").read_bytes() + b"\0"
    except OSError:
        return False


def find_tree(leader: int, run_id: str) -> set[int]:
    """Live processes belonging to one run (never this process or its ancestors)."""
    me = os.getpid()
    marker = f"\0{RUN_MARKER}={run_id}\0".encode()
    stats = {pid: st for pid in all_pids() if pid != me and (st := read_stat(pid))}
    children: dict[int, list[int]] = {}
    found: set[int] = set()
    for pid, (state, ppid, pgrp, sid) in stats.items():
        children.setdefault(ppid, []).append(pid)
        if state != "Z" and leader in (pgrp, sid):
            found.add(pid)
    stack = [leader]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found and stats[child][0] != "Z":
                found.add(child)
                stack.append(child)
    for pid, (state, *_rest) in stats.items():
        if pid not in found and state != "Z" and has_marker(pid, marker):
            found.add(pid)
    found.discard(me)
    return found


def signal_all(pids: set[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def count_user_tasks(uid: int) -> int:
    """Threads owned by uid: what RLIMIT_NPROC actually counts on Linux."""
    count = 0
    for pid in all_pids():
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{pid}").st_uid == uid:
                count += len(os.listdir(f"/proc/{pid}/task"))
    return count
