"""JSON shapes for issues (pull requests included, as the issues API shows them) and
issue comments."""

from __future__ import annotations

from typing import Any

from sandbox_forge.kernel.formats import iso
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.stores import issue_meta, sub_issues
from sandbox_forge.stores.collab import Issue, IssueComment, collab
from sandbox_forge.stores.lookups import (
    author_association,
    ensure_label,
    iso_or_none,
    label_json,
    node_id,
    user_json,
    user_or_none,
)
from sandbox_forge.stores.milestones import milestone_json, milestones
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


def comment_count(repo: RepoRecord, number: int) -> int:
    return sum(1 for c in collab(repo).issue_comments.values() if c.number == number)


def _milestone(
    state: ForgeState, urls: Urls, repo: RepoRecord, issue: Issue
) -> dict[str, Any] | None:
    found = milestones(repo).get(issue.milestone) if issue.milestone else None
    return milestone_json(state, urls, repo, found) if found else None


def _parent_url(state: ForgeState, urls: Urls, repo: RepoRecord, issue: Issue) -> str | None:
    parent_id = sub_issues.parent_of(state, issue.id)
    found = sub_issues.find_by_id(state, repo.owner, parent_id) if parent_id else None
    if found is None:
        return None
    return f"{urls.repo(found[0].full_name)}/issues/{found[1].number}"


def issue_json(state: ForgeState, urls: Urls, repo: RepoRecord, issue: Issue) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    html = urls.repo_html(repo.full_name)
    n = issue.number
    labels = [ensure_label(state, repo, name) for name in issue.labels]
    assignees = [user_json(state, urls, login) for login in issue.assignees]
    data: dict[str, Any] = {
        "url": f"{api}/issues/{n}",
        "repository_url": api,
        "labels_url": f"{api}/issues/{n}/labels{{/name}}",
        "comments_url": f"{api}/issues/{n}/comments",
        "events_url": f"{api}/issues/{n}/events",
        "html_url": f"{html}/{'pull' if issue.pull else 'issues'}/{n}",
        "id": issue.id,
        "node_id": node_id("PR" if issue.pull else "I", repo, issue.id),
        "number": n,
        "title": issue.title,
        "user": user_json(state, urls, issue.user),
        "labels": [label_json(urls, repo, label) for label in labels],
        "state": issue.state,
        "locked": issue.locked,
        "assignee": assignees[0] if assignees else None,
        "assignees": assignees,
        "milestone": _milestone(state, urls, repo, issue),
        "comments": comment_count(repo, n),
        "created_at": iso(issue.created_at),
        "updated_at": iso(issue.updated_at),
        "closed_at": iso_or_none(issue.closed_at),
        "author_association": author_association(state, repo, issue.user),
        "active_lock_reason": None,
        "body": issue.body,
        "closed_by": user_or_none(state, urls, issue.closed_by),
        "timeline_url": f"{api}/issues/{n}/timeline",
        "performed_via_github_app": None,
        "state_reason": issue.state_reason,
    }
    if issue.pull is None:
        found = issue_meta.type_of(state, repo.owner, issue.id)
        data["type"] = issue_meta.type_json(found) if found is not None else None
        data["sub_issues_summary"] = sub_issues.summary(state, repo.owner, issue.id)
        data["parent_issue_url"] = _parent_url(state, urls, repo, issue)
    if issue.pull is not None:
        data["draft"] = issue.pull.draft
        data["pull_request"] = {
            "url": f"{api}/pulls/{n}",
            "html_url": f"{html}/pull/{n}",
            "diff_url": f"{html}/pull/{n}.diff",
            "patch_url": f"{html}/pull/{n}.patch",
            "merged_at": iso_or_none(issue.pull.merged_at),
        }
    return data


def comment_json(
    state: ForgeState, urls: Urls, repo: RepoRecord, comment: IssueComment
) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    issue = collab(repo).issues.get(comment.number)
    kind = "pull" if issue is not None and issue.pull else "issues"
    return {
        "id": comment.id,
        "node_id": node_id("IC", repo, comment.id),
        "url": f"{api}/issues/comments/{comment.id}",
        "html_url": f"{urls.repo_html(repo.full_name)}/{kind}/{comment.number}"
        f"#issuecomment-{comment.id}",
        "body": comment.body,
        "user": user_json(state, urls, comment.user),
        "created_at": iso(comment.created_at),
        "updated_at": iso(comment.updated_at),
        "issue_url": f"{api}/issues/{comment.number}",
        "author_association": author_association(state, repo, comment.user),
        "performed_via_github_app": None,
    }
