"""Sub-issues and "blocked by" dependencies over the REST API, as compact typed records.

GitHub links issues by id, not number; the tools take numbers in one repository (so the
allow-list covers both ends) and this module looks the ids up.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.issues.issues import LinkedIssue, linked
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.repo_facts import repo_path


class SubIssues(BaseModel):
    parent: int
    sub_issues: list[LinkedIssue] = Field(description="In priority order.")
    completed: int = Field(description="Closed sub-issues on this page.")
    next_cursor: str | None = None


class Dependencies(BaseModel):
    number: int
    blocked_by: list[LinkedIssue]
    blocking: list[LinkedIssue]


def _issue_path(full_name: str, number: int) -> str:
    return f"{repo_path(full_name)}/issues/{number}"


async def issue_id(github: GitHubClient, full_name: str, number: int) -> int:
    issue = await github.request_json("GET", _issue_path(full_name, number))
    return int(issue["id"])


async def list_sub_issues(
    github: GitHubClient, full_name: str, number: int, *, limit: int, cursor: str | None
) -> SubIssues:
    page = await github.paginate(
        f"{_issue_path(full_name, number)}/sub_issues", limit=limit, cursor=cursor, repo=full_name
    )
    items = [linked(i, full_name) for i in page.items]
    return SubIssues(
        parent=number,
        sub_issues=items,
        completed=sum(1 for i in items if i.state == "closed"),
        next_cursor=page.next_cursor,
    )


async def change_sub_issue(
    github: GitHubClient,
    full_name: str,
    number: int,
    action: str,
    sub_issue: int,
    *,
    replace_parent: bool = False,
    after: int | None = None,
    before: int | None = None,
) -> None:
    """Add, remove or reprioritise one sub-issue (all numbers in `full_name`)."""
    if sub_issue == number:
        raise invalid_input(
            "an issue cannot be its own sub-issue",
            hint="Give the number of another issue as sub_issue.",
        )
    if action == "reprioritize" and (after is None) == (before is None):
        raise invalid_input(
            "reprioritize needs exactly one of after or before",
            hint="Name the sub-issue it should follow (after) or precede (before).",
        )
    anchors = [n for n in (after, before) if n is not None and action == "reprioritize"]
    ids = await asyncio.gather(*(issue_id(github, full_name, n) for n in (sub_issue, *anchors)))
    path = _issue_path(full_name, number)
    body: dict[str, Any] = {"sub_issue_id": ids[0]}
    if action == "add":
        if replace_parent:
            body["replace_parent"] = True
        await github.request_json("POST", f"{path}/sub_issues", json_body=body)
    elif action == "remove":
        await github.request_json("DELETE", f"{path}/sub_issue", json_body=body)
    else:
        body["after_id" if after is not None else "before_id"] = ids[1]
        await github.request_json("PATCH", f"{path}/sub_issues/priority", json_body=body)


async def dependencies(github: GitHubClient, full_name: str, number: int) -> Dependencies:
    path = f"{_issue_path(full_name, number)}/dependencies"
    blocked_by, blocking = await asyncio.gather(
        github.paginate(f"{path}/blocked_by", limit=50, repo=full_name),
        github.paginate(f"{path}/blocking", limit=50, repo=full_name),
    )
    return Dependencies(
        number=number,
        blocked_by=[linked(i, full_name) for i in blocked_by.items],
        blocking=[linked(i, full_name) for i in blocking.items],
    )


async def change_dependency(
    github: GitHubClient, full_name: str, number: int, action: str, blocked_by: int
) -> None:
    """Mark issue `number` as blocked by issue `blocked_by`, or lift that."""
    if blocked_by == number:
        raise invalid_input(
            "an issue cannot block itself", hint="Give the number of another issue as blocked_by."
        )
    blocker = await issue_id(github, full_name, blocked_by)
    path = f"{_issue_path(full_name, number)}/dependencies/blocked_by"
    if action == "add":
        await github.request_json("POST", path, json_body={"issue_id": blocker})
    else:
        await github.request_json("DELETE", f"{path}/{blocker}")


class Milestone(BaseModel):
    number: int
    title: str
    state: str
    open_issues: int
    closed_issues: int
    due_on: str | None = None
    url: str


class MilestonePage(BaseModel):
    milestones: list[Milestone]
    next_cursor: str | None = None


async def list_milestones(
    github: GitHubClient, full_name: str, *, state: str, limit: int, cursor: str | None
) -> MilestonePage:
    page = await github.paginate(
        f"{repo_path(full_name)}/milestones",
        params={"state": state},
        limit=limit,
        cursor=cursor,
        repo=full_name,
    )
    found = [
        Milestone(
            number=m["number"],
            title=cut_text(strip_invisible(m.get("title") or ""), 200)[0],
            state=m["state"],
            open_issues=m["open_issues"],
            closed_issues=m["closed_issues"],
            due_on=m.get("due_on"),
            url=m["html_url"],
        )
        for m in page.items
    ]
    return MilestonePage(milestones=found, next_cursor=page.next_cursor)
