"""Reactions over the REST API."""

from __future__ import annotations

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient
from github_mcp.services.shared.repo_facts import repo_path

SUBJECT_PATHS = {
    "issue": "issues/{id}",
    "issue_comment": "issues/comments/{id}",
    "review_comment": "pulls/comments/{id}",
}


class Reaction(BaseModel):
    id: int
    content: str
    user: str | None = None


class ReactionPage(BaseModel):
    """One page of reactions, grouped: who reacted with what (oldest first)."""

    by_content: dict[str, list[str]] = Field(
        description="Each reaction's content and the logins that reacted with it."
    )
    next_cursor: str | None = None


def _path(full_name: str, subject: str, ident: int) -> str:
    return f"{repo_path(full_name)}/{SUBJECT_PATHS[subject].format(id=ident)}/reactions"


async def add_reaction(
    github: GitHubClient, full_name: str, subject: str, ident: int, content: str
) -> Reaction:
    """React to an issue or PR (by number), an issue comment or a review comment (by id)."""
    data = await github.request_json(
        "POST", _path(full_name, subject, ident), json_body={"content": content}
    )
    user = (data.get("user") or {}).get("login")
    return Reaction(id=data["id"], content=data["content"], user=user)


async def list_reactions(
    github: GitHubClient,
    full_name: str,
    subject: str,
    ident: int,
    *,
    content: str | None,
    limit: int,
    cursor: str | None,
) -> ReactionPage:
    """The reactions on one subject, optionally of one content, grouped by content."""
    params = {"content": content} if content else None
    page = await github.paginate(
        _path(full_name, subject, ident), params=params, limit=limit, cursor=cursor, repo=full_name
    )
    grouped: dict[str, list[str]] = {}
    for item in page.items:
        login = (item.get("user") or {}).get("login") or "ghost"
        grouped.setdefault(str(item.get("content")), []).append(login)
    return ReactionPage(by_content=grouped, next_cursor=page.next_cursor)
