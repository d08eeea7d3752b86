"""Who may open /status: a sign-in form that takes an operator's bearer token (in place of
the HTTP Basic prompt), a session cookie, and the bearer header for scripts.

- GET /status without a session answers 401 with the sign-in form (no Basic challenge).
- POST /status/login checks the token and sets the session cookie the approval pages share
  (approvals/browser_session.py: HttpOnly, SameSite=Strict, Secure over HTTPS, signed with
  a key every replica derives from the configured secrets). A `next` field brings the
  browser back to the approval page that sent it here.
- Both forms (sign in, sign out) carry a CSRF token that must match a SameSite=Strict
  cookie, and a cross-site POST (Sec-Fetch-Site) is refused; the guard in front of the
  app already refuses a foreign Origin.
- Under GITHUB_MCP_AUTH=oauth a user signs in with GitHub instead (status/github_signin.py) and
  sees their own activity; a bearer token still shows the operator's whole page.
- No tokens configured: open on loopback as before (under OAuth: GitHub sign-in only).
"""

from __future__ import annotations

import html
import re
import secrets
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from github_mcp.approvals.browser_session import COOKIE as SESSION_COOKIE
from github_mcp.approvals.browser_session import BrowserSession, same
from github_mcp.monitoring.observability import log_event

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.pipeline.runtime import Runtime

CSRF_COOKIE = "github_mcp_status_csrf"
PATH = "/status"
# where a sign-in may send the browser back to: an approval page, or the user's own grants
NEXT = re.compile(r"/approvals/[A-Za-z0-9_-]{1,80}")
FORM_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
STYLE = (
    "body{font:15px system-ui,sans-serif;max-width:26rem;margin:4rem auto;color:#1f2328}"
    "input,button{font:inherit;padding:.45rem .6rem;margin:.3rem 0;width:100%;box-sizing:"
    "border-box}button{background:#1f883d;color:#fff;border:0;border-radius:6px}"
    ".error{color:#cf222e}"
)


class StatusSignIn:
    def __init__(
        self, settings: Settings, provider: Any = None, public_url: str | None = None
    ) -> None:
        from github_mcp.hosted.bearer_tokens import BearerTokens

        tokens = settings.bearer_tokens
        self.tokens = BearerTokens(tokens) if tokens else None
        self.oauth = settings.auth_mode == "oauth"
        self.open = settings.auth_mode == "none"
        self.secure_default = (settings.public_url or "").startswith("https://")
        self.session = BrowserSession(settings)
        secret = settings.oauth_client_secret
        self.github = None
        if self.oauth and provider is not None and public_url and secret is not None:
            from github_mcp.status.github_signin import GitHubStatusSignIn

            self.github = GitHubStatusSignIn(self, provider, public_url)

    def routes(self) -> list[Route]:
        routes = [
            Route(f"{PATH}/login", self.login, methods=["POST"]),
            Route(f"{PATH}/logout", self.logout, methods=["POST"]),
        ]
        return routes + (self.github.routes() if self.github else [])

    def visitor(self, request: Request) -> str | None:
        """The signed-in principal ("github:<login>" for a GitHub user), "anonymous"
        where no sign-in is needed, else None."""
        if self.open or (self.tokens is None and not self.oauth):
            return "anonymous"
        if self.tokens is None and self.github is None:
            return None
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and value:
            return self.tokens.principal_for(value) if self.tokens else None
        return self._session(request.cookies.get(SESSION_COOKIE, ""))

    def denied(self, request: Request) -> Response:
        if self.tokens is None and self.github is None:
            error = "operator pages need GITHUB_MCP_AUTH_TOKENS with GITHUB_MCP_AUTH=oauth"
            return JSONResponse({"error": error}, status_code=403)
        return self._form(request, error=None, status=401)

    def page_for(self, request: Request, rt: Runtime) -> Response | None:
        """The sign-in form, or a GitHub user's own activity; None for an operator."""
        visitor = self.visitor(request)
        if visitor is None:
            return self.denied(request)
        if not visitor.startswith("github:"):
            return None
        from github_mcp.status.github_signin import render_own_activity

        page = render_own_activity(rt, visitor.removeprefix("github:"), self.logout_form(request))
        return HTMLResponse(page, headers=FORM_HEADERS)

    def signed_in(self, request: Request, principal: str, back_to: str = PATH) -> Response:
        """Back to /status (or the approval page `back_to`) with the session cookie."""
        response = RedirectResponse(back_to if NEXT.fullmatch(back_to) else PATH, 303)
        self.session.start(response, principal, secure=self._secure(request))
        return response

    def logout_form(self, request: Request) -> str:
        """The sign-out button for the page (empty when nobody signed in by cookie)."""
        session = request.cookies.get(SESSION_COOKIE, "")
        if not self._session(session):
            return ""
        csrf = self._mac(f"logout|{session}")
        return (
            f'<form id="sign-out" method="post" action="{PATH}/logout">'
            f'<input type="hidden" name="csrf" value="{csrf}">'
            '<button type="submit">Sign out</button></form>'
        )

    # -- the two POSTs -------------------------------------------------------------------

    async def login(self, request: Request) -> Response:
        if self.tokens is None or _cross_site(request):
            return _refused("Sign-in is not available here.")
        form = await request.form()
        csrf, token = str(form.get("csrf", "")), str(form.get("token", ""))
        back_to = str(form.get("next", ""))
        if not _same(csrf, request.cookies.get(CSRF_COOKIE, "")):
            return _refused("The form's security token did not match; reload the page.")
        principal = self.tokens.principal_for(token.strip()) if token.strip() else None
        if principal is None:
            log_event("status_sign_in_failed")
            return self._form(
                request, error="That token is not valid here.", status=401, back_to=back_to
            )
        response = self.signed_in(request, principal, back_to)
        response.delete_cookie(CSRF_COOKIE, path=PATH)
        log_event("status_sign_in", principal=principal)
        return response

    async def logout(self, request: Request) -> Response:
        session = request.cookies.get(SESSION_COOKIE, "")
        form = await request.form()
        expected = self._mac(f"logout|{session}")
        if _cross_site(request) or not _same(str(form.get("csrf", "")), expected):
            return _refused("The form's security token did not match; reload the page.")
        response = RedirectResponse(PATH, status_code=303)
        self.session.end(response)
        return response

    # -- helpers ------------------------------------------------------------------------

    def _form(
        self, request: Request, *, error: str | None, status: int, back_to: str | None = None
    ) -> Response:
        csrf = secrets.token_urlsafe(24)
        note = f'<p class="error" id="error">{html.escape(error)}</p>' if error else ""
        github = ""
        if self.github is not None:
            github = (
                '<p><a id="sign-in-github" href="/status/github">Sign in with GitHub</a> '
                "to see your own activity.</p>"
            )
        form = ""
        if back_to is None:
            back_to = request.query_params.get("next", "")
        if self.tokens is not None:
            back = (
                f'<input type="hidden" name="next" value="{html.escape(back_to)}">'
                if NEXT.fullmatch(back_to)
                else ""
            )
            approving = (
                '<p id="approval-sign-in">Sign in to decide on the write waiting for '
                "approval; you come back to it afterwards.</p>"
                if back
                else ""
            )
            form = approving + (
                "<p>Operators: sign in with a bearer token (the one <code>make run</code> "
                "printed, or one of GITHUB_MCP_AUTH_TOKENS).</p>"
                f'{note}<form id="sign-in" method="post" action="{PATH}/login">'
                f'<input type="hidden" name="csrf" value="{csrf}">{back}'
                '<label for="token">Token</label><input id="token" name="token" '
                'type="password" autocomplete="current-password" required autofocus>'
                '<button id="submit" type="submit">Sign in</button></form>'
            )
        document = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in: '
            f"GitHub MCP Controller status</title><style>{STYLE}</style></head><body>"
            f"<h1>Server status</h1>{github}{form}</body></html>"
        )
        response = HTMLResponse(document, status_code=status, headers=FORM_HEADERS)
        response.set_cookie(
            CSRF_COOKIE, csrf, path=PATH, httponly=True, samesite="strict",
            secure=self._secure(request), max_age=3600,
        )  # fmt: skip
        return response

    def _session(self, value: str) -> str | None:
        return self.session.principal(value)

    def _mac(self, text: str) -> str:
        return self.session.mac(text)

    def _secure(self, request: Request) -> bool:
        forwarded = request.headers.get("x-forwarded-proto", "")
        return self.secure_default or request.url.scheme == "https" or forwarded == "https"


def _cross_site(request: Request) -> bool:
    return request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none")


_same = same


def _refused(message: str) -> Response:
    body = f"<!doctype html><title>Refused</title><p>{html.escape(message)}</p>"
    return HTMLResponse(body, status_code=403, headers=FORM_HEADERS)
