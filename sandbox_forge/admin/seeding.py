"""Creating repositories with content: from a dict of files or from a directory on disk.

Commits are written with `git fast-import`, so seeding thousands of files takes one process.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from sandbox_forge.git.store import GitRepo
from sandbox_forge.stores.records import RefUpdate, RepoRecord
from sandbox_forge.stores.state import ForgeState

# A file's content, (mode, content) for executables and symlinks, or None to delete it.
FileValue = Union[str, bytes, tuple[str, Union[str, bytes]], None]  # noqa: UP007
SEED_AUTHOR = ("Sandbox Seeder", "seeder@sandbox.local")


def read_directory(source: Path) -> dict[str, FileValue]:
    """Every file below source (not .git), keeping executable bits and symlinks."""
    files: dict[str, FileValue] = {}
    source = Path(source)
    for root, dirs, names in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(names):
            full = Path(root) / name
            rel = full.relative_to(source).as_posix()
            if full.is_symlink():
                files[rel] = ("120000", os.readlink(full))
            elif full.is_file():
                mode = "100755" if os.access(full, os.X_OK) else "100644"
                files[rel] = (mode, full.read_bytes())
    return files


def _quote_path(path: str) -> str:
    if path.startswith('"') or any(c in path for c in '\n\\"'):
        escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    return path


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


@dataclass(frozen=True)
class SeedCommit:
    ref: str
    files: dict[str, FileValue]
    parent: str | None  # a sha, or another commit's ref written earlier in the same batch
    message: str


def _commit_stream(commit: SeedCommit, when: int) -> bytes:
    ident = f"{SEED_AUTHOR[0]} <{SEED_AUTHOR[1]}> {when} +0000".encode()
    out = [b"commit " + commit.ref.encode() + b"\n", b"author " + ident + b"\n"]
    out += [b"committer " + ident + b"\n", _data(commit.message.encode())]
    if commit.parent:
        out.append(b"from " + commit.parent.encode() + b"\n")
    for path, value in sorted(commit.files.items()):
        quoted = _quote_path(path.strip("/")).encode()
        if value is None:
            out.append(b"D " + quoted + b"\n")
            continue
        mode, content = value if isinstance(value, tuple) else ("100644", value)
        payload = content.encode() if isinstance(content, str) else content
        out.append(b"M " + mode.encode() + b" inline " + quoted + b"\n" + _data(payload))
    return b"".join(out)


def write_commits(git: GitRepo, commits: list[SeedCommit], when: int | None = None) -> None:
    """Write commits (each one moving its ref) in a single git fast-import run."""
    stamp = when or int(time.time())
    stream = b"".join(_commit_stream(c, stamp) for c in commits) + b"done\n"
    git.run("fast-import", "--quiet", "--date-format=raw", "--done", input=stream)


def write_commit(
    git: GitRepo,
    ref: str,
    files: dict[str, FileValue],
    parent: str | None,
    message: str,
    when: int | None = None,
) -> str:
    """One commit on ref (parent None: a root commit) applying files; returns its sha."""
    write_commits(git, [SeedCommit(ref, files, parent, message)], when)
    sha = git.read_ref(ref)
    assert sha is not None
    return sha


def seed_repo(
    state: ForgeState,
    full_name: str,
    files: dict[str, FileValue] | None = None,
    *,
    default_branch: str = "main",
    private: bool = False,
    description: str = "",
    branches: dict[str, dict[str, FileValue]] | None = None,
    source_dir: str | Path | None = None,
    message: str = "Initial commit",
) -> RepoRecord:
    """Create a repository. `branches` maps a branch name to the files it changes (None
    deletes) on top of the default branch, committed as one commit."""
    content: dict[str, FileValue] = dict(read_directory(Path(source_dir))) if source_dir else {}
    content.update(files or {})
    repo = state.create_repo(
        full_name, private=private, description=description, default_branch=default_branch
    )
    main = f"refs/heads/{default_branch}"
    commits = [SeedCommit(main, content, None, message)] if content else []
    for branch, changes in (branches or {}).items():
        parent = main if content else None
        commits.append(SeedCommit(f"refs/heads/{branch}", changes, parent, f"Changes on {branch}"))
    if commits:
        write_commits(repo.git, commits)
    heads = {name: sha for name, sha, _ in repo.git.list_refs("refs/heads/")}
    for commit in commits:
        state.fire_ref_update(
            RefUpdate(repo.full_name, commit.ref, None, heads[commit.ref], "seed")
        )
    return repo


def repo_summary(repo: RepoRecord) -> dict[str, object]:
    return {
        "full_name": repo.full_name,
        "id": repo.id,
        "private": repo.private,
        "default_branch": repo.default_branch,
        "branches": {
            name[len("refs/heads/") :]: sha for name, sha, _ in repo.git.list_refs("refs/heads/")
        },
    }
