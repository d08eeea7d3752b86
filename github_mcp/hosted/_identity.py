"""Each MCP request acts as the user who signed in: their GitHub token for every GitHub
call the request makes, their login for caches, workspaces and the audit trail."""

from __future__ import annotations

from typing import Any

from fastmcp.server.dependencies import get_access_token
from fastmcp.server.middleware import Middleware, MiddlewareContext

from github_mcp.github.auth import ActingUser, acting_as


def signed_in_user() -> ActingUser | None:
    """The GitHub user behind the current request's OAuth token, if any."""
    token = get_access_token()
    if token is None:
        return None
    claims = token.claims or {}
    login = claims.get("github_login")
    if not isinstance(login, str) or not login:
        return None  # a static bearer token: the server's own credentials apply
    user_id = claims.get("github_id")
    return ActingUser(
        login=login, user_id=user_id if isinstance(user_id, int) else None, token=token.token
    )


class ActAsSignedInUser(Middleware):
    """Runs every MCP request inside `acting_as(<the signed-in user>)`."""

    async def on_request(self, context: MiddlewareContext, call_next: Any) -> Any:
        with acting_as(signed_in_user()):
            return await call_next(context)
