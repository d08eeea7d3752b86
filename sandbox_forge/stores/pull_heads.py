"""Where a pull request's head and base are now: the branch tips while it is open, the
recorded commits once it is closed, and the diff its Files tab shows."""

from __future__ import annotations

from sandbox_forge.git.pulls import diff_base
from sandbox_forge.stores.collab import Issue
from sandbox_forge.stores.records import RepoRecord


def branch_tips(repo: RepoRecord) -> dict[str, str]:
    return {name[len("refs/heads/") :]: sha for name, sha, _ in repo.git.list_refs("refs/heads/")}


def live_head(repo: RepoRecord, issue: Issue, tips: dict[str, str] | None = None) -> str:
    pull = issue.pull
    assert pull is not None
    if issue.state != "open":
        return pull.head_sha
    tips = branch_tips(repo) if tips is None else tips
    return tips.get(pull.head_ref, pull.head_sha)


def live_base(repo: RepoRecord, issue: Issue, tips: dict[str, str] | None = None) -> str:
    pull = issue.pull
    assert pull is not None
    if issue.state != "open":
        return pull.base_sha
    tips = branch_tips(repo) if tips is None else tips
    return tips.get(pull.base_ref, pull.base_sha)


def diff_points(repo: RepoRecord, issue: Issue) -> tuple[str, str]:
    """(start, head) of the pull request's diff, as the Files tab shows it."""
    tips = branch_tips(repo)
    head, base = live_head(repo, issue, tips), live_base(repo, issue, tips)
    return diff_base(repo.git, base, head), head


def file_patch(repo: RepoRecord, issue: Issue, path: str) -> tuple[str, str | None] | None:
    """(head, patch) for path in the pull request's diff; None when the PR leaves it alone."""
    start, head = diff_points(repo, issue)
    for diff in repo.git.diff(start, head):
        if diff.path == path:
            return head, diff.patch
    return None
