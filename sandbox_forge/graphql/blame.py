"""`Commit.blame(path:)` and `Commit.author` by GitHub's GraphQL schema, from real
`git blame --porcelain` on the bare repository (an argument list, never a shell string).

A range is a run of lines git attributes to one commit. `age` is GitHub's recency bucket
from 1 (newest) to 10 (oldest); the forge spreads the file's commits' author times evenly
over the ten buckets (GitHub derives it from the median age, which it does not publish)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from sandbox_forge.graphql.context import Context, GQLFailure
from sandbox_forge.graphql.git_objects import CommitView
from sandbox_forge.graphql.views import UserView
from sandbox_forge.kernel.formats import iso
from sandbox_forge.stores.records import RepoRecord

BLAME_SDL = """
scalar GitTimestamp

type GitActor {
  avatarUrl(size: Int): URI!
  date: GitTimestamp
  email: String
  name: String
  user: User
}

type BlameRange {
  age: Int!
  commit: Commit!
  endingLine: Int!
  startingLine: Int!
}

type Blame {
  ranges: [BlameRange!]!
}

extend type Commit {
  author: GitActor
  blame(path: String!): Blame!
}
"""

# A porcelain group header: commit, line in the original file, line here, lines in group.
_HEADER = re.compile(rb"^([0-9a-f]{40}) \d+ (\d+) (\d+)$")


class GitActorView:
    def __init__(self, ctx: Context, name: str, email: str, timestamp: int):
        self.ctx = ctx
        self.name, self.email, self.date = name, email, iso(timestamp)
        found = ctx.state.user_by_email(email)
        self.user = UserView(ctx, found) if found is not None else None

    def avatarUrl(self, info: Any, size: int | None = None) -> str:
        suffix = f"&s={size}" if size else ""
        digest = hashlib.sha256(self.email.lower().encode()).hexdigest()[:16]
        return f"{self.ctx.urls.web}/avatars/e/{digest}?v=4{suffix}"


def commit_author(self: CommitView, info: Any) -> GitActorView:
    author = self.repo.git.read_commit(self.oid).author
    return GitActorView(info.context, author.name, author.email, author.timestamp)


def commit_blame(self: CommitView, info: Any, path: str) -> dict[str, Any]:
    ctx: Context = info.context
    repo: RepoRecord = self.repo
    entry = repo.git.entry_at(self.oid, path) if _plain(path) else None
    if entry is None or entry.type != "blob":
        raise GQLFailure("NOT_FOUND", f"Could not resolve file for path '{path}'.")
    groups = _groups(repo, self.oid, path)
    times = {sha: repo.git.read_commit(sha).author.timestamp for sha, _, _ in groups}
    ranges = [
        {
            "startingLine": start,
            "endingLine": start + count - 1,
            "age": _age(times[sha], times.values()),
            "commit": CommitView(ctx, repo, sha),
        }
        for sha, start, count in groups
    ]
    return {"ranges": ranges}


def _plain(path: str) -> bool:
    """A path as a tree names it: no empty, `.` or `..` segment, no leading slash."""
    parts = path.split("/")
    return bool(path) and all(p not in ("", ".", "..") for p in parts)


def _groups(repo: RepoRecord, commit: str, path: str) -> list[tuple[str, int, int]]:
    """(commit, first line, line count) for each porcelain group, in file order."""
    out = repo.git.run("blame", "--porcelain", commit, "--", path)
    found = []
    for line in out.split(b"\n"):
        match = _HEADER.match(line)
        if match:
            found.append((match[1].decode(), int(match[2]), int(match[3])))
    return found


def _age(when: int, every: Any) -> int:
    newest, oldest = max(every), min(every)
    if newest == oldest:
        return 1
    return 1 + round(9 * (newest - when) / (newest - oldest))
