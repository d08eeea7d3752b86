"""Stars: the repositories you starred; star and unstar one.

Starring changes no branch but is public activity under your name: star and unstar are
unscoped writes and need a human's approval.
"""

from __future__ import annotations

from typing import Literal

from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import people as service
from github_mcp.services.people import Starred, StarredPage

TOOLSET = "stars"


@tool(toolset=TOOLSET, repo_arg=None)
async def list_starred_repositories(
    call: Call,
    sort: Literal["created", "updated"] = "created",
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> StarredPage:
    """Repositories you starred, most recently starred (or updated) first."""
    page = await service.starred(call.rt.github, sort=sort, limit=limit, cursor=cursor)
    # outside the allow-list a repository is not shown, not even by name
    kept = [r for r in page.repositories if call.rt.gate.repo_allowed(r.full_name)]
    return page.model_copy(update={"repositories": kept})


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it stars the named repository"),
)
async def star_repository(call: Call, full_name: FullName) -> Starred:
    """Star a repository."""
    return await service.set_star(call.rt.github, full_name, True)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it removes the star from the named repository"),
)
async def unstar_repository(call: Call, full_name: FullName) -> Starred:
    """Remove your star from a repository."""
    return await service.set_star(call.rt.github, full_name, False)
