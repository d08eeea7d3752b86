"""Who the credentials belong to, and the rate limit they have left."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from github_mcp.github.client import GitHubClient


class RateResource(TypedDict, total=False):
    limit: int
    remaining: int
    used: int
    reset: int


class RateLimitBody(TypedDict):
    """GET /rate_limit: `resources` by name (core, search, graphql...); `rate` is core."""

    resources: NotRequired[dict[str, RateResource]]
    rate: NotRequired[RateResource]


class Identity(TypedDict):
    """The get_me tool's fields: who the credentials belong to."""

    login: str
    id: int
    type: str | None
    name: str | None


async def rate_limit(github: GitHubClient) -> RateLimitBody:
    """GET /rate_limit (it does not count against the limit)."""
    data: RateLimitBody = await github.request_json("GET", "/rate_limit")
    return data


async def identity(github: GitHubClient) -> Identity:
    """The user behind a token, or the App behind an installation token."""
    if github.credentials.kind == "app":
        data = await github.request_json("GET", "/app")
        return {
            "login": data.get("slug") or data.get("name", "app"),
            "id": data["id"],
            "type": "App",
            "name": data.get("name"),
        }
    data = await github.request_json("GET", "/user")
    return {
        "login": data["login"],
        "id": data["id"],
        "type": data.get("type"),
        "name": data.get("name"),
    }
