"""Demo data for issue planning in octo-org/demo-app, seeded after the collaboration demo:
a "Ship v0.2.0" tracking issue whose sub-issues are the divide() bug, the closed docs issue
and a new release-notes issue, which is blocked by the bug; a v0.2.0 milestone carries the
tracking and release-notes issues, and a closed v0.1.0 milestone carries the docs issue."""

from __future__ import annotations

from typing import Any

from sandbox_forge.admin.collab_seeding import ForgeTarget, forge_state, repo_named
from sandbox_forge.stores import issues as issues_store
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.milestones import create_milestone
from sandbox_forge.stores.sub_issues import BLOCKED_BY, SUB_ISSUES, links

DEMO_REPO = "octo-org/demo-app"


def seed_demo_planning(forge: ForgeTarget, full_name: str = DEMO_REPO) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    known = st.extensions["collab_demo"]["issues"]
    issues = collab(repo).issues
    parent = issues_store.create_issue(
        st, repo, "alice", "Ship v0.2.0", "Everything the next release needs.", ["enhancement"]
    )
    notes = issues_store.create_issue(
        st, repo, "alice", "Write the v0.2.0 release notes", None, ["documentation"], ["alice"]
    )
    bug, docs = issues[known["bug"]], issues[known["closed"]]
    shipped = create_milestone(st, repo, "alice", "v0.1.0", "The first release")
    next_one = create_milestone(
        st, repo, "alice", "v0.2.0", "True division and the web module", "2030-01-31T00:00:00Z"
    )
    with st.lock:
        links(st, SUB_ISSUES)[parent.id] = [bug.id, notes.id, docs.id]
        links(st, BLOCKED_BY)[notes.id] = [bug.id]
        shipped.state, shipped.closed_at = "closed", shipped.created_at
        docs.milestone = shipped.number
        parent.milestone = notes.milestone = next_one.number
    summary = {
        "parent": parent.number,
        "sub_issues": [bug.number, notes.number, docs.number],
        "blocked": {"issue": notes.number, "by": bug.number},
        "milestones": {"open": next_one.number, "closed": shipped.number},
    }
    st.extensions["planning_demo"] = summary
    return summary
