"""What a command's child process sets up between fork and exec: its cgroup, rlimits, uid."""

from __future__ import annotations

import os
import resource
from collections.abc import Callable
from dataclasses import dataclass

from github_mcp.services.workspace._proctree import count_user_tasks


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int | None = None
    address_space_mb: int | None = None
    max_file_mb: int | None = None
    max_processes: int | None = None
    memory_mb: int | None = None  # enforced through the cgroup only


@dataclass(frozen=True)
class Identity:
    uid: int
    gid: int
    name: str


def rlimits(limits: Limits, identity: Identity | None) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = [(resource.RLIMIT_CORE, 0, 0)]
    if limits.cpu_seconds:
        out.append((resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 5))
    if limits.address_space_mb:
        size = limits.address_space_mb * 1024 * 1024
        out.append((resource.RLIMIT_AS, size, size))
    if limits.max_file_mb:
        size = limits.max_file_mb * 1024 * 1024
        out.append((resource.RLIMIT_FSIZE, size, size))
    if limits.max_processes:
        # Counted per real uid across the host, and ignored for root: give the uid headroom.
        uid = identity.uid if identity else os.getuid()
        if uid != 0:
            n = count_user_tasks(uid) + limits.max_processes
            out.append((resource.RLIMIT_NPROC, n, n))
    return out


def make_preexec(
    cgroup_files: list[str], limits: list[tuple[int, int, int]], identity: Identity | None
) -> Callable[[], None]:
    def preexec() -> None:  # runs in the child between fork and exec
        pid = str(os.getpid()).encode()
        for path in cgroup_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)
        for res, soft, hard in limits:
            resource.setrlimit(res, (soft, hard))
        if identity is not None:
            os.setgroups([])
            os.setgid(identity.gid)
            os.setuid(identity.uid)

    return preexec
