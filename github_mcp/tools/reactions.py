"""Reactions on issues, pull requests and their comments.

A reaction changes no branch but is public activity under your name: an unscoped write
that needs a human's approval, like a comment.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..params import FullName
from ..registry import Call, tool
from ..services import reactions as service
from ..services.reactions import Reaction

TOOLSET = "reactions"


@tool(toolset=TOOLSET, write=True, target=None, idempotent=True)
async def add_reaction(
    call: Call,
    full_name: FullName,
    on: Literal["issue", "issue_comment", "review_comment"],
    subject_id: Annotated[int, Field(ge=1, description="Issue or PR number, or comment id.")],
    content: Literal["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"],
) -> Reaction:
    """React to an issue or PR, an issue comment or a review comment (twice is a no-op)."""
    return await service.add_reaction(call.rt.github, full_name, on, subject_id, content)
