"""Repository facts and history: get_repository, list_branches, commits, compare."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from github_mcp.kernel.params import Cursor, FullName, Limit, Ref, RepoPath
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services.repos import repo_views

# The commit-message label, which the blame tool's models share, is re-exported for it.
from github_mcp.services.repos.repo_views import MESSAGE_TRUST as MESSAGE_TRUST
from github_mcp.services.repos.repo_views import (
    BranchList,
    CommitDetail,
    CommitList,
    Comparison,
    Repository,
)
from github_mcp.services.repos.repo_views import MessageTrust as MessageTrust

TOOLSET = "repos"
PATCH_BUDGET = 20_000
PatchBudget = Annotated[int, Field(ge=0, le=200_000, description="Byte cap for patches.")]


@tool(toolset=TOOLSET)
async def get_repository(call: Call, full_name: FullName) -> Repository:
    """Repository facts: default branch, visibility and your permissions."""
    return await repo_views.repository(call.rt.github, full_name)


@tool(toolset=TOOLSET)
async def list_branches(
    call: Call, full_name: FullName, limit: Limit = 30, cursor: Cursor | None = None
) -> BranchList:
    """Branches with their head SHA and protection flag."""
    return await repo_views.branch_list(call.rt.github, full_name, limit=limit, cursor=cursor)


@tool(toolset=TOOLSET, ref_arg="ref")
async def list_commits(
    call: Call,
    full_name: FullName,
    ref: Ref | None = None,
    path: RepoPath | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> CommitList:
    """Recent commits on a ref (optionally touching a path), newest first."""
    return await repo_views.commit_list(
        call.rt.github, full_name, ref=ref or "", path=path, limit=limit, cursor=cursor
    )


@tool(toolset=TOOLSET, ref_arg="ref")
async def get_commit(
    call: Call,
    full_name: FullName,
    ref: Ref | None = None,
    include_patch: bool = False,
    max_patch_bytes: PatchBudget = PATCH_BUDGET,
) -> CommitDetail:
    """One commit: message, author, stats and changed files (patches opt-in, byte-capped)."""
    return await repo_views.commit_detail(
        call.rt.github, full_name, ref or "", include_patch=include_patch,
        patch_bytes=max_patch_bytes,
    )  # fmt: skip


@tool(toolset=TOOLSET)
async def compare_refs(
    call: Call,
    full_name: FullName,
    base: Ref,
    head: Ref,
    include_patch: bool = False,
    max_patch_bytes: PatchBudget = PATCH_BUDGET,
) -> Comparison:
    """How head differs from base: ahead/behind counts, commits and changed files."""
    return await repo_views.comparison(
        call.rt.github, full_name, base, head, include_patch=include_patch,
        patch_bytes=max_patch_bytes,
    )  # fmt: skip
