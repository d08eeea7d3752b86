"""Before a human is asked: could the caller's own GitHub permission ever allow this
write? A user who may only read a repository gets a refusal at once, and no approval
request is opened (a read-only user could otherwise fill the approval queue)."""

from __future__ import annotations

from typing import Any

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.services.shared.github_json import RepoPermissions
from github_mcp.services.shared.repo_facts import get_repo

# A branch write (push, merge, branch delete, dispatch on a ref) needs push access;
# an unscoped write (issue, comment, review) needs at least read access.
PUSH_ROLES = ("admin", "maintain", "push")
READ_ROLES = (*PUSH_ROLES, "triage", "pull")


async def check_own_permission(github: Any, repo: str | None, branch: str | None) -> None:
    """Raise `forbidden` when the repository's `permissions` (GET /repos/{owner}/{repo},
    as the caller) rule the write out. When GitHub does not say, the write goes on to
    be asked about and GitHub has the last word."""
    if not repo:
        return
    permissions: RepoPermissions | None
    try:
        permissions = (await get_repo(github, repo)).get("permissions")
    except GitHubMCPError as exc:
        if exc.code != ErrorCode.NOT_FOUND:
            return
        permissions = {}  # the caller cannot even see it
    if not isinstance(permissions, dict):
        return
    needed = PUSH_ROLES if branch is not None else READ_ROLES
    if any(permissions.get(role) is True for role in needed):
        return
    held = [role for role in READ_ROLES if permissions.get(role) is True]
    log_event("approval_refused_permission", repo=repo, held=",".join(held) or "none")
    what = f"push to {branch}" if branch is not None else "write"
    raise GitHubMCPError(
        ErrorCode.FORBIDDEN,
        f"Your GitHub permission on {repo} ({', '.join(held) or 'no access'}) does not "
        f"allow you to {what}, so no approval was asked for.",
        hint="Ask a repository admin for write access, or fork the repository and open "
        "a pull request from your fork.",
        repo=repo,
    )
