"""Who a GitHub token belongs to, and whether that user may use this server."""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from dataclasses import dataclass

import httpx2 as httpx
from fastmcp.server.auth import AccessToken, TokenVerifier

from github_mcp.config import Settings
from github_mcp.github.tls import tls_context
from github_mcp.monitoring.observability import log_event

USER_AGENT = "github-mcp-controller/0.1 (sign-in)"


@dataclass(frozen=True)
class GitHubUser:
    login: str
    user_id: int | None


class SignInPolicy:
    """GITHUB_MCP_ALLOWED_USERS / GITHUB_MCP_ALLOWED_ORGS: a user on either list may sign
    in; with both empty, any GitHub user may."""

    def __init__(self, users: frozenset[str], orgs: frozenset[str]) -> None:
        self.users = users
        self.orgs = orgs

    @classmethod
    def from_settings(cls, settings: Settings) -> SignInPolicy:
        return cls(settings.allowed_user_set, settings.allowed_org_set)

    @property
    def open(self) -> bool:
        return not self.users and not self.orgs

    def describe(self) -> str:
        if self.open:
            return "any GitHub user"
        parts = []
        if self.users:
            parts.append("users " + ", ".join(sorted(self.users)))
        if self.orgs:
            parts.append("members of " + ", ".join(sorted(self.orgs)))
        return " or ".join(parts)


class GitHubAPI:
    """The few user endpoints sign-in needs, called with the user's own token."""

    def __init__(self, api_url: str, api_version: str, timeout: float = 15.0) -> None:
        self.api_url = api_url.rstrip("/")
        self.api_version = api_version
        self.timeout = timeout

    def _headers(self, token: str) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": self.api_version,
            "User-Agent": USER_AGENT,
        }

    async def user(self, token: str) -> tuple[GitHubUser | None, list[str]]:
        """The token's user (None when GitHub refuses the token) and its scopes."""
        async with httpx.AsyncClient(timeout=self.timeout, verify=tls_context()) as client:
            response = await client.get(f"{self.api_url}/user", headers=self._headers(token))
        if response.status_code != 200:
            return None, []
        body = response.json()
        login = body.get("login") if isinstance(body, dict) else None
        if not isinstance(login, str) or not login:
            return None, []
        scopes = [s.strip() for s in response.headers.get("x-oauth-scopes", "").split(",")]
        user_id = body.get("id")
        return GitHubUser(login, user_id if isinstance(user_id, int) else None), [
            s for s in scopes if s
        ]

    async def org_logins(self, token: str, limit_pages: int = 10) -> set[str]:
        """The organizations the user belongs to (`GET /user/orgs`, bounded)."""
        found: set[str] = set()
        async with httpx.AsyncClient(timeout=self.timeout, verify=tls_context()) as client:
            for page in range(1, limit_pages + 1):
                response = await client.get(
                    f"{self.api_url}/user/orgs",
                    params={"per_page": 100, "page": page},
                    headers=self._headers(token),
                )
                if response.status_code != 200:
                    break
                items = response.json()
                if not isinstance(items, list):
                    break
                found |= {str(o.get("login", "")).lower() for o in items if isinstance(o, dict)}
                if len(items) < 100:
                    break
        return found

    async def admits(self, policy: SignInPolicy, user: GitHubUser, token: str) -> bool:
        if policy.open or user.login.lower() in policy.users:
            return True
        if policy.orgs:
            return bool(policy.orgs & await self.org_logins(token))
        return False


class GitHubUserVerifier(TokenVerifier):
    """Checks a GitHub user token on each request: GitHub must still accept it and its
    user must still be allowed. Answers are kept `ttl_s` seconds, keyed by the token's
    hash, so a busy session costs one `GET /user` a minute."""

    def __init__(
        self, api: GitHubAPI, policy: SignInPolicy, *, ttl_s: float = 60.0, max_entries: int = 4096
    ) -> None:
        super().__init__(required_scopes=None)
        self.api = api
        self.policy = policy
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self._answers: OrderedDict[str, tuple[float, AccessToken | None]] = OrderedDict()

    async def verify_token(self, token: str) -> AccessToken | None:
        key = hashlib.sha256(token.encode()).hexdigest()
        cached = self._answers.get(key)
        if cached is not None and cached[0] > time.monotonic():
            return cached[1]
        try:
            user, scopes = await self.api.user(token)
        except httpx.HTTPError as exc:
            log_event("oauth_verify_unreachable", error=type(exc).__name__)
            return None  # not cached: GitHub being away is not an answer about the token
        answer: AccessToken | None = None
        if user is not None:
            if await self.api.admits(self.policy, user, token):
                answer = AccessToken(
                    token=token,
                    client_id=f"github:{user.login}",
                    scopes=scopes,
                    subject=user.login,
                    claims={
                        "github_login": user.login,
                        "github_id": user.user_id,
                        # the approval and audit principal: Principal(login, "github")
                        "login": user.login,
                    },
                )
            else:
                log_event("oauth_user_not_allowed", login=user.login)
        self._answers[key] = (time.monotonic() + self.ttl_s, answer)
        self._answers.move_to_end(key)
        while len(self._answers) > self.max_entries:
            self._answers.popitem(last=False)
        return answer

    def forget(self, token: str) -> None:
        self._answers.pop(hashlib.sha256(token.encode()).hexdigest(), None)
