"""Issue and comment text as the tools show it: cleaned, capped, labelled with its author.

User-written text is untrusted: it comes back with invisible and bidi-control characters
removed, capped, and labelled with its author's association with the repository; in
lockdown mode the text of authors without push access is withheld behind a note naming
them. These models are the tools' output schemas too."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.issues import issues
from github_mcp.services.issues.issues import LinkedIssue, linked
from github_mcp.services.shared.authorship import authored
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.github_json import Issue
from github_mcp.services.shared.repo_facts import repo_path

BODY_CAP = 16_000


def clean(text: str | None, cap: int = BODY_CAP) -> tuple[str, bool]:
    """`text` without invisible characters, cut to `cap` bytes; and whether it was cut."""
    cleaned, cut = cut_text(strip_invisible(text or ""), cap)
    return cleaned, cut


AUTHOR_ASSOCIATION = Field(
    None,
    description="The author's association with the repository (OWNER, MEMBER, COLLABORATOR, "
    "CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR, FIRST_TIMER, MANNEQUIN, NONE): the text is "
    "untrusted, more so without push access.",
)
WITHHELD = Field(None, description="Lockdown mode withheld this text: no push access.")


class IssueSummary(BaseModel):
    number: int
    title: str
    state: str
    labels: list[str]
    author: str | None = None
    author_association: str | None = AUTHOR_ASSOCIATION
    withheld: bool | None = WITHHELD
    comments: int = 0
    updated_at: str | None = None


def _summary(item: Mapping[str, Any], lockdown: bool) -> IssueSummary:
    who = authored(item, lockdown)
    return IssueSummary(
        number=item["number"],
        title=clean(who.text(item.get("title") or ""), 300)[0],
        state=item["state"],
        labels=[lb["name"] if isinstance(lb, dict) else lb for lb in item.get("labels", [])],
        author=who.login,
        **who.fields(),
        comments=item.get("comments", 0),
        updated_at=item.get("updated_at"),
    )


class IssueList(BaseModel):
    issues: list[IssueSummary]
    next_cursor: str | None = None


async def issue_list(
    github: GitHubClient,
    full_name: str,
    *,
    state: str,
    labels: list[str] | None,
    limit: int,
    cursor: str | None,
    lockdown: bool,
) -> IssueList:
    """A page of issues, pull requests left out."""
    page = await issues.list_issues(
        github, full_name, state=state, labels=labels, limit=limit, cursor=cursor
    )
    items = [_summary(i, lockdown) for i in page.items if "pull_request" not in i]
    return IssueList(issues=items, next_cursor=page.next_cursor)


class Comment(BaseModel):
    id: int
    author: str | None = None
    author_association: str | None = AUTHOR_ASSOCIATION
    withheld: bool | None = WITHHELD
    created_at: str | None = None
    body: str
    truncated: bool | None = None


def comment_model(item: Mapping[str, Any], lockdown: bool, cap: int = 4000) -> Comment:
    who = authored(item, lockdown)
    body, cut = clean(who.text(item.get("body") or ""), cap)
    return Comment(
        id=item["id"],
        author=who.login,
        **who.fields(),
        created_at=item.get("created_at"),
        body=body,
        truncated=cut or None,
    )


class SubIssueCounts(BaseModel):
    total: int
    completed: int
    percent_completed: int


class IssueDetail(IssueSummary):
    body: str
    body_truncated: bool | None = None
    assignees: list[str] = []
    is_pull_request: bool = False
    type: str | None = Field(None, description="Its issue type, in an organisation.")
    parent: LinkedIssue | None = Field(None, description="The issue this is a sub-issue of.")
    sub_issues: SubIssueCounts | None = Field(
        None, description="Its sub-issues, counted; list_sub_issues lists them."
    )
    url: str
    comment_items: list[Comment]
    next_comments_cursor: str | None = None


async def issue_detail(
    github: GitHubClient,
    full_name: str,
    number: int,
    *,
    comments_limit: int,
    comments_cursor: str | None,
    lockdown: bool,
) -> IssueDetail:
    """One issue with its body and a page of its comments."""
    issue, page = await asyncio.gather(
        issues.get_issue(github, full_name, number),
        issues.issue_comments(
            github, full_name, number, limit=comments_limit, cursor=comments_cursor
        ),
    )
    body, cut = clean(authored(issue, lockdown).text(issue.get("body") or ""))
    parent = None
    if issue.get("parent_issue_url"):  # a sub-issue: one more call, for its parent's title
        found = await github.request_json("GET", f"{repo_path(full_name)}/issues/{number}/parent")
        parent = linked(found, full_name)
    counts = issue.get("sub_issues_summary")
    return IssueDetail(
        parent=parent,
        sub_issues=SubIssueCounts(**counts) if counts and counts["total"] else None,
        **_summary(issue, lockdown).model_dump(),
        body=body,
        body_truncated=cut or None,
        assignees=[a["login"] for a in issue.get("assignees") or []],
        is_pull_request="pull_request" in issue,
        type=clean(kind["name"], 100)[0] or None if (kind := issue.get("type")) else None,
        url=issue["html_url"],
        comment_items=[comment_model(c, lockdown) for c in page.items],
        next_comments_cursor=page.next_cursor,
    )


class IssueRef(BaseModel):
    number: int
    state: str
    title: str
    url: str
    labels: list[str] = []
    assignees: list[str] = []
    milestone: str | None = None


def issue_ref(issue: Issue) -> IssueRef:
    return IssueRef(
        number=issue["number"],
        state=issue["state"],
        title=clean(issue.get("title"), 300)[0],
        url=issue["html_url"],
        labels=[lb["name"] for lb in issue.get("labels", [])],
        assignees=[a["login"] for a in issue.get("assignees") or []],
        milestone=clean(due["title"], 200)[0] or None if (due := issue.get("milestone")) else None,
    )


async def open_issue(github: GitHubClient, full_name: str, fields: dict[str, Any]) -> IssueRef:
    return issue_ref(await issues.create_issue(github, full_name, fields))


async def edit_issue(
    github: GitHubClient, full_name: str, number: int, fields: dict[str, Any]
) -> IssueRef:
    return issue_ref(await issues.update_issue(github, full_name, number, fields))


class CommentRef(BaseModel):
    id: int
    url: str


async def comment_on(github: GitHubClient, full_name: str, number: int, body: str) -> CommentRef:
    """A conversation comment on an issue or a pull request (posted once)."""
    comment = await issues.add_comment(github, full_name, number, body)
    return CommentRef(id=comment["id"], url=comment["html_url"])


class LabelsResult(BaseModel):
    labels: list[str]


async def label(
    github: GitHubClient, full_name: str, number: int, labels: list[str]
) -> LabelsResult:
    """Add labels to an issue or a pull request; all of its labels afterwards."""
    data = await issues.add_labels(github, full_name, number, labels)
    return LabelsResult(labels=[lb["name"] for lb in data])
