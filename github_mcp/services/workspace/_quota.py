"""Quotas on one workspace root (in hosted sign-in, one user's): how many clones it may
hold and how much disk it may use.

Admission happens before the work that grows the root: a new clone needs a free clone
slot and the root under its byte quota; a command needs the root under its byte quota.
A running command can still write past the quota (each file is bounded by the file-size
rlimit); the next command or clone is then refused until space is freed. Commits and
pushes are never refused, so work can always be saved.

Sizes are disk blocks actually used, each inode counted once, symlinks never followed.
A workspace directory is measured again only after the manager worked in it; the server's
own directory (`.server`: git home, scratch repos) is measured at every check.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError

# Written beside `repo/` when a clone is made: names the clone in quota errors.
IDENTITY_FILE = "workspace.json"
_LISTED_CLONES = 50
_SERVER_DIR = ".server"


@dataclass(frozen=True)
class QuotaLimits:
    """0 means no limit."""

    max_clones: int = 0
    max_bytes: int = 0


def tree_bytes(top: Path) -> int:
    """Disk bytes used under `top` (blocks × 512, hard links once, no symlink followed)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    stack = [top]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            total += info.st_blocks * 512
            if stat.S_ISDIR(info.st_mode):
                stack.append(Path(entry.path))
    return total


def format_bytes(count: int) -> str:
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} B"


def write_identity(ws_dir: Path, full_name: str, ref: str) -> None:
    (ws_dir / IDENTITY_FILE).write_text(json.dumps({"full_name": full_name, "ref": ref}))


def _identity(ws_dir: Path) -> dict[str, str]:
    try:
        data = json.loads((ws_dir / IDENTITY_FILE).read_text())
        return {"full_name": str(data["full_name"]), "ref": str(data["ref"])}
    except (OSError, ValueError, KeyError, TypeError):
        return {"directory": f"{ws_dir.parent.name}/{ws_dir.name}"}


class WorkspaceQuota:
    """Clone and byte accounting for one workspace root."""

    def __init__(self, root: Path, limits: QuotaLimits) -> None:
        self.root = root
        self.limits = limits
        self._sizes: dict[Path, int] | None = None  # workspace dir -> bytes
        self._stale: set[Path] = set()
        self._admitting: set[Path] = set()  # clones admitted and still being made

    @property
    def enabled(self) -> bool:
        return bool(self.limits.max_clones or self.limits.max_bytes)

    def workspace_dirs(self) -> list[Path]:
        """Every `<owner>__<repo>/<ref>-<hash>` directory holding a clone (or its remains)."""
        found: list[Path] = []
        for group in _subdirs(self.root):
            if group.name == _SERVER_DIR:
                continue
            found.extend(d for d in _subdirs(group) if (d / "repo").exists())
        return sorted(found)

    def touched(self, ws_dir: Path) -> None:
        """The manager worked in this workspace: measure it again at the next check."""
        self._stale.add(ws_dir)

    def forget(self, ws_dir: Path) -> None:
        if self._sizes is not None:
            self._sizes.pop(ws_dir, None)
        self._stale.discard(ws_dir)

    async def usage(self) -> tuple[dict[Path, int], int]:
        """(bytes per workspace dir, bytes of the whole root)."""
        sizes, server = await asyncio.to_thread(self._measure)
        return sizes, sum(sizes.values()) + server

    def _measure(self) -> tuple[dict[Path, int], int]:
        present = self.workspace_dirs()
        known = self._sizes if self._sizes is not None else {}
        sizes = {
            d: known[d] if d in known and d not in self._stale else tree_bytes(d) for d in present
        }
        self._sizes, self._stale = sizes, set()
        return sizes, tree_bytes(self.root / _SERVER_DIR)

    async def admit_clone(self, ws_dir: Path) -> None:
        """Reserve a clone slot for `ws_dir`, or raise quota_exceeded. Release with
        `cloned` whether or not the clone was made."""
        if not self.enabled:
            return
        sizes, used = await self.usage()
        others = (set(sizes) | self._admitting) - {ws_dir}
        limit = self.limits.max_clones
        if limit and len(others) >= limit:
            raise self._refusal(
                "clones",
                f"the workspace quota of {limit} clone(s) is reached "
                "(GITHUB_MCP_WORKSPACE_MAX_CLONES_PER_USER)",
                limit=limit,
                used=len(others),
                sizes=sizes,
            )
        self._check_bytes(used, sizes, "a new clone")
        self._admitting.add(ws_dir)

    def cloned(self, ws_dir: Path) -> None:
        self._admitting.discard(ws_dir)
        self.touched(ws_dir)

    async def admit_command(self) -> None:
        """Raise quota_exceeded when the root is at or over its byte quota."""
        if self.limits.max_bytes:
            sizes, used = await self.usage()
            self._check_bytes(used, sizes, "a command")

    def _check_bytes(self, used: int, sizes: dict[Path, int], what: str) -> None:
        limit = self.limits.max_bytes
        if limit and used >= limit:
            raise self._refusal(
                "bytes",
                f"the workspace disk quota is used up: {format_bytes(used)} of "
                f"{format_bytes(limit)} (GITHUB_MCP_WORKSPACE_MAX_BYTES_PER_USER); "
                f"{what} cannot start",
                limit=limit,
                used=used,
                sizes=sizes,
            )

    def _refusal(
        self, quota: str, message: str, *, limit: int, used: int, sizes: dict[Path, int]
    ) -> GitHubMCPError:
        listed: list[dict[str, Any]] = [
            {**_identity(d), "bytes": size}
            for d, size in sorted(sizes.items(), key=lambda item: -item[1])[:_LISTED_CLONES]
        ]
        return GitHubMCPError(
            ErrorCode.QUOTA_EXCEEDED,
            message,
            hint="free space: remove_workspace_clone deletes a clone you no longer need "
            "(commit and push its work first; `clones` lists yours, largest first), and "
            "ensure_workspace_clone with reset=true deletes a clone's untracked build "
            "outputs; or ask the operator to raise the quota",
            quota=quota,
            limit=limit,
            used=used,
            clones=listed,
        )


def _subdirs(path: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(path) if e.is_dir(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        return []


def remove_tree(path: Path) -> None:
    """Remove a file, link or directory tree (for freeing a workspace or a broken clone)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    else:
        shutil.rmtree(path, onerror=_writable_and_retry)


def _writable_and_retry(function: Any, name: str, _exc: Any) -> None:
    """A command may leave a directory without write permission; give it back and retry."""
    parent = os.path.dirname(name)
    os.chmod(parent, 0o700, follow_symlinks=False)
    if os.path.isdir(name) and not os.path.islink(name):
        os.chmod(name, 0o700, follow_symlinks=False)
    function(name)
