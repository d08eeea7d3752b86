"""Files inside a clone the server reads or writes itself: .git/config as allowed keys only,
atomic writes, reads that never follow a symlink, and a check that .git is intact."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from pathlib import Path

# Keys a user command may leave in .git/config; anything else is dropped before server use.
ALLOWED_KEYS = {
    "core.repositoryformatversion",
    "core.filemode",
    "core.bare",
    "core.logallrefupdates",
    "core.symlinks",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "remote.origin.url",
    "remote.origin.fetch",
    "remote.origin.promisor",
    "remote.origin.partialclonefilter",
    "remote.origin.tagopt",
    "extensions.partialclone",
    "extensions.objectformat",
    "user.name",
    "user.email",
    "pull.rebase",
    "pull.ff",
}
ALLOWED_BRANCH_KEY = re.compile(r"^branch\..+\.(remote|merge|rebase)$")


def _quote(value: str) -> str:
    esc = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{esc}"'


def render_config(entries: list[tuple[str, str]]) -> str:
    sections: dict[tuple[str, str | None], list[tuple[str, str]]] = {}
    for name, value in entries:
        section, _, rest = name.partition(".")
        sub, _, key = rest.rpartition(".")
        sections.setdefault((section, sub or None), []).append((key, value))
    out = []
    for (section, subsection), items in sections.items():
        if subsection is None:
            out.append(f"[{section}]")
        else:
            quoted = subsection.replace(chr(92), chr(92) * 2).replace(chr(34), "")
            out.append(f'[{section} "{quoted}"]')
        out.extend(f"\t{key} = {_quote(value)}" for key, value in items)
    return "\n".join(out) + "\n"


def atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".mcp-")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)  # replaces a symlink rather than writing through it
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_nofollow(path: Path, max_bytes: int) -> bytes | None:
    """Read a regular file without following a symlink planted by a user command."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, size = [], 0
        while size <= max_bytes and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def git_dir_intact(repo: Path) -> bool:
    """False when `.git` was swapped for a link, a gitfile or a pointer to another repo."""
    git_dir = repo / ".git"
    if git_dir.is_symlink() or not git_dir.is_dir():
        return False
    return not any(
        (git_dir / name).exists() or (git_dir / name).is_symlink()
        for name in ("commondir", "gitdir")
    )
