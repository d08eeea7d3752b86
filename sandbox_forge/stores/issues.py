"""Issue records: creating issues and comments, opening and closing. Shared with the admin
API, pull requests (which are issues too) and the demo seed."""

from __future__ import annotations

from typing import Any

from sandbox_forge.stores.collab import Issue, IssueComment, collab
from sandbox_forge.stores.lookups import ensure_label, now, sync_open_count
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


def new_issue(
    state: ForgeState, repo: RepoRecord, user: str, title: str, body: str | None, **fields: Any
) -> Issue:
    """A new, numbered issue record (not yet stored); `fields` fill the rest, such as
    `assignees` or `pull`. Call under state.lock."""
    stamp = now()
    return Issue(
        number=repo.take_number(),
        id=state.next_id(),
        title=title,
        user=state.ensure_user(user).login,
        created_at=stamp,
        updated_at=stamp,
        body=body,
        **fields,
    )


def create_issue(
    state: ForgeState,
    repo: RepoRecord,
    user: str,
    title: str,
    body: str | None = None,
    labels: list[str] | None = None,
    assignees: list[str] | None = None,
) -> Issue:
    with state.lock:
        issue = new_issue(state, repo, user, title, body, assignees=list(assignees or []))
        for name in labels or []:
            issue.labels.append(ensure_label(state, repo, name).name)
        collab(repo).issues[issue.number] = issue
        sync_open_count(repo)
        return issue


def set_state(issue: Issue, state_value: str, actor: str, reason: str | None = None) -> None:
    if state_value == issue.state:
        if reason and state_value == "closed":
            issue.state_reason = reason
        return
    issue.state = state_value
    if state_value == "closed":
        issue.closed_at = now()
        issue.closed_by = actor
        issue.state_reason = reason or "completed"
    else:
        issue.closed_at = None
        issue.closed_by = None
        issue.state_reason = "reopened"


def add_comment(
    state: ForgeState, repo: RepoRecord, issue: Issue, user: str, body: str
) -> IssueComment:
    with state.lock:
        stamp = now()
        comment = IssueComment(
            id=state.next_id(),
            number=issue.number,
            user=state.ensure_user(user).login,
            body=body,
            created_at=stamp,
            updated_at=stamp,
        )
        collab(repo).issue_comments[comment.id] = comment
        issue.updated_at = stamp
        return comment
