"""Reactions on issues (and pull requests), issue comments and review comments: one per
user, subject and content, kept per repository in `RepoRecord.extra["reactions"]` under
subject keys like "issue:3" or "review_comment:42"."""

from __future__ import annotations

from dataclasses import dataclass

from sandbox_forge.stores.records import RepoRecord

CONTENTS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
EXTENSION = "reactions"


@dataclass
class Reaction:
    id: int
    user: str
    content: str
    created_at: float


def reactions_of(repo: RepoRecord, subject: str) -> list[Reaction]:
    """The reactions on one subject, keyed like "issue:3" or "review_comment:42"."""
    found: dict[str, list[Reaction]] = repo.extra.setdefault(EXTENSION, {})
    return found.setdefault(subject, [])
