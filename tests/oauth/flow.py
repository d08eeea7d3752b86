"""By-hand OAuth steps against the server: registration, PKCE, a browser sign-in that
stops at the client's redirect, token requests, and a probe of /mcp with a token."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2 as httpx

from tests.conftest import settled_requests
from tests.oauth.signin import CLIENT_REDIRECT, sign_in_in_browser

PASSWORDS = {"alice": "alice-pass-4827", "bob": "bob-pass-1593"}


def mcp_status(base: str, token: str) -> int:
    """The status /mcp answers an initialize carrying this bearer token."""
    response = httpx.post(
        base + "/mcp",
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
        },
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "probe", "version": "1"},
            },
        },
    )
    return response.status_code


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    return verifier, challenge.decode().rstrip("=")


def register_client(base: str, **extra: Any) -> str:
    return registration(base, **extra)["client_id"]


def registration(base: str, **extra: Any) -> dict[str, Any]:
    response = httpx.post(
        base + "/register",
        json={
            "client_name": "manual test client",
            "redirect_uris": [CLIENT_REDIRECT],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            **extra,
        },
    )
    assert response.status_code == 201, response.text
    return response.json()


def authorize_url(base: str, client_id: str, challenge: str | None, **extra: str) -> str:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": CLIENT_REDIRECT,
        "state": secrets.token_urlsafe(16),
        "resource": base + "/mcp",
        **extra,
    }
    if challenge is not None:
        params |= {"code_challenge": challenge, "code_challenge_method": "S256"}
    return f"{base}/authorize?{urlencode(params)}"


async def manual_code(server, login: str, client_id: str | None = None) -> tuple[str, str, str]:
    """(client_id, code, verifier) from a by-hand authorization in the browser."""
    client_id = client_id or register_client(server.base_url)
    verifier, challenge = pkce_pair()
    result = await sign_in_in_browser(
        authorize_url(server.base_url, client_id, challenge), login, PASSWORDS[login]
    )
    assert result.redirect, result.refused_text
    code = parse_qs(urlsplit(result.redirect).query)["code"][0]
    return client_id, code, verifier


def token_request(base: str, auth: Any = None, **form: str) -> httpx.Response:
    return httpx.post(base + "/token", data=form, auth=auth)


async def signed_in_tokens(server, login: str) -> tuple[str, dict[str, Any]]:
    """(client_id, token response) of a public client `login` signed in."""
    client_id, code, verifier = await manual_code(server, login)
    response = token_request(
        server.base_url,
        grant_type="authorization_code",
        code=code,
        redirect_uri=CLIENT_REDIRECT,
        client_id=client_id,
        code_verifier=verifier,
    )
    assert response.status_code == 200, response.text
    return client_id, response.json()


def github_revocations(forge) -> list[int]:
    """Statuses GitHub (the forge) answered to the server's token revocations."""
    return [
        r["status"]
        for r in settled_requests(forge)
        if r["method"] == "DELETE" and re.fullmatch(r"/applications/[^/]+/token", r["path"])
    ]


def refresh(base: str, client_id: str, token: str) -> httpx.Response:
    return token_request(base, grant_type="refresh_token", refresh_token=token, client_id=client_id)
