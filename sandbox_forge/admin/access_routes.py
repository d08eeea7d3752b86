"""Admin routes for sign-in: OAuth apps, organisation members, collaborators, expiry.

`POST /_sandbox/oauth/apps` is how a server registers its own OAuth app on the embedded
forge: the answer carries the client secret, once.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from sandbox_forge.admin.routes import admin_route
from sandbox_forge.kernel.errors import ApiError
from sandbox_forge.stores.oauth import REFRESH_TOKEN_TTL_SECONDS, USER_TOKEN_TTL_SECONDS
from sandbox_forge.stores.state import ForgeState


def register_oauth_app(
    state: ForgeState,
    name: str,
    callback_urls: list[str] | str,
    *,
    expiring: bool = False,
    access_token_ttl_seconds: int = USER_TOKEN_TTL_SECONDS,
    refresh_token_ttl_seconds: int = REFRESH_TOKEN_TTL_SECONDS,
) -> dict[str, Any]:
    app, secret = state.oauth.register_app(
        name,
        callback_urls,
        expiring=expiring,
        access_token_ttl=access_token_ttl_seconds,
        refresh_token_ttl=refresh_token_ttl_seconds,
    )
    return {
        "client_id": app.client_id,
        "client_secret": secret,
        "name": app.name,
        "callback_urls": list(app.callback_urls),
        "expiring": app.expiring,
    }


def _oauth_app(state: ForgeState, body: dict[str, Any], _request: Request) -> dict[str, Any]:
    urls = body.get("callback_urls", body.get("callback_url"))
    if not isinstance(urls, str | list) or not urls:
        raise ValueError("callback_urls (a list) or callback_url is required")
    return register_oauth_app(
        state,
        body.get("name", ""),
        urls,
        expiring=bool(body.get("expiring", False)),
        access_token_ttl_seconds=int(body.get("access_token_ttl_seconds", USER_TOKEN_TTL_SECONDS)),
        refresh_token_ttl_seconds=int(
            body.get("refresh_token_ttl_seconds", REFRESH_TOKEN_TTL_SECONDS)
        ),
    )


def _known(state: ForgeState, login: Any) -> str:
    user = state.user(login) if isinstance(login, str) else None
    if user is None:
        raise ValueError(f"no user {login!r}")
    return user.login


def _org_member(state: ForgeState, body: dict[str, Any], request: Request) -> dict[str, Any]:
    org = state.user(request.path_params["org"])
    if org is None or org.type != "Organization":
        raise ApiError(404, "Not Found")
    login = _known(state, body.get("login"))
    role = body.get("role", "member")
    state.access.set_org_member(org.login, login, role)
    return {"org": org.login, "login": login, "role": role}


def _collaborator(state: ForgeState, body: dict[str, Any], request: Request) -> dict[str, Any]:
    repo = state.repo(request.path_params["owner"], request.path_params["repo"])
    if repo is None:
        raise ApiError(404, "Not Found")
    login = _known(state, body.get("login"))
    role = body.get("role", "write")
    if role is None:
        state.access.remove_collaborator(repo.full_name, login)
    else:
        state.access.set_collaborator(repo.full_name, login, role)
    return {"repo": repo.full_name, "login": login, "role": role}


def expire_token(state: ForgeState, token: str) -> bool:
    """Make a token expired now (to test what clients do with a 401)."""
    record = state.tokens.get(token)
    if record is None:
        return False
    record.expires_at = 0.0
    return True


def _expire(state: ForgeState, body: dict[str, Any], _request: Request) -> dict[str, Any]:
    if not expire_token(state, str(body.get("token", ""))):
        raise ApiError(404, "Not Found")
    return {"expired": True}


def routes(state: ForgeState) -> list[Route]:
    return [
        admin_route("/oauth/apps", _oauth_app, ["POST"], status=201),
        admin_route("/oauth/apps", lambda s, _b, _r: s.oauth.apps_json(), ["GET"]),
        admin_route("/orgs/{org}/members", _org_member, ["POST"], status=201),
        admin_route("/repos/{owner}/{repo}/collaborators", _collaborator, ["POST"], status=201),
        admin_route("/tokens/expire", _expire, ["POST"]),
    ]
