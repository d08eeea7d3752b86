"""JSON shapes for users and repositories, with every field GitHub's schema requires."""

from __future__ import annotations

import os
from typing import Any

from sandbox_forge.kernel.formats import iso, node_id, simple_user
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.rest.auth import Principal, can_read, repo_role
from sandbox_forge.stores.access import at_least
from sandbox_forge.stores.records import RepoRecord, UserRecord
from sandbox_forge.stores.social import star_count
from sandbox_forge.stores.state import ForgeState

# RepoRecord.extra: the id of the repository this one was forked from
FORK_PARENT = "fork_parent"


def full_user(state: ForgeState, urls: Urls, user: UserRecord, private: bool) -> dict[str, Any]:
    owned = [r for r in state.all_repos() if r.owner.lower() == user.login.lower()]
    data = simple_user(urls, user)
    data.update(
        {
            "user_view_type": "private" if private else "public",
            "name": user.name,
            "company": None,
            "blog": "",
            "location": None,
            "email": user.email,
            "hireable": None,
            "bio": None,
            "twitter_username": None,
            "public_repos": sum(1 for r in owned if not r.private),
            "public_gists": 0,
            "followers": 0,
            "following": 0,
            "created_at": iso(user.created_at),
            "updated_at": iso(user.created_at),
        }
    )
    if private:
        private_count = sum(1 for r in owned if r.private)
        data.update(
            {
                "private_gists": 0,
                "total_private_repos": private_count,
                "owned_private_repos": private_count,
                "disk_usage": 0,
                "collaborators": 0,
                "two_factor_authentication": False,
                "plan": {
                    "name": "pro",
                    "space": 976562499,
                    "private_repos": 9999,
                    "collaborators": 0,
                },
            }
        )
    return data


def role_permissions(role: str | None) -> dict[str, bool]:
    """The `permissions` object GitHub gives for a role (read … admin)."""
    return {
        "admin": at_least(role, "admin"),
        "maintain": at_least(role, "maintain"),
        "push": at_least(role, "write"),
        "triage": at_least(role, "triage"),
        "pull": at_least(role, "read"),
    }


def permissions(principal: Principal, repo: RepoRecord) -> dict[str, bool]:
    return role_permissions(repo_role(principal, repo))


def _disk_kb(repo: RepoRecord) -> int:
    return _tree_bytes(str(repo.git.path)) // 1024


def _tree_bytes(path: str) -> int:
    """Bytes of the files below path, counted as os.walk and getsize count them (symlinked
    directories are not entered; unreadable entries count nothing), with one scandir per
    directory and no path joins."""
    total = 0
    try:
        entries = os.scandir(path)
    except OSError:
        return 0
    with entries:
        for entry in entries:
            if _is_dir(entry):
                total += 0 if entry.is_symlink() else _tree_bytes(entry.path)
                continue
            try:
                total += entry.stat().st_size
            except OSError:
                continue
    return total


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def minimal_repo(state: ForgeState, urls: Urls, repo: RepoRecord) -> dict[str, Any]:
    """The fields every repository shape shares (GitHub's minimal-repository)."""
    api = urls.repo(repo.full_name)
    owner = state.ensure_user(repo.owner)
    return {
        "id": repo.id,
        "node_id": node_id("Repository", repo.id),
        "name": repo.name,
        "full_name": repo.full_name,
        "owner": simple_user(urls, owner),
        "private": repo.private,
        "html_url": urls.repo_html(repo.full_name),
        "description": repo.description or None,
        "fork": FORK_PARENT in repo.extra,
        "url": api,
        "archive_url": f"{api}/{{archive_format}}{{/ref}}",
        "assignees_url": f"{api}/assignees{{/user}}",
        "blobs_url": f"{api}/git/blobs{{/sha}}",
        "branches_url": f"{api}/branches{{/branch}}",
        "collaborators_url": f"{api}/collaborators{{/collaborator}}",
        "comments_url": f"{api}/comments{{/number}}",
        "commits_url": f"{api}/commits{{/sha}}",
        "compare_url": f"{api}/compare/{{base}}...{{head}}",
        "contents_url": f"{api}/contents/{{+path}}",
        "contributors_url": f"{api}/contributors",
        "deployments_url": f"{api}/deployments",
        "downloads_url": f"{api}/downloads",
        "events_url": f"{api}/events",
        "forks_url": f"{api}/forks",
        "git_commits_url": f"{api}/git/commits{{/sha}}",
        "git_refs_url": f"{api}/git/refs{{/sha}}",
        "git_tags_url": f"{api}/git/tags{{/sha}}",
        "git_url": f"git://{urls.web.split('://', 1)[1]}/{repo.full_name}.git",
        "issue_comment_url": f"{api}/issues/comments{{/number}}",
        "issue_events_url": f"{api}/issues/events{{/number}}",
        "issues_url": f"{api}/issues{{/number}}",
        "keys_url": f"{api}/keys{{/key_id}}",
        "labels_url": f"{api}/labels{{/name}}",
        "languages_url": f"{api}/languages",
        "merges_url": f"{api}/merges",
        "milestones_url": f"{api}/milestones{{/number}}",
        "notifications_url": f"{api}/notifications{{?since,all,participating}}",
        "pulls_url": f"{api}/pulls{{/number}}",
        "releases_url": f"{api}/releases{{/id}}",
        "ssh_url": f"git@{urls.web.split('://', 1)[1].split(':')[0]}:{repo.full_name}.git",
        "stargazers_url": f"{api}/stargazers",
        "statuses_url": f"{api}/statuses/{{sha}}",
        "subscribers_url": f"{api}/subscribers",
        "subscription_url": f"{api}/subscription",
        "tags_url": f"{api}/tags",
        "teams_url": f"{api}/teams",
        "trees_url": f"{api}/git/trees{{/sha}}",
        "hooks_url": f"{api}/hooks",
    }


# The full shape's counts and merge settings: the forge keeps GitHub's defaults.
_MERGE_SETTINGS: dict[str, Any] = {
    "network_count": 0,
    "subscribers_count": 0,
    "allow_merge_commit": True,
    "allow_squash_merge": True,
    "allow_rebase_merge": True,
    "allow_auto_merge": False,
    "delete_branch_on_merge": False,
    "allow_update_branch": False,
    "use_squash_pr_title_as_default": False,
    "squash_merge_commit_title": "COMMIT_OR_PR_TITLE",
    "squash_merge_commit_message": "COMMIT_MESSAGES",
    "merge_commit_title": "MERGE_MESSAGE",
    "merge_commit_message": "PR_TITLE",
}


def repo_json(
    state: ForgeState,
    urls: Urls,
    repo: RepoRecord,
    principal: Principal,
    full: bool = False,
) -> dict[str, Any]:
    """GitHub's repository shape (full=True: full-repository, as GET /repos/{o}/{r})."""
    open_issues = int(repo.extra.get("open_issues_count", 0))
    stars = star_count(state, repo.full_name)
    forks = sum(1 for r in state.all_repos() if r.extra.get(FORK_PARENT) == repo.id)
    data = minimal_repo(state, urls, repo)
    data.update(
        {
            "clone_url": f"{urls.web}/{repo.full_name}.git",
            "mirror_url": None,
            "svn_url": urls.repo_html(repo.full_name),
            "homepage": None,
            "language": None,
            "forks_count": forks,
            "stargazers_count": stars,
            "watchers_count": stars,
            "size": _disk_kb(repo),
            "default_branch": repo.default_branch,
            "open_issues_count": open_issues,
            "is_template": False,
            "topics": [],
            "has_issues": True,
            "has_projects": True,
            "has_wiki": True,
            "has_pages": False,
            "has_downloads": True,
            "has_discussions": False,
            "archived": False,
            "disabled": False,
            "visibility": "private" if repo.private else "public",
            "pushed_at": iso(repo.pushed_at),
            "created_at": iso(repo.created_at),
            "updated_at": iso(repo.updated_at),
            "allow_forking": True,
            "web_commit_signoff_required": False,
            "license": None,
            "forks": forks,
            "open_issues": open_issues,
            "watchers": stars,
        }
    )
    if not principal.anonymous:
        data["permissions"] = permissions(principal, repo)
    if full:
        owner = state.ensure_user(repo.owner)
        data.update(_MERGE_SETTINGS)
        if owner.type == "Organization":
            data["organization"] = simple_user(urls, owner)
        _add_parent(state, urls, repo, principal, data)
    return data


def _add_parent(
    state: ForgeState, urls: Urls, repo: RepoRecord, principal: Principal, data: dict[str, Any]
) -> None:
    """A fork's `parent` (what it was forked from) and `source` (the root of the network),
    while they are still there and readable."""
    chain, seen = [], {repo.id}
    current = repo
    while (parent_id := current.extra.get(FORK_PARENT)) is not None and parent_id not in seen:
        found = next((r for r in state.all_repos() if r.id == parent_id), None)
        if found is None or not can_read(principal, found):
            break
        chain.append(found)
        seen.add(found.id)
        current = found
    if chain:
        data["parent"] = repo_json(state, urls, chain[0], principal)
        data["source"] = repo_json(state, urls, chain[-1], principal)
