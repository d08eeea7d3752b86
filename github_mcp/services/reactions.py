"""Reactions over the REST API."""

from __future__ import annotations

from pydantic import BaseModel

from ..github.client import GitHubClient
from .repos import repo_path

SUBJECT_PATHS = {
    "issue": "issues/{id}",
    "issue_comment": "issues/comments/{id}",
    "review_comment": "pulls/comments/{id}",
}


class Reaction(BaseModel):
    id: int
    content: str
    user: str | None = None


async def add_reaction(
    github: GitHubClient, full_name: str, subject: str, ident: int, content: str
) -> Reaction:
    """React to an issue or PR (by number), an issue comment or a review comment (by id)."""
    path = f"{repo_path(full_name)}/{SUBJECT_PATHS[subject].format(id=ident)}/reactions"
    data = await github.request_json("POST", path, json_body={"content": content})
    user = (data.get("user") or {}).get("login")
    return Reaction(id=data["id"], content=data["content"], user=user)
