"""JSON shapes for pull requests: the list shape, and the full one with mergeability,
counts and diff stats (GET /pulls/{n})."""

from __future__ import annotations

from typing import Any

from sandbox_forge.git.pulls import commit_range, diff_base
from sandbox_forge.kernel.formats import iso
from sandbox_forge.kernel.formats import node_id as legacy_node_id
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.rest.api import Ctx
from sandbox_forge.rest.auth import Principal
from sandbox_forge.rest.shapes.users_repos import repo_json
from sandbox_forge.rules.mergeability import live_ends, mergeability
from sandbox_forge.stores.collab import Issue, collab
from sandbox_forge.stores.lookups import (
    author_association,
    ensure_label,
    iso_or_none,
    label_json,
    node_id,
    user_json,
    user_or_none,
)
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.social import Team, org_teams
from sandbox_forge.stores.state import ForgeState


def _branch_end(
    state: ForgeState, urls: Urls, repo: RepoRecord, repo_data: dict[str, Any], ref: str, sha: str
) -> dict[str, Any]:
    return {
        "label": f"{repo.owner}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": user_json(state, urls, repo.owner),
        "repo": repo_data,
    }


def _label(state: ForgeState, urls: Urls, repo: RepoRecord, name: str) -> dict[str, Any]:
    """pull-request-simple's label: its description is a string, never null."""
    found = label_json(urls, repo, ensure_label(state, repo, name))
    return found | {"description": found["description"] or ""}


def pull_json(
    state: ForgeState,
    urls: Urls,
    principal: Principal,
    repo: RepoRecord,
    issue: Issue,
    merge_info: tuple[bool | None, bool | None, str] | None = None,
    ends: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """GitHub's pull-request shape; with merge_info, the full one (GET /pulls/{n}). ends:
    the (head, base) the caller has just read with live_ends."""
    pull = issue.pull
    assert pull is not None
    n = issue.number
    head, base = ends or live_ends(repo, issue)
    assignees = [user_json(state, urls, login) for login in issue.assignees]
    repo_data = repo_json(state, urls, repo, principal)  # head and base: the same repository
    links = _links(urls, repo, n, head)
    data: dict[str, Any] = {
        "url": links["self"],
        "id": issue.id,
        "node_id": node_id("PR", repo, issue.id),
        **_link_urls(urls.repo_html(repo.full_name), n, links),
        "number": n,
        "state": issue.state,
        "locked": issue.locked,
        "title": issue.title,
        "user": user_json(state, urls, issue.user),
        "body": issue.body,
        "labels": [_label(state, urls, repo, name) for name in issue.labels],
        "milestone": None,
        "active_lock_reason": None,
        "created_at": iso(issue.created_at),
        "updated_at": iso(issue.updated_at),
        "closed_at": iso_or_none(issue.closed_at),
        "merged_at": iso_or_none(pull.merged_at),
        "merge_commit_sha": pull.merge_commit_sha,
        "assignee": assignees[0] if assignees else None,
        "assignees": assignees,
        "requested_reviewers": [user_json(state, urls, u) for u in pull.requested_reviewers],
        "requested_teams": requested_teams(state, urls, repo, pull.requested_teams),
        "head": _branch_end(state, urls, repo, repo_data, pull.head_ref, head),
        "base": _branch_end(state, urls, repo, repo_data, pull.base_ref, base),
        "_links": {name: {"href": href} for name, href in links.items()},
        "author_association": author_association(state, repo, issue.user),
        "auto_merge": None,
        "draft": pull.draft,
    }
    if merge_info is not None:
        data.update(_merge_details(state, urls, repo, issue, merge_info, (head, base)))
    return data


def _links(urls: Urls, repo: RepoRecord, n: int, head: str) -> dict[str, str]:
    """The pull request's _links (their hrefs), which its *_url fields repeat."""
    api = urls.repo(repo.full_name)
    return {
        "self": f"{api}/pulls/{n}",
        "html": f"{urls.repo_html(repo.full_name)}/pull/{n}",
        "issue": f"{api}/issues/{n}",
        "comments": f"{api}/issues/{n}/comments",
        "review_comments": f"{api}/pulls/{n}/comments",
        "review_comment": f"{api}/pulls/comments{{/number}}",
        "commits": f"{api}/pulls/{n}/commits",
        "statuses": f"{api}/statuses/{head}",
    }


def _link_urls(html: str, n: int, links: dict[str, str]) -> dict[str, str]:
    return {
        "html_url": links["html"],
        "diff_url": f"{html}/pull/{n}.diff",
        "patch_url": f"{html}/pull/{n}.patch",
        "issue_url": links["issue"],
        "commits_url": links["commits"],
        "review_comments_url": links["review_comments"],
        "review_comment_url": links["review_comment"],
        "comments_url": links["comments"],
        "statuses_url": links["statuses"],
    }


def _merge_details(
    state: ForgeState,
    urls: Urls,
    repo: RepoRecord,
    issue: Issue,
    merge_info: tuple[bool | None, bool | None, str],
    ends: tuple[str, str],
) -> dict[str, Any]:
    """What only the full shape has: mergeability, counts, and the diff's size."""
    pull = issue.pull
    assert pull is not None
    n = issue.number
    head, base = ends
    start = diff_base(repo.git, base, head)
    diffs = repo.git.diff_stats(start, head)
    return {
        "merged": pull.merged,
        "mergeable": merge_info[0],
        "rebaseable": merge_info[1],
        "mergeable_state": merge_info[2],
        "merged_by": user_or_none(state, urls, pull.merged_by),
        "comments": sum(1 for c in collab(repo).issue_comments.values() if c.number == n),
        "review_comments": sum(1 for c in collab(repo).review_comments.values() if c.number == n),
        "maintainer_can_modify": pull.maintainer_can_modify,
        "commits": len(commit_range(repo.git, base, head)),
        "additions": sum(d.additions for d in diffs),
        "deletions": sum(d.deletions for d in diffs),
        "changed_files": len(diffs),
    }


def full_json(ctx: Ctx, repo: RepoRecord, issue: Issue, *, count_get: bool) -> dict[str, Any]:
    ends = live_ends(repo, issue)  # one reading of the branches for the whole answer
    info = mergeability(ctx.state, repo, issue, count_get=count_get, ends=ends)
    return pull_json(ctx.state, ctx.urls, ctx.principal, repo, issue, info, ends)


def team_simple(state: ForgeState, urls: Urls, org: str, team: Team) -> dict[str, Any]:
    """A team as a PR's requested_teams lists it (GitHub's team shape, no parent)."""
    owner = state.user(org)
    org_id = owner.id if owner is not None else 0
    api = f"{urls.api}/organizations/{org_id}/team/{team.id}"
    return {
        "id": team.id,
        "node_id": legacy_node_id("Team", team.id),
        "url": api,
        "members_url": f"{api}/members{{/member}}",
        "name": team.name,
        "description": team.description,
        "permission": team.permission,
        "privacy": team.privacy,
        "notification_setting": "notifications_enabled",
        "html_url": f"{urls.web}/orgs/{org}/teams/{team.slug}",
        "repositories_url": f"{api}/repos",
        "slug": team.slug,
        "parent": None,
        "type": "organization",
        "organization_id": org_id,
    }


def requested_teams(
    state: ForgeState, urls: Urls, repo: RepoRecord, slugs: list[str]
) -> list[dict[str, Any]]:
    teams = org_teams(state, repo.owner)
    return [team_simple(state, urls, repo.owner, teams[s]) for s in slugs if s in teams]
