"""Reactions on issues, pull requests and their comments: list them, add one.

A reaction changes no branch but is public activity under your name: an unscoped write
that needs a human's approval, like a comment. Listing is a read.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import reactions as service
from github_mcp.services.reactions import Reaction, ReactionPage

TOOLSET = "reactions"
Subject = Literal["issue", "issue_comment", "review_comment"]
SubjectId = Annotated[int, Field(ge=1, description="Issue or PR number, or comment id.")]
Content = Literal["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"]


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it adds the given reaction to the named subject"),
)
async def add_reaction(
    call: Call, full_name: FullName, on: Subject, subject_id: SubjectId, content: Content
) -> Reaction:
    """React to an issue or PR, an issue comment or a review comment (twice is a no-op)."""
    return await service.add_reaction(call.rt.github, full_name, on, subject_id, content)


@tool(toolset=TOOLSET)
async def list_reactions(
    call: Call,
    full_name: FullName,
    on: Subject,
    subject_id: SubjectId,
    content: Content | None = None,
    limit: Limit = 100,
    cursor: Cursor | None = None,
) -> ReactionPage:
    """Who reacted with what on an issue or PR, an issue comment or a review comment."""
    return await service.list_reactions(
        call.rt.github, full_name, on, subject_id, content=content, limit=limit, cursor=cursor
    )
