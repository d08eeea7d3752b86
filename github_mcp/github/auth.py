"""GitHub credentials: a personal access token, a GitHub App installation, or the
signed-in user a call acts for.

The App's JWT is signed RS256 with pyjwt; the installation token is cached and
refreshed five minutes before it expires.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event, register_secret

REFRESH_MARGIN_S = 300


def token_kind(token: str) -> str:
    """Classify a token by its documented prefix, never revealing it."""
    prefixes = {
        "ghp_": "classic",
        "github_pat_": "fine_grained",
        "gho_": "oauth",
        "ghu_": "user_to_server",
        "ghs_": "app_installation",
    }
    for prefix, kind in prefixes.items():
        if token.startswith(prefix):
            return kind
    return "unknown"


class Credentials(Protocol):
    kind: str

    async def token(self) -> str | None: ...


class AnonymousAuth:
    kind = "none"

    async def token(self) -> str | None:
        return None


class TokenAuth:
    def __init__(self, token: str) -> None:
        register_secret(token)
        self._token = token
        self.kind = token_kind(token)

    async def token(self) -> str | None:
        return self._token


# (method, path, headers, json) -> (status, json body)
RawPost = Callable[[str, dict[str, str]], Awaitable[tuple[int, dict[str, Any]]]]


class AppAuth:
    """GitHub App installation tokens, minted from a JWT and refreshed early."""

    kind = "app"

    def __init__(
        self, app_id: str, installation_id: str, private_key_pem: str, post: RawPost
    ) -> None:
        register_secret(private_key_pem)
        if "PRIVATE KEY" not in private_key_pem:
            raise GitHubMCPError(
                ErrorCode.INVALID_INPUT,
                "GitHub App private key is not a PEM.",
                hint=(
                    "Set the GitHub App private key to the full PEM text (BEGIN ... PRIVATE "
                    "KEY ... END) as downloaded from the App's settings."
                ),
            )
        self.app_id = app_id
        self.installation_id = installation_id
        self._key = private_key_pem
        self._post = post
        self._token: str | None = None
        self._expires_at = 0.0
        self._lock = asyncio.Lock()
        self.refreshes = 0

    def app_jwt(self) -> str:
        import jwt  # lazy: pulls in cryptography, not needed for PAT start-up

        now = int(time.time())
        # iat backdated 60 s for clock drift; GitHub refuses exp more than 10 min ahead.
        claims = {"iat": now - 60, "exp": now + 540, "iss": self.app_id}
        token = jwt.encode(claims, self._key, algorithm="RS256")
        register_secret(token)
        return token

    def _fresh(self) -> bool:
        return self._token is not None and time.time() < self._expires_at - REFRESH_MARGIN_S

    async def token(self) -> str | None:
        if self._fresh():
            return self._token
        async with self._lock:
            if self._fresh():
                return self._token
            path = f"/app/installations/{self.installation_id}/access_tokens"
            status, body = await self._post(path, {"Authorization": f"Bearer {self.app_jwt()}"})
            if status != 201 or "token" not in body:
                raise GitHubMCPError(
                    ErrorCode.FORBIDDEN,
                    f"GitHub App token exchange failed (HTTP {status}).",
                    hint="Check GITHUB_APP_ID, GITHUB_APP_INSTALLATION_ID and the private key.",
                )
            self._token = body["token"]
            register_secret(self._token)
            expires = body.get("expires_at")
            self._expires_at = (
                datetime.fromisoformat(expires.replace("Z", "+00:00")).timestamp()
                if expires
                else time.time() + 3600
            )
            self.refreshes += 1
            log_event("github_app_token_refreshed", expires_at=expires)
            return self._token


# -- the signed-in user a call acts for (hosted sign-in) ---------------------


@dataclass(frozen=True)
class ActingUser:
    """A signed-in GitHub user: their login and the GitHub token the sign-in yielded.

    While a call runs `acting_as(user)`, every GitHub request (REST, GraphQL, git) carries
    this user's token instead of the server's, and caches are partitioned by `login`."""

    login: str
    user_id: int | None
    token: str = field(repr=False)

    @property
    def kind(self) -> str:
        return token_kind(self.token)

    @property
    def partition(self) -> str:
        return f"user:{self.login.lower()}"


_acting_user: ContextVar[ActingUser | None] = ContextVar("github_acting_user", default=None)


def acting_user() -> ActingUser | None:
    return _acting_user.get()


@contextmanager
def acting_as(user: ActingUser | None) -> Iterator[None]:
    """Make `user` the identity of GitHub calls made inside this block (and the tasks
    it starts); None leaves the server's own credentials in force."""
    if user is not None:
        register_secret(user.token)
    reset = _acting_user.set(user)
    try:
        yield
    finally:
        _acting_user.reset(reset)


async def effective_token(server: Credentials) -> str | None:
    """The token a GitHub request made now should carry."""
    user = _acting_user.get()
    if user is not None:
        return user.token
    return await server.token()
