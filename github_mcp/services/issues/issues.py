"""Issues and their comments and labels over the REST API, and an issue as another links it."""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient, Page
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.monitoring import orphaned_writes
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.github_json import Issue, IssueComment, Label
from github_mcp.services.shared.repo_facts import repo_path


# An issue as another one links it (a parent, a sub-issue, a blocker, a similar one)
class LinkedIssue(BaseModel):
    number: int
    title: str
    state: str
    url: str
    repository: str | None = Field(None, description="Set when not the asked repository.")


def linked(item: dict[str, Any], full_name: str) -> LinkedIssue:
    url = item.get("repository_url") or ""
    repo = "/".join(url.rstrip("/").split("/")[-2:])
    return LinkedIssue(
        number=item["number"],
        title=cut_text(strip_invisible(item.get("title") or ""), 300)[0],
        state=item["state"],
        url=item["html_url"],
        repository=None if repo.lower() == full_name.lower() else repo,
    )


# How far back a lost comment is looked for (covers clock skew with the server).
COMMENT_LOOKBACK_S = 120


async def list_issues(
    github: GitHubClient,
    full_name: str,
    *,
    state: str,
    labels: list[str] | None,
    limit: int,
    cursor: str | None,
) -> Page:
    params: dict[str, Any] = {"state": state}
    if labels:
        params["labels"] = ",".join(labels)
    return await github.paginate(
        f"{repo_path(full_name)}/issues", params=params, limit=limit, cursor=cursor
    )


async def get_issue(github: GitHubClient, full_name: str, number: int) -> Issue:
    issue: Issue = await github.request_json("GET", f"{repo_path(full_name)}/issues/{number}")
    return issue


async def issue_comments(
    github: GitHubClient, full_name: str, number: int, *, limit: int, cursor: str | None
) -> Page:
    return await github.paginate(
        f"{repo_path(full_name)}/issues/{number}/comments", limit=limit, cursor=cursor
    )


async def create_issue(github: GitHubClient, full_name: str, fields: dict[str, Any]) -> Issue:
    issue: Issue = await github.request_json(
        "POST", f"{repo_path(full_name)}/issues", json_body=fields
    )
    return issue


async def update_issue(
    github: GitHubClient, full_name: str, number: int, fields: dict[str, Any]
) -> Issue:
    issue: Issue = await github.request_json(
        "PATCH", f"{repo_path(full_name)}/issues/{number}", json_body=fields
    )
    return issue


async def add_comment(github: GitHubClient, full_name: str, number: int, body: str) -> IssueComment:
    """A conversation comment on an issue or a pull request."""
    path = f"{repo_path(full_name)}/issues/{number}/comments"
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - COMMENT_LOOKBACK_S))
    first_attempt = orphaned_writes.began()
    if first_attempt is not None:  # a dead replica's attempt may have posted it already
        posted = await _same_body_since(github, path, body, _iso(first_attempt - 5))
        if posted is not None:
            return posted
    try:
        comment: IssueComment = await github.request_json("POST", path, json_body={"body": body})
    except GitHubMCPError as exc:
        found = await _posted_despite(github, path, body, since, exc)
        if found is None:
            raise
        comment = found
    return comment


async def _posted_despite(
    github: GitHubClient, path: str, body: str, since: str, failure: GitHubMCPError
) -> IssueComment | None:
    """The comment a failed POST created after all (its answer was lost), if any: the
    newest comment with this exact body since just before the call. Not retried blindly,
    since a second POST would post it twice."""
    if failure.code not in (ErrorCode.UPSTREAM_ERROR, ErrorCode.TIMEOUT):
        return None
    try:
        return await _same_body_since(github, path, body, since)
    except GitHubMCPError:
        return None


async def _same_body_since(
    github: GitHubClient, path: str, body: str, since: str
) -> IssueComment | None:
    """The newest comment with exactly this body updated since `since`, if any."""
    recent: list[IssueComment] | None = await github.request_json(
        "GET", path, params={"since": since, "per_page": 100}
    )
    same = [c for c in recent or [] if isinstance(c, dict) and c.get("body") == body]
    return same[-1] if same else None


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


async def add_labels(
    github: GitHubClient, full_name: str, number: int, labels: list[str]
) -> list[Label]:
    data: list[Label] = await github.request_json(
        "POST", f"{repo_path(full_name)}/issues/{number}/labels", json_body={"labels": labels}
    )
    return data
