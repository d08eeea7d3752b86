"""Who the credentials belong to, and the rate limit they have left."""

from __future__ import annotations

from typing import Any

from github_mcp.github.client import GitHubClient


async def rate_limit(github: GitHubClient) -> dict[str, Any]:
    """GET /rate_limit (it does not count against the limit)."""
    data: dict[str, Any] = await github.request_json("GET", "/rate_limit")
    return data


async def identity(github: GitHubClient) -> dict[str, Any]:
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
