"""Discussions: a repository's categories, its discussions (numbered with its issues and
pull requests, as on GitHub) and their comments, a comment's replies one level deep."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

EXTENSION = "discussions"


@dataclass
class Category:
    id: int
    name: str
    slug: str
    emoji: str = ":speech_balloon:"
    description: str | None = None
    answerable: bool = False


@dataclass
class Comment:
    id: int
    discussion: int  # its discussion's number
    author: str
    body: str
    reply_to: int | None = None
    created_at: float = field(default_factory=time.time)


@dataclass
class Discussion:
    id: int
    number: int
    category: int
    title: str
    body: str
    author: str
    closed: bool = False
    answer: int | None = None  # the answering comment's id
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)


@dataclass
class RepoDiscussions:
    categories: dict[int, Category] = field(default_factory=dict)
    discussions: dict[int, Discussion] = field(default_factory=dict)  # by number
    comments: dict[int, Comment] = field(default_factory=dict)  # by id


def of(repo: RepoRecord) -> RepoDiscussions:
    found: RepoDiscussions = repo.extra.setdefault(EXTENSION, RepoDiscussions())
    return found


def add_category(state: ForgeState, repo: RepoRecord, name: str, **fields: object) -> Category:
    with state.lock:
        slug = name.lower().replace(" ", "-")
        category = Category(state.next_id(), name, slug, **fields)  # type: ignore[arg-type]
        of(repo).categories[category.id] = category
    return category


def add_discussion(
    state: ForgeState, repo: RepoRecord, category: Category, author: str, title: str, body: str
) -> Discussion:
    with state.lock:
        found = Discussion(state.next_id(), repo.take_number(), category.id, title, body, author)
        of(repo).discussions[found.number] = found
    return found


def add_comment(
    state: ForgeState,
    repo: RepoRecord,
    discussion: Discussion,
    author: str,
    body: str,
    reply_to: int | None = None,
) -> Comment:
    with state.lock:
        comment = Comment(state.next_id(), discussion.number, author, body, reply_to)
        of(repo).comments[comment.id] = comment
        discussion.updated_at = comment.created_at
    return comment


def top_level(repo: RepoRecord, number: int) -> list[Comment]:
    found = [c for c in of(repo).comments.values() if c.discussion == number and not c.reply_to]
    return sorted(found, key=lambda c: c.id)


def replies(repo: RepoRecord, comment_id: int) -> list[Comment]:
    return sorted(
        (c for c in of(repo).comments.values() if c.reply_to == comment_id), key=lambda c: c.id
    )
