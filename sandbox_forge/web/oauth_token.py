"""POST /login/oauth/access_token: GitHub's code and refresh-token grants.

Parameters come as a form, JSON or the query string; the client may authenticate with
HTTP Basic instead of client_id/client_secret fields. The answer is JSON when the
client accepts application/json, form-encoded otherwise, and errors come back with
HTTP 200 and an `error` field, as GitHub sends them.

Codes are spent by their first use and expire after 10 minutes; presenting a spent code
again revokes what it issued. A refresh token works once: it is exchanged for a new
access and refresh token and the old access token stops working; presenting a spent
refresh token revokes every token descended from the same authorization.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import secrets
import time
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.stores.oauth import OAuthApp
from sandbox_forge.stores.state import ForgeState

TOKEN_PATH = "/login/oauth/access_token"
DOCS = "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#"
DESCRIPTIONS = {
    "incorrect_client_credentials": "The client_id and/or client_secret passed are incorrect.",
    "redirect_uri_mismatch": "The redirect_uri MUST match the registered callback URL for this "
    "application.",
    "bad_verification_code": "The code passed is incorrect or expired.",
    "bad_refresh_token": "The refresh token passed is incorrect or expired.",
    "unsupported_grant_type": "The grant type is not supported.",
}


class GrantError(Exception):
    def __init__(self, error: str):
        super().__init__(error)
        self.error = error

    def body(self) -> dict[str, str]:
        return {
            "error": self.error,
            "error_description": DESCRIPTIONS[self.error],
            "error_uri": DOCS + self.error.replace("_", "-"),
        }


def _s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii", "replace")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def revoke(state: ForgeState, *tokens: str) -> None:
    with state.lock:
        for token in tokens:
            state.tokens.pop(token, None)


def _end_family(state: ForgeState, family: str) -> None:
    for member in state.oauth.family(family):
        member.used = True
        revoke(state, member.access_token)


def _issue(
    state: ForgeState, app: OAuthApp, login: str, scopes: tuple[str, ...], family: str
) -> dict[str, Any]:
    if not app.expiring:
        token = state.create_token(
            login, kind="oauth", user_roles=True, scopes=scopes, client_id=app.client_id
        )
        return {"access_token": token, "token_type": "bearer", "scope": ",".join(scopes)}
    token = state.create_token(
        login,
        kind="user_to_server",
        user_roles=True,
        client_id=app.client_id,
        expires_at=time.time() + app.access_token_ttl,
    )
    refresh, _grant = state.oauth.add_refresh(app, login, family, token)
    return {
        "access_token": token,
        "expires_in": app.access_token_ttl,
        "refresh_token": refresh,
        "refresh_token_expires_in": app.refresh_token_ttl,
        "scope": "",
        "token_type": "bearer",
    }


def _code_grant(state: ForgeState, app: OAuthApp, params: dict[str, str]) -> dict[str, Any]:
    code = params.get("code") or ""
    record, first = state.oauth.take_code(code) if code else (None, False)
    if record is None or record.client_id != app.client_id:
        raise GrantError("bad_verification_code")
    if not first:  # a replayed code: whoever holds it, what it issued is no longer safe
        revoke(state, *record.issued_tokens)
        for issued in record.issued_tokens:
            _end_family(state, issued)
        raise GrantError("bad_verification_code")
    if record.expires_at <= time.time():
        raise GrantError("bad_verification_code")
    if params.get("redirect_uri") and params["redirect_uri"] != record.redirect_uri:
        raise GrantError("redirect_uri_mismatch")
    verifier = params.get("code_verifier")
    if record.code_challenge is not None:
        if not verifier or not secrets.compare_digest(_s256(verifier), record.code_challenge):
            raise GrantError("bad_verification_code")
    elif verifier:  # a verifier for a code issued without a challenge: not this flow's code
        raise GrantError("bad_verification_code")
    family = secrets.token_hex(8)
    answer = _issue(state, app, record.login, record.scopes, family)
    record.issued_tokens += [answer["access_token"], family]
    return answer


def _refresh_grant(state: ForgeState, app: OAuthApp, params: dict[str, str]) -> dict[str, Any]:
    token = params.get("refresh_token") or ""
    grant, fresh = state.oauth.take_refresh(token) if token else (None, False)
    if grant is None or grant.client_id != app.client_id or not app.expiring:
        raise GrantError("bad_refresh_token")
    if not fresh:  # reuse of a rotated refresh token: end the whole family
        _end_family(state, grant.family)
        raise GrantError("bad_refresh_token")
    if grant.expires_at <= time.time():
        raise GrantError("bad_refresh_token")
    revoke(state, grant.access_token)
    return _issue(state, app, grant.login, (), grant.family)


def exchange(state: ForgeState, params: dict[str, str]) -> dict[str, Any]:
    """The token answer for these parameters, or GrantError."""
    app = state.oauth.app(params.get("client_id"))
    if app is None or not app.secret_matches(params.get("client_secret")):
        raise GrantError("incorrect_client_credentials")
    grant_type = params.get("grant_type") or "authorization_code"
    if grant_type == "authorization_code":
        return _code_grant(state, app, params)
    if grant_type == "refresh_token":
        return _refresh_grant(state, app, params)
    raise GrantError("unsupported_grant_type")


def _basic_credentials(header: str | None) -> tuple[str, str] | None:
    scheme, _, value = (header or "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    client_id, sep, secret = decoded.partition(":")
    # RFC 6749 2.3.1: both parts are form-urlencoded before they are joined.
    return (unquote_plus(client_id), unquote_plus(secret)) if sep else None


def _params(request: Request, body: bytes) -> dict[str, str]:
    params = dict(request.query_params)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "application/json":
        try:
            data = json.loads(body) if body.strip() else {}
        except ValueError:
            data = {}
        if isinstance(data, dict):
            params.update({k: str(v) for k, v in data.items() if isinstance(v, str | int)})
    else:
        params.update(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    basic = _basic_credentials(request.headers.get("authorization"))
    if basic is not None:
        client_id, secret = basic
        if params.get("client_id", client_id) != client_id:
            params["client_secret"] = ""  # two different clients named: refuse
        else:
            params["client_id"], params["client_secret"] = client_id, secret
    return params


async def access_token(request: Request) -> Response:
    state: ForgeState = request.app.state.forge
    params = _params(request, await request.body())
    try:
        answer: dict[str, Any] = await run_in_threadpool(exchange, state, params)
    except GrantError as err:
        answer = err.body()
    headers = {"cache-control": "no-store", "pragma": "no-cache"}
    if "application/json" in request.headers.get("accept", "").lower():
        body = json.dumps(answer, separators=(",", ":")).encode()
        return Response(body, 200, headers, media_type="application/json; charset=utf-8")
    form = urlencode({k: str(v) for k, v in answer.items()})
    return Response(form, 200, headers, media_type="application/x-www-form-urlencoded")


def routes(state: ForgeState) -> list[Route]:
    return [Route(TOKEN_PATH, access_token, methods=["POST"])]
