"""Demo notifications: octocat's inbox on octo-org/demo-app (after seed_demo_collab and
seed_demo_releases), so that `make run` shows the notifications tools with something to
triage: a review request on an open pull request, a mention and a subscribed issue
(unread), the latest release (read), and a subscription to the repository."""

from __future__ import annotations

import time
from typing import Any

from sandbox_forge.admin.collab_seeding import ForgeTarget, forge_state, repo_named
from sandbox_forge.stores import notifications as store
from sandbox_forge.stores.collab import collab

DEMO_REPO = "octo-org/demo-app"
USER = "octocat"


def seed_demo_notifications(forge: ForgeTarget, full_name: str = DEMO_REPO) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    issues = sorted(collab(repo).issues.values(), key=lambda i: i.number)
    open_pull = next(i for i in issues if i.pull is not None and i.state == "open")
    plain = [i for i in issues if i.pull is None]
    # the newest thread a minute after its pull request, unless that is in the future: a
    # thread dated later than now would stay unread after a "mark all read" at now
    shift = max(0.0, open_pull.updated_at + 60 - (time.time() - 1))
    review = store.add_thread(
        st,
        USER,
        repo.full_name,
        "PullRequest",
        open_pull.title,
        "review_requested",
        open_pull.number,
        updated_at=open_pull.updated_at + 60 - shift,
    )
    mention = store.add_thread(
        st,
        USER,
        repo.full_name,
        "Issue",
        plain[0].title,
        "mention",
        plain[0].number,
        updated_at=min(plain[0].updated_at + 30 - shift, open_pull.updated_at + 59 - shift),
    )
    watched = store.add_thread(
        st,
        USER,
        repo.full_name,
        "Issue",
        plain[-1].title,
        "subscribed",
        plain[-1].number,
        updated_at=plain[-1].updated_at,
    )
    release = store.add_thread(
        st,
        USER,
        repo.full_name,
        "Release",
        "v0.1.0",
        "subscribed",
        None,
        updated_at=repo.created_at,
    )
    with st.lock:
        release.unread, release.last_read_at = False, repo.created_at + 1
        store.inbox(st).watching[(USER, repo.full_name.lower())] = store.RepoSubscription(
            subscribed=True, ignored=False
        )
    ids = (review.id, mention.id, watched.id, release.id)
    summary = dict(zip(("review_requested", "mention", "subscribed", "read"), ids, strict=True))
    st.extensions["demo_inbox"] = summary
    return summary
