"""An OAuth app managing its users' tokens: GitHub's /applications/{client_id}/… endpoints,
authenticated with HTTP Basic (client id and client secret)."""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import json_response, missing_field, not_found
from sandbox_forge.kernel.formats import iso, simple_user
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.stores.records import TokenRecord
from sandbox_forge.stores.state import ForgeState


def _app_token(ctx: Ctx) -> tuple[str, TokenRecord | None]:
    """The access_token in the body and its record, when it belongs to the calling app."""
    client_id = ctx.params["client_id"]
    if ctx.principal.kind != "oauth_app" or ctx.principal.oauth_client_id != client_id:
        raise not_found()  # GitHub hides other apps' endpoints
    token = ctx.json().get("access_token")
    if not isinstance(token, str) or not token:
        raise missing_field("access_token")
    record = ctx.state.tokens.get(token)
    if record is None or record.client_id != client_id or record.expired():
        return token, None
    return token, record


def _authorization_json(ctx: Ctx, token: str, record: TokenRecord) -> dict[str, Any]:
    app = ctx.state.oauth.app(record.client_id)
    assert app is not None
    user = ctx.state.ensure_user(record.login)
    digest = hashlib.sha256(token.encode()).hexdigest()
    created = iso(user.created_at)
    return {
        "id": int(digest[:8], 16),
        "url": f"{ctx.urls.api}/authorizations/{int(digest[:8], 16)}",
        "scopes": list(record.scopes or []),
        "token": token,
        "token_last_eight": token[-8:],
        "hashed_token": digest,
        "app": {
            "client_id": app.client_id,
            "name": app.name,
            "url": f"{ctx.urls.web}/settings/connections/applications/{app.client_id}",
        },
        "note": None,
        "note_url": None,
        "created_at": created,
        "updated_at": created,
        "fingerprint": None,
        "user": simple_user(ctx.urls, user),
        "expires_at": iso(record.expires_at) if record.expires_at else None,
    }


@endpoint
def check_token(ctx: Ctx):
    token, record = _app_token(ctx)
    if record is None:
        raise not_found()
    return json_response(_authorization_json(ctx, token, record))


def _revoke(ctx: Ctx, token: str, every_token_of_user: bool) -> None:
    state = ctx.state
    record = state.tokens.get(token)
    if record is None or record.client_id != ctx.params["client_id"]:
        return
    with state.lock:
        doomed = [
            t
            for t, r in state.tokens.items()
            if t == token
            or (every_token_of_user and r.client_id == record.client_id and r.login == record.login)
        ]
        for t in doomed:
            del state.tokens[t]
    revoked = set(doomed)
    for grant in list(state.oauth.refresh.values()):
        if grant.access_token in revoked:
            grant.used = True  # its refresh token dies with it
    if every_token_of_user:
        state.oauth.grants.pop((record.login.lower(), ctx.params["client_id"]), None)


@endpoint
def delete_token(ctx: Ctx):
    token, _record = _app_token(ctx)
    _revoke(ctx, token, every_token_of_user=False)
    return Response(status_code=204)


@endpoint
def delete_authorization(ctx: Ctx):
    token, _record = _app_token(ctx)
    _revoke(ctx, token, every_token_of_user=True)
    return Response(status_code=204)


def routes(state: ForgeState) -> list[Route]:
    base = "/applications/{client_id}"
    return [
        Route(base + "/token", check_token, methods=["POST"]),
        Route(base + "/token", delete_token, methods=["DELETE"]),
        Route(base + "/grant", delete_authorization, methods=["DELETE"]),
    ]
