"""Everything a pull request overview shows, read at once: the PR, its changed files, its
latest reviews, and the check runs and commit statuses of its head commit. One GraphQL
query (a second only for PRs past 100 files), shaped as the REST objects the tools read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from github_mcp.github import graphql
from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.shared.github_json import PullRef

# GitHub's PatchStatus -> the REST file status
FILE_STATUS = {"DELETED": "removed"}
MERGEABLE = {"MERGEABLE": True, "CONFLICTING": False}


class BaseRef(TypedDict):
    ref: str


class OverviewPull(TypedDict):
    """The PR as the overview reads it, under REST's field names."""

    number: int
    title: str
    body: str | None
    html_url: str
    state: str
    merged_at: str | None
    draft: bool
    user: dict[str, Any]
    author_association: str | None
    head: PullRef
    base: BaseRef
    mergeable: bool | None
    mergeable_state: str
    commits: int
    changed_files: int
    additions: int
    deletions: int


class OverviewFile(TypedDict):
    filename: str
    status: str
    additions: int
    deletions: int


class OverviewReview(TypedDict):
    user: dict[str, Any]
    state: str


class CheckRunState(TypedDict):
    name: str
    status: str
    conclusion: str | None


class StatusState(TypedDict):
    context: str
    state: str


@dataclass
class PullOverview:
    pull: OverviewPull
    files: list[OverviewFile]
    reviews: list[OverviewReview]
    check_runs: list[CheckRunState]
    statuses: list[StatusState]


async def pull_overview(github: GitHubClient, full_name: str, number: int) -> PullOverview:
    found = await graphql.pull_overview(github, full_name, number)
    head_commit = next(iter((found.get("commits") or {}).get("nodes") or []), None) or {}
    _check_head(found, head_commit)
    rollup = (head_commit.get("commit") or {}).get("statusCheckRollup") or {}
    contexts = [c for c in (rollup.get("contexts") or {}).get("nodes") or [] if c]
    return PullOverview(
        pull=_rest_pull(found),
        files=[
            {
                "filename": f["path"],
                "status": FILE_STATUS.get(f["changeType"], f["changeType"].lower()),
                "additions": f["additions"],
                "deletions": f["deletions"],
            }
            for f in found["files"]["nodes"]
            if f
        ],
        # Every reviewer's latest review, then their latest opinion: a later comment does
        # not hide an approval or a change request (the REST history gives the same).
        reviews=[
            {"user": r.get("author") or {}, "state": r["state"]}
            for key in ("latestReviews", "latestOpinionatedReviews")
            for r in (found.get(key) or {}).get("nodes") or []
            if r
        ],
        check_runs=[
            {
                "name": c["name"],
                "status": c["status"].lower(),
                "conclusion": (c.get("conclusion") or "").lower() or None,
            }
            for c in contexts
            if c.get("__typename") == "CheckRun"
        ],
        statuses=[
            {"context": c["context"], "state": c["state"].lower()}
            for c in contexts
            if c.get("__typename") == "StatusContext"
        ],
    )


def _check_head(pull: dict[str, Any], head_commit: dict[str, Any]) -> None:
    """The checks read must be the head's: `commits(last: 1)` from another commit would
    report some other commit's CI as the PR's, so that answer is refused, not shown."""
    oid = (head_commit.get("commit") or {}).get("oid")
    if oid is not None and oid != pull["headRefOid"]:
        raise GitHubMCPError(
            ErrorCode.UPSTREAM_ERROR,
            f"GitHub returned checks of commit {oid[:12]}, not of the PR's head "
            f"{pull['headRefOid'][:12]}; the overview would show the wrong commit's CI.",
            hint="Read the head's checks with get_latest_branch_status on the head branch.",
        )


def _rest_pull(pull: dict[str, Any]) -> OverviewPull:
    state = pull["state"]
    return {
        "number": pull["number"],
        "title": pull["title"],
        "body": pull.get("body"),
        "html_url": pull["url"],
        "state": "closed" if state in ("CLOSED", "MERGED") else "open",
        "merged_at": pull.get("mergedAt"),
        "draft": pull["isDraft"],
        "user": pull.get("author") or {},
        "author_association": pull.get("authorAssociation"),
        "head": {"ref": pull["headRefName"], "sha": pull["headRefOid"]},
        "base": {"ref": pull["baseRefName"]},
        "mergeable": MERGEABLE.get(pull["mergeable"]),
        "mergeable_state": pull["mergeStateStatus"].lower(),
        "commits": (pull.get("commits") or {}).get("totalCount", 0),
        "changed_files": pull["changedFiles"],
        "additions": pull["additions"],
        "deletions": pull["deletions"],
    }
