"""Sub-issue and "blocked by" links between issues, by issue id (not number) within one
owner's repositories. They live forge-wide in `ForgeState.extensions` as plain id lists,
so snapshots dump them: `sub_issues` maps a parent id to its children in priority order,
`blocked_by` an issue id to the ids blocking it. The endpoints and GitHub's limits on
changing them are in rest/routes/sub_issues.py."""

from __future__ import annotations

from sandbox_forge.stores.collab import Issue, collab
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

SUB_ISSUES = "sub_issues"
BLOCKED_BY = "blocked_by"
MAX_SUB_ISSUES = 100
MAX_BLOCKERS = 50


def links(state: ForgeState, kind: str) -> dict[int, list[int]]:
    """The forge-wide id lists of one kind of link (SUB_ISSUES or BLOCKED_BY)."""
    found: dict[int, list[int]] = state.extensions.setdefault(kind, {})
    return found


def find_by_id(state: ForgeState, owner: str, issue_id: int) -> tuple[RepoRecord, Issue] | None:
    """The issue with this id in one of `owner`'s repositories."""
    for repo in state.all_repos():
        if repo.owner.lower() != owner.lower():
            continue
        for issue in collab(repo).issues.values():
            if issue.id == issue_id:
                return repo, issue
    return None


def parent_of(state: ForgeState, issue_id: int) -> int | None:
    for parent, children in links(state, SUB_ISSUES).items():
        if issue_id in children:
            return parent
    return None


def summary(state: ForgeState, owner: str, issue_id: int) -> dict[str, int]:
    """GitHub's sub_issues_summary: how many sub-issues, how many closed, the percentage."""
    children = [find_by_id(state, owner, i) for i in links(state, SUB_ISSUES).get(issue_id, [])]
    found = [pair[1] for pair in children if pair is not None]
    done = sum(1 for child in found if child.state == "closed")
    percent = round(100 * done / len(found)) if found else 0
    return {"total": len(found), "completed": done, "percent_completed": percent}
