"""/status under GITHUB_MCP_AUTH=oauth: a user signs in with GitHub's web flow (the same
OAuth app as the MCP sign-in, callback below its registered /auth/callback) and sees their
own activity; an operator's bearer token still shows everything (status/auth.py).

The code is exchanged here, GitHub is asked who it is, and that identity-only token is
revoked at once: the page keeps only the login, in status/auth.py's signed session cookie.
"""

from __future__ import annotations

import html
import secrets
import time
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlencode

import httpx2 as httpx
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from github_mcp.monitoring.observability import log_event

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

START_PATH = "/status/github"
CALLBACK_PATH = "/auth/callback/status"
STATE_COOKIE = "github_mcp_status_state"
FLOW_TTL_S = 600
MAX_FLOWS = 1000
USER_PREFIX = "github:"


class SignInHost(Protocol):
    """What this flow needs of auth.py's StatusSignIn, which builds it; a Protocol so
    that this module does not import auth.py back."""

    def signed_in(self, request: Request, principal: str) -> Response: ...

    def _secure(self, request: Request) -> bool: ...


class GitHubStatusSignIn:
    def __init__(self, status: SignInHost, provider: Any, public_url: str) -> None:
        self.status = status
        self.provider = provider  # hosted.GitHubSignIn
        self.callback_url = public_url.rstrip("/") + CALLBACK_PATH
        self._flows: dict[str, float] = {}

    def routes(self) -> list[Route]:
        return [
            Route(START_PATH, self.start, methods=["GET"]),
            Route(CALLBACK_PATH, self.finish, methods=["GET"]),
        ]

    async def start(self, request: Request) -> Response:
        now = time.time()
        for state, started in list(self._flows.items()):
            if now - started > FLOW_TTL_S or len(self._flows) > MAX_FLOWS:
                self._flows.pop(state, None)
        state = secrets.token_urlsafe(24)
        self._flows[state] = now
        query = urlencode(
            {"client_id": self.provider.app_client_id, "redirect_uri": self.callback_url,
             "state": state, "allow_signup": "false"}
        )  # fmt: skip
        response = RedirectResponse(f"{self.provider.endpoints.authorize}?{query}", 302)
        response.set_cookie(
            STATE_COOKIE, state, path=CALLBACK_PATH, httponly=True, samesite="lax",
            secure=self.status._secure(request), max_age=FLOW_TTL_S,
        )  # fmt: skip
        return response

    async def finish(self, request: Request) -> Response:
        state = request.query_params.get("state", "")
        started = self._flows.pop(state, None) if state else None
        cookie = request.cookies.get(STATE_COOKIE, "")
        if started is None or not secrets.compare_digest(cookie.encode(), state.encode()):
            return _page("Sign-in failed", "This sign-in was not started here.", 400)
        code = request.query_params.get("code")
        login = await self._login_for(code) if code else None
        if login is None:
            return _page("Sign-in failed", "GitHub did not confirm who you are.", 403)
        response = self.status.signed_in(request, USER_PREFIX + login)
        response.delete_cookie(STATE_COOKIE, path=CALLBACK_PATH)
        log_event("status_sign_in", principal=USER_PREFIX + login)
        return response

    async def _login_for(self, code: str) -> str | None:
        provider = self.provider
        secret = provider.app_client_secret.get_secret_value()
        try:
            async with httpx.AsyncClient(timeout=10.0) as client:
                answer = await client.post(
                    provider.endpoints.access_token,
                    data={"client_id": provider.app_client_id, "client_secret": secret,
                          "code": code, "redirect_uri": self.callback_url},
                    headers={"Accept": "application/json"},
                )  # fmt: skip
        except httpx.HTTPError:
            return None
        body = answer.json() if answer.status_code == 200 else {}
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            return None
        user, _ = await provider.api.user(token)
        await provider._revoke_upstream(token)
        return user.login if user is not None else None


def render_own_activity(rt: Runtime, login: str, sign_out: str) -> str:
    """A signed-in user's view: their own writes from the audit log, newest first."""
    own = [
        e
        for e in rt.audit.recent
        if e.get("principal_kind") == "github"
        and str(e.get("principal", "")).lower() == login.lower()
    ][::-1][:50]
    rows = (
        "".join(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(e.get(k, '')))}</td>"
                for k in ("ts", "tool", "repo", "ref", "outcome", "call_id")
            )
            + "</tr>"
            for e in own
        )
        or '<tr><td colspan="6">no writes yet</td></tr>'
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your activity: '
        "GitHub MCP Controller</title><style>body{font:14px system-ui,sans-serif;margin:2rem}"
        "td,th{padding:.3rem .6rem;text-align:left;border-bottom:1px solid #ddd}</style>"
        f"</head><body>{sign_out}<h1>Your activity</h1><p>Signed in as "
        f'<strong id="login">{html.escape(login)}</strong>. Operators sign in with a bearer '
        'token to see the whole server.</p><table id="own-audit"><thead><tr><th>time</th>'
        "<th>tool</th><th>repo</th><th>ref</th><th>outcome</th><th>call id</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></body></html>"
    )


def _page(title: str, text: str, status: int) -> HTMLResponse:
    body = f"<!doctype html><title>{html.escape(title)}</title><p>{html.escape(text)}</p>"
    return HTMLResponse(body, status_code=status, headers={"Cache-Control": "no-store"})
