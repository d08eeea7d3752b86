"""Discussions: a repository's or an organisation's discussions (by category; GitHub keeps
an organisation's in its .github repository, which the allow-list must admit), one with its
answer, its comments with their replies, its categories, and adding a comment or a reply.

A comment is public under your name, like an issue comment: it is an unscoped write
that needs a human's approval.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import discussions as service
from github_mcp.services.discussions import (
    AddedComment,
    Categories,
    CommentPage,
    Discussion,
    DiscussionPage,
)

TOOLSET = "discussions"
Number = Annotated[int, Field(ge=1, le=2_147_483_647, description="Discussion number.")]
Owner = Annotated[str, Field(max_length=39, pattern=r"^[\w-]+$")]
NodeId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_=+/-]{1,200}$")]


@tool(toolset=TOOLSET)
async def list_discussions(
    call: Call,
    full_name: FullName | None = None,
    owner: Owner | None = None,
    category: Annotated[str, Field(min_length=1, max_length=100)] | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> DiscussionPage:
    """A repository's or (owner alone) an organisation's discussions, recently updated
    first; category by slug or name."""
    if full_name:
        return await service.list_discussions(call.rt.github, full_name, category, limit, cursor)
    if not owner:
        raise invalid_input("no repository or owner", hint="Give full_name, or owner alone.")
    call.rt.gate.check_repo_allowed(f"{owner}/{service.ORG_DISCUSSIONS_REPO}")
    return await service.list_org_discussions(call.rt.github, owner, category, limit, cursor)


@tool(toolset=TOOLSET)
async def get_discussion(call: Call, full_name: FullName, number: Number) -> Discussion:
    """One discussion: its body, category, state and accepted answer."""
    return await service.get_discussion(call.rt.github, full_name, number)


@tool(toolset=TOOLSET)
async def get_discussion_comments(
    call: Call,
    full_name: FullName,
    number: Number,
    limit: Annotated[int, Field(ge=1, le=50)] = 20,
    cursor: Cursor | None = None,
) -> CommentPage:
    """A discussion's comments, oldest first, each with its first replies."""
    return await service.comments(call.rt.github, full_name, number, limit, cursor)


@tool(toolset=TOOLSET)
async def list_discussion_categories(call: Call, full_name: FullName) -> Categories:
    """A repository's discussion categories (answerable ones take an accepted answer)."""
    return await service.categories(call.rt.github, full_name)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    binds=ArgumentsOnly("the comment's body, given in full, is all that is published"),
)
async def add_discussion_comment(
    call: Call,
    full_name: FullName,
    number: Number,
    body: Annotated[str, Field(min_length=1, max_length=65536)],
    reply_to: NodeId | None = None,
) -> AddedComment:
    """Comment on a discussion, or reply to a top-level comment (reply_to: its id)."""
    return await service.add_comment(call.rt.github, full_name, number, body, reply_to)
