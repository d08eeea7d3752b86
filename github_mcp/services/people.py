"""Collaborators, teams and stars over the REST API, as compact typed records."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.rate_state import RateLimitState
from github_mcp.services.shared.repo_facts import repo_path


class Collaborator(BaseModel):
    login: str
    role: str


class CollaboratorPage(BaseModel):
    collaborators: list[Collaborator]
    next_cursor: str | None = None


class Team(BaseModel):
    org: str
    slug: str
    name: str
    description: str | None = None
    url: str


class TeamPage(BaseModel):
    teams: list[Team]
    next_cursor: str | None = None


class MemberPage(BaseModel):
    members: list[str]
    next_cursor: str | None = None


class StarredRepo(BaseModel):
    full_name: str
    description: str | None = None
    private: bool
    stars: int


class StarredPage(BaseModel):
    repositories: list[StarredRepo]
    next_cursor: str | None = None


class Account(BaseModel):
    login: str
    type: str
    url: str


class AccountPage(BaseModel):
    accounts: list[Account]
    total: int
    next_cursor: str | None = None
    rate_limit: RateLimitState | None = None  # only when little is left


class Starred(BaseModel):
    full_name: str
    starred: bool


def _text(value: str | None) -> str | None:
    return cut_text(strip_invisible(value or ""), 300)[0] or None


async def collaborators(
    github: GitHubClient,
    full_name: str,
    *,
    permission: str | None,
    limit: int,
    cursor: str | None,
) -> CollaboratorPage:
    params = {"permission": permission} if permission else None
    page = await github.paginate(
        f"{repo_path(full_name)}/collaborators",
        params=params,
        limit=limit,
        cursor=cursor,
        repo=full_name,
    )
    people = [Collaborator(login=i["login"], role=i.get("role_name") or "") for i in page.items]
    return CollaboratorPage(collaborators=people, next_cursor=page.next_cursor)


def _team(item: dict[str, Any]) -> Team:
    return Team(
        org=(item.get("organization") or {}).get("login", ""),
        slug=item["slug"],
        name=_text(item.get("name")) or item["slug"],
        description=_text(item.get("description")),
        url=item["html_url"],
    )


async def my_teams(github: GitHubClient, *, limit: int, cursor: str | None) -> TeamPage:
    page = await github.paginate("/user/teams", limit=limit, cursor=cursor)
    return TeamPage(teams=[_team(i) for i in page.items], next_cursor=page.next_cursor)


async def team_members(
    github: GitHubClient, org: str, team: str, *, role: str, limit: int, cursor: str | None
) -> MemberPage:
    path = f"/orgs/{encode_path(org)}/teams/{encode_path(team)}/members"
    page = await github.paginate(path, params={"role": role}, limit=limit, cursor=cursor)
    return MemberPage(members=[i["login"] for i in page.items], next_cursor=page.next_cursor)


async def starred(
    github: GitHubClient, *, sort: str, limit: int, cursor: str | None
) -> StarredPage:
    page = await github.paginate("/user/starred", params={"sort": sort}, limit=limit, cursor=cursor)
    repos = [
        StarredRepo(
            full_name=i["full_name"],
            description=_text(i.get("description")),
            private=bool(i.get("private")),
            stars=int(i.get("stargazers_count") or 0),
        )
        for i in page.items
    ]
    return StarredPage(repositories=repos, next_cursor=page.next_cursor)


async def set_star(github: GitHubClient, full_name: str, on: bool) -> Starred:
    owner, name = full_name.split("/", 1)
    path = f"/user/starred/{encode_path(owner)}/{encode_path(name)}"
    await github.request_json("PUT" if on else "DELETE", path)
    return Starred(full_name=full_name, starred=on)


async def search_accounts(
    github: GitHubClient, query: str, *, orgs: bool, limit: int, cursor: str | None
) -> AccountPage:
    """GitHub's user search; `type:org` or `type:user` is added unless the query says."""
    if "type:" not in query.lower():
        query = f"{query} type:{'org' if orgs else 'user'}"
    page = await github.paginate(
        "/search/users", params={"q": query}, limit=limit, cursor=cursor, items_key="items"
    )
    accounts = [Account(login=i["login"], type=i["type"], url=i["html_url"]) for i in page.items]
    return AccountPage(
        accounts=accounts, total=page.total or len(accounts), next_cursor=page.next_cursor
    )
