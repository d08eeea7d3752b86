"""Write tools: branches and verified commits. Every one is gated by its target."""

from __future__ import annotations

from pydantic import BaseModel

from ..params import Branch, FullName, Ref
from ..registry import Call, tool
from ..services import branches

TOOLSET = "writes"


class BranchCreated(BaseModel):
    branch: str
    sha: str
    created: bool


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="from_ref", idempotent=True)
async def create_branch(
    call: Call, full_name: FullName, branch: Branch, from_ref: Ref | None = None
) -> BranchCreated:
    """Create a branch from a ref (default: the default branch); idempotent if it exists there."""
    assert from_ref is not None  # the registry applied the effective ref
    result = await branches.create_branch(call.rt.github, full_name, branch, from_ref)
    return BranchCreated(**result)
