"""Demo data for issue planning in octo-org/demo-app, seeded after the collaboration demo:
a "Ship v0.2.0" tracking issue whose sub-issues are the divide() bug, the closed docs issue
and a new release-notes issue, which is blocked by the bug."""

from __future__ import annotations

from typing import Any

from sandbox_forge.admin.collab_seeding import ForgeTarget, forge_state, repo_named
from sandbox_forge.rest.routes.sub_issues import BLOCKED_BY, SUB_ISSUES, links
from sandbox_forge.stores import issues as issues_store
from sandbox_forge.stores.collab import collab

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
    with st.lock:
        links(st, SUB_ISSUES)[parent.id] = [bug.id, notes.id, docs.id]
        links(st, BLOCKED_BY)[notes.id] = [bug.id]
    summary = {
        "parent": parent.number,
        "sub_issues": [bug.number, notes.number, docs.number],
        "blocked": {"issue": notes.number, "by": bug.number},
    }
    st.extensions["planning_demo"] = summary
    return summary
