"""Notifications: a user's inbox threads (one per issue, pull request or release they
follow), each thread's subscription, and the user's repository subscriptions (watching or
ignoring). Marking read keeps a thread listed with all=true; marking done removes it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sandbox_forge.stores.state import ForgeState

EXTENSION = "notifications"
# GitHub's participating filter: threads the user takes part in or was asked into.
PARTICIPATING = {"assign", "author", "comment", "mention", "review_requested", "team_mention"}
# Marking more threads read than this at once is what GitHub does in the background (202).
AT_ONCE = 25


@dataclass
class Thread:
    id: str
    login: str  # whose inbox
    repo: str  # owner/name
    subject_type: str  # Issue, PullRequest, Release
    title: str
    reason: str
    number: int | None = None
    unread: bool = True
    done: bool = False
    updated_at: float = field(default_factory=lambda: int(time.time()))  # whole seconds
    last_read_at: float | None = None
    ignored: bool | None = None  # None: no thread subscription of its own
    subscribed_at: float | None = None


@dataclass
class RepoSubscription:
    subscribed: bool
    ignored: bool
    created_at: float = field(default_factory=time.time)


@dataclass
class Inbox:
    threads: dict[str, Thread] = field(default_factory=dict)
    watching: dict[tuple[str, str], RepoSubscription] = field(default_factory=dict)
    next_id: int = 1


def inbox(state: ForgeState) -> Inbox:
    found: Inbox = state.extensions.setdefault(EXTENSION, Inbox())
    return found


def add_thread(
    state: ForgeState,
    login: str,
    repo: str,
    subject_type: str,
    title: str,
    reason: str,
    number: int | None = None,
    updated_at: float | None = None,
) -> Thread:
    with state.lock:
        box = inbox(state)
        thread = Thread(str(box.next_id), login, repo, subject_type, title, reason, number)
        if updated_at is not None:
            thread.updated_at = int(updated_at)  # GitHub's times are whole seconds
        box.next_id += 1
        box.threads[thread.id] = thread
    return thread


def threads_of(state: ForgeState, login: str) -> list[Thread]:
    mine = [t for t in inbox(state).threads.values() if t.login.lower() == login.lower()]
    return [t for t in mine if not t.done]
