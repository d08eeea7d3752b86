"""Releases and tags, kept as GitHub keeps them.

A release names a tag. A draft's tag need not exist: GitHub creates it (at the release's
`target_commitish`) when the release is published. Drafts are seen only by people with push
access, and the by-tag and latest lookups never find them. The latest release is the one
published with `make_latest` (the default), else the newest full release.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sandbox_forge.kernel.errors import not_found, validation_failed
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.records import RepoRecord

EXTENSION = "releases"


@dataclass
class Release:
    id: int
    tag_name: str
    target_commitish: str
    author: str
    name: str | None = None
    body: str | None = None
    draft: bool = False
    prerelease: bool = False
    created_at: float = field(default_factory=time.time)
    published_at: float | None = None
    updated_at: float = field(default_factory=time.time)
    latest_at: float | None = None  # when it was last made the latest release


def releases(repo: RepoRecord) -> dict[int, Release]:
    found: dict[int, Release] = repo.extra.setdefault(EXTENSION, {})
    return found


def newest_first(repo: RepoRecord, drafts: bool) -> list[Release]:
    items = [r for r in releases(repo).values() if drafts or not r.draft]
    return sorted(items, key=lambda r: (r.created_at, r.id), reverse=True)


def get_release(repo: RepoRecord, release_id: int, drafts: bool) -> Release:
    release = releases(repo).get(release_id)
    if release is None or (release.draft and not drafts):
        raise not_found()
    return release


def by_tag(repo: RepoRecord, tag: str) -> Release:
    for release in newest_first(repo, drafts=False):
        if release.tag_name == tag:
            return release
    raise not_found()


def latest(repo: RepoRecord) -> Release:
    full = [r for r in newest_first(repo, drafts=False) if not r.prerelease]
    chosen = [r for r in full if r.latest_at is not None]
    if chosen:
        return max(chosen, key=lambda r: (r.latest_at or 0, r.id))
    if full:
        return full[0]
    raise not_found()


def check_unique_tag(repo: RepoRecord, tag: str, except_id: int | None = None) -> None:
    for release in releases(repo).values():
        if release.tag_name == tag and release.id != except_id and not release.draft:
            raise validation_failed(
                {"resource": "Release", "code": "already_exists", "field": "tag_name"}
            )


def tag_commit(repo: RepoRecord, tag: str) -> str | None:
    """The commit a tag names (peeling an annotated tag), or None."""
    if repo.git.read_ref(f"refs/tags/{tag}") is None:
        return None
    return repo.git.resolve_commit(f"refs/tags/{tag}")


def previous_tag(repo: RepoRecord, tag: str) -> str | None:
    """Where notes start: the tag of the newest published full release other than `tag`
    (a prerelease only when there is no full one)."""
    others = [
        r
        for r in newest_first(repo, drafts=False)
        if r.tag_name != tag and tag_commit(repo, r.tag_name) is not None
    ]
    full = [r for r in others if not r.prerelease]
    return (full or others)[0].tag_name if others else None


def merged_pulls_between(
    repo: RepoRecord, since: str | None, until: str
) -> list[tuple[int, str, str]]:
    """(number, title, author) of pull requests merged into the history of `until` and
    not into `since`'s, oldest first: what generated release notes list."""
    revs = [until, f"^{since}"] if since else [until]
    added = set(repo.git.rev_list(revs))
    found = []
    for issue in collab(repo).issues.values():
        pull = issue.pull
        if pull is not None and pull.merged and pull.merge_commit_sha in added:
            found.append((issue.number, issue.title, issue.user))
    return sorted(found)


@dataclass(frozen=True)
class TagObject:
    sha: str
    tag: str
    object_sha: str
    object_type: str
    tagger_name: str
    tagger_email: str
    tagged_at: int
    message: str


def read_tag_object(repo: RepoRecord, sha: str) -> TagObject | None:
    """An annotated tag object (`git cat-file tag`), or None if sha is not one."""
    if repo.git.object_type(sha) != "tag":
        return None
    raw = repo.git.run("cat-file", "tag", sha).decode("utf-8", "replace")
    head, _, message = raw.partition("\n\n")
    fields = dict(line.split(" ", 1) for line in head.splitlines() if " " in line)
    who, _, when = fields.get("tagger", " <> 0 +0000").rpartition("> ")
    name, _, email = who.partition(" <")
    return TagObject(
        sha=sha,
        tag=fields.get("tag", ""),
        object_sha=fields.get("object", ""),
        object_type=fields.get("type", "commit"),
        tagger_name=name,
        tagger_email=email,
        tagged_at=int(when.split()[0]) if when.split() else 0,
        message=message,
    )


def create_annotated_tag(
    repo: RepoRecord, name: str, target: str, message: str, tagger: tuple[str, str]
) -> str:
    """A tag object for target and refs/tags/<name> pointing at it (demo seeding)."""
    env = {"GIT_COMMITTER_NAME": tagger[0], "GIT_COMMITTER_EMAIL": tagger[1]}
    repo.git.run("tag", "-a", "-m", message, "--", name, target, env=env)
    sha = repo.git.read_ref(f"refs/tags/{name}")
    assert sha is not None
    return sha
