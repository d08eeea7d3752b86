"""Issues and their comments and labels over the REST API."""

from __future__ import annotations

from typing import Any

from ..github.client import GitHubClient, Page
from .repos import repo_path


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


async def get_issue(github: GitHubClient, full_name: str, number: int) -> dict[str, Any]:
    return await github.request_json("GET", f"{repo_path(full_name)}/issues/{number}")


async def issue_comments(
    github: GitHubClient, full_name: str, number: int, *, limit: int, cursor: str | None
) -> Page:
    return await github.paginate(
        f"{repo_path(full_name)}/issues/{number}/comments", limit=limit, cursor=cursor
    )


async def create_issue(
    github: GitHubClient, full_name: str, fields: dict[str, Any]
) -> dict[str, Any]:
    issue = await github.request_json("POST", f"{repo_path(full_name)}/issues", json_body=fields)
    github.cache.invalidate_repo(full_name)
    return issue


async def update_issue(
    github: GitHubClient, full_name: str, number: int, fields: dict[str, Any]
) -> dict[str, Any]:
    issue = await github.request_json(
        "PATCH", f"{repo_path(full_name)}/issues/{number}", json_body=fields
    )
    github.cache.invalidate_repo(full_name)
    return issue


async def add_comment(
    github: GitHubClient, full_name: str, number: int, body: str
) -> dict[str, Any]:
    """A conversation comment on an issue or a pull request."""
    comment = await github.request_json(
        "POST", f"{repo_path(full_name)}/issues/{number}/comments", json_body={"body": body}
    )
    github.cache.invalidate_repo(full_name)
    return comment


async def add_labels(
    github: GitHubClient, full_name: str, number: int, labels: list[str]
) -> list[dict[str, Any]]:
    data = await github.request_json(
        "POST", f"{repo_path(full_name)}/issues/{number}/labels", json_body={"labels": labels}
    )
    github.cache.invalidate_repo(full_name)
    return data
