"""People: a repository's collaborators with their role, the teams you are in, a team's
members, and the search for users and organisations. Read-only.

Stars: the repositories you starred; star and unstar one.

Starring changes no branch but is public activity under your name: star and unstar are
unscoped writes and need a human's approval.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import people as service
from github_mcp.services.people import (
    AccountPage,
    CollaboratorPage,
    MemberPage,
    Starred,
    StarredPage,
    TeamPage,
)
from github_mcp.services.shared.rate_state import low_rate_limit

TOOLSET = "people"
Slug = Annotated[
    str,
    Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$"),
]


@tool(toolset=TOOLSET)
async def list_repository_collaborators(
    call: Call,
    full_name: FullName,
    permission: Literal["pull", "triage", "push", "maintain", "admin"] | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> CollaboratorPage:
    """People with access to a repository and their role (needs push access)."""
    return await service.collaborators(
        call.rt.github, full_name, permission=permission, limit=limit, cursor=cursor
    )


@tool(toolset=TOOLSET, repo_arg=None)
async def list_my_teams(call: Call, limit: Limit = 30, cursor: Cursor | None = None) -> TeamPage:
    """The teams you belong to, in every organisation."""
    return await service.my_teams(call.rt.github, limit=limit, cursor=cursor)


@tool(toolset=TOOLSET, repo_arg=None)
async def list_team_members(
    call: Call,
    org: Slug,
    team: Slug,
    role: Literal["all", "member", "maintainer"] = "all",
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> MemberPage:
    """Logins of a team's members (team is its slug)."""
    return await service.team_members(
        call.rt.github, org, team, role=role, limit=limit, cursor=cursor
    )


@tool(toolset=TOOLSET, repo_arg=None)
async def search_users(
    call: Call,
    query: Annotated[str, Field(min_length=1, max_length=256)],
    orgs: bool = False,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> AccountPage:
    """Search users (or organisations, orgs=true) with GitHub's qualifiers, e.g. 'in:name ada'."""
    page = await service.search_accounts(
        call.rt.github, query, orgs=orgs, limit=limit, cursor=cursor
    )
    return page.model_copy(update={"rate_limit": low_rate_limit(call.rt.metrics.rate_limit)})


@tool(toolset="stars", repo_arg=None)
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
    toolset="stars",
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it stars the named repository"),
)
async def star_repository(call: Call, full_name: FullName) -> Starred:
    """Star a repository."""
    return await service.set_star(call.rt.github, full_name, True)


@tool(
    toolset="stars",
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it removes the star from the named repository"),
)
async def unstar_repository(call: Call, full_name: FullName) -> Starred:
    """Remove your star from a repository."""
    return await service.set_star(call.rt.github, full_name, False)
