"""Token lifetimes, rotation and replay detection for the sign-in.

- Access tokens live `GITHUB_MCP_OAUTH_ACCESS_TOKEN_TTL_SECONDS` (1 hour by default);
  refresh tokens carry the rest of the grant and rotate on every use.
- A GitHub OAuth App's token never expires and comes without a refresh token: the grant
  still gets a refresh token of ours (`LOCAL_REFRESH` stands for the missing upstream one),
  and refreshing it checks with GitHub that the user's token still works. A GitHub App's
  token (8 hours) is refreshed at GitHub only when it nears its end, not at every hourly
  refresh of ours: each GitHub refresh ends the previous token under calls in flight.
- Replaying a spent refresh token or authorization code ends the whole grant it came
  from (RFC 6749 §4.1.2 and §10.4; RFC 9700 §4.14.2): every access and refresh token,
  and the GitHub token behind them.
- Every token this server verifies must carry `exp`."""

from __future__ import annotations

import hashlib
import time
from contextvars import ContextVar
from typing import Any

from fastmcp.server.auth.jwt_issuer import JWTIssuer
from fastmcp.server.auth.oauth_proxy.upstream import AsyncOAuth2Client, OAuthError
from joserfc.errors import JoseError
from key_value.aio.adapters.pydantic import PydanticAdapter
from key_value.aio.protocols import AsyncKeyValue
from pydantic import BaseModel

# stands in the upstream token set for a GitHub token that has no refresh token
LOCAL_REFRESH = "ghmcp-local-refresh"
# how long a spent refresh token is remembered (bounded: one record per refresh)
SPENT_REFRESH_S = 30 * 86400
# GitHub refreshes a token this long before it expires, not earlier
UPSTREAM_REFRESH_MARGIN_S = 900
# the upstream token response a refresh of ours re-issues instead of asking GitHub
# (set around the refresh by the provider)
reused_upstream: ContextVar[dict[str, Any] | None] = ContextVar("reused_upstream", default=None)


class StrictJWTIssuer(JWTIssuer):
    """The proxy's issuer, refusing a correctly signed token that has no `exp`."""

    def verify_token(
        self,
        token: str,
        expected_token_use: str = "access",  # noqa: S107 - a token type, not a secret
    ) -> dict[str, Any]:
        payload = super().verify_token(token, expected_token_use=expected_token_use)
        if not isinstance(payload.get("exp"), int | float):
            raise JoseError("Token has no expiry (exp)")
        return payload


class LocalRefreshClient(AsyncOAuth2Client):
    """The upstream client; a refresh the provider decided to answer itself (the GitHub
    token still works and has time left, or has no refresh token) re-issues the same
    GitHub token without asking GitHub."""

    async def refresh_token(
        self, url: str, *, refresh_token: str | None = None, **params: Any
    ) -> dict[str, Any]:
        reused = reused_upstream.get()
        if reused is not None:
            return dict(reused)
        if refresh_token == LOCAL_REFRESH:
            raise OAuthError(error="invalid_grant", description="GitHub token is not valid")
        return await super().refresh_token(url, refresh_token=refresh_token, **params)


def reusable(upstream: Any, still_valid: bool) -> dict[str, Any] | None:
    """The token response a refresh re-issues from `upstream` (a stored upstream token set)
    without asking GitHub, or None when GitHub must refresh it."""
    if not still_valid:
        return None
    reused: dict[str, Any] = {
        "access_token": upstream.access_token,
        "refresh_token": upstream.refresh_token,
        "token_type": "bearer",
    }
    if upstream.refresh_token == LOCAL_REFRESH:
        return reused
    left = int(upstream.expires_at - time.time())
    if left <= UPSTREAM_REFRESH_MARGIN_S:
        return None
    return {**reused, "expires_in": left}


class SpentSecret(BaseModel):
    """A used refresh token or authorization code (stored by hash), and the grant
    (upstream token set) it belonged to."""

    upstream_token_id: str
    kind: str


def _spent_key(secret: str) -> str:
    """A spent secret is remembered by its hash, never in the clear."""
    return hashlib.sha256(secret.encode()).hexdigest()


class ReplayLedger:
    def __init__(self, storage: AsyncKeyValue) -> None:
        self.store = PydanticAdapter[SpentSecret](
            key_value=storage,
            pydantic_model=SpentSecret,
            default_collection="ghmcp-spent-secrets",
            raise_on_validation_error=False,
        )

    async def spend(self, secret: str, upstream_token_id: str, kind: str, ttl: float) -> None:
        await self.store.put(
            key=_spent_key(secret),
            value=SpentSecret(upstream_token_id=upstream_token_id, kind=kind),
            ttl=max(int(ttl), 60),
        )

    async def grant_of(self, secret: str) -> SpentSecret | None:
        found: SpentSecret | None = await self.store.get(key=_spent_key(secret))
        return found


def remaining(issuer: JWTIssuer, token: str | None, use: str, fallback: float) -> float:
    """Seconds `token` has left (its `exp`), else `fallback`."""
    if not token:
        return fallback
    try:
        return float(issuer.verify_token(token, expected_token_use=use)["exp"]) - time.time()
    except (JoseError, KeyError, ValueError):
        return fallback
