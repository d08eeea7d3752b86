"""Who may open /status: a sign-in form that takes an operator's bearer token (in place of
the HTTP Basic prompt), a session cookie, and the bearer header for scripts.

- GET /status without a session answers 401 with the sign-in form (no Basic challenge).
- POST /status/login checks the token and sets the session cookie: HttpOnly,
  SameSite=Strict, Path=/status, Secure when the page is served over HTTPS. Its value is
  the principal, an expiry and an HMAC under a key derived from the configured tokens, so
  every replica with the same tokens accepts it and changing the tokens ends all sessions.
- Both forms (sign in, sign out) carry a CSRF token that must match a SameSite=Strict
  cookie, and a cross-site POST (Sec-Fetch-Site) is refused; the guard in front of the
  app already refuses a foreign Origin.
- Under GITHUB_MCP_AUTH=oauth a user signs in with GitHub instead (status/github_signin.py) and
  sees their own activity; a bearer token still shows the operator's whole page.
- No tokens configured: open on loopback as before (under OAuth: GitHub sign-in only).
"""

from __future__ import annotations

import hashlib
import hmac
import html
import secrets
import time
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from github_mcp.monitoring.observability import log_event

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.pipeline.runtime import Runtime

SESSION_COOKIE = "github_mcp_status"
CSRF_COOKIE = "github_mcp_status_csrf"
PATH = "/status"
SESSION_S = 8 * 3600
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
        # the key is derived from secrets every replica shares: the tokens, and under
        # OAuth the app's client secret (never from nothing: a session needs one of them)
        seed = sorted(hashlib.sha256(t.encode()).digest() for t in tokens)
        secret = settings.oauth_client_secret
        if self.oauth and secret is not None:
            seed.append(hashlib.sha256(b"oauth\0" + secret.get_secret_value().encode()).digest())
        self.key = hashlib.sha256(b"github-mcp status session\0" + b"\0".join(seed)).digest()
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

    def signed_in(self, request: Request, principal: str) -> Response:
        """Back to /status with the session cookie for `principal`."""
        expires = str(int(time.time()) + SESSION_S)
        value = f"{principal}|{expires}|{self._mac(f'{principal}|{expires}')}"
        response = RedirectResponse(PATH, status_code=303)
        response.set_cookie(
            SESSION_COOKIE, value, path=PATH, httponly=True, samesite="strict",
            secure=self._secure(request), max_age=SESSION_S,
        )  # fmt: skip
        return response

    def logout_form(self, request: Request) -> str:
        """The sign-out button for the page (empty when nobody signed in by cookie)."""
        session = request.cookies.get(SESSION_COOKIE, "")
        if not self._session(session):
            return ""
        csrf = self._mac(f"logout|{session}")
        return (
            f'<form id="sign-out" method="post" action="{PATH}/logout" style="float:right">'
            f'<input type="hidden" name="csrf" value="{csrf}">'
            '<button style="width:auto">Sign out</button></form>'
        )

    # -- the two POSTs -------------------------------------------------------------------

    async def login(self, request: Request) -> Response:
        if self.tokens is None or _cross_site(request):
            return _refused("Sign-in is not available here.")
        form = await request.form()
        csrf, token = str(form.get("csrf", "")), str(form.get("token", ""))
        if not _same(csrf, request.cookies.get(CSRF_COOKIE, "")):
            return _refused("The form's security token did not match; reload the page.")
        principal = self.tokens.principal_for(token.strip()) if token.strip() else None
        if principal is None:
            log_event("status_sign_in_failed")
            return self._form(request, error="That token is not valid here.", status=401)
        response = self.signed_in(request, principal)
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
        response.delete_cookie(SESSION_COOKIE, path=PATH)
        return response

    # -- helpers ------------------------------------------------------------------------

    def _form(self, request: Request, *, error: str | None, status: int) -> Response:
        csrf = secrets.token_urlsafe(24)
        note = f'<p class="error" id="error">{html.escape(error)}</p>' if error else ""
        github = ""
        if self.github is not None:
            github = (
                '<p><a id="sign-in-github" href="/status/github">Sign in with GitHub</a> '
                "to see your own activity.</p>"
            )
        form = ""
        if self.tokens is not None:
            form = (
                "<p>Operators: sign in with a bearer token (the one <code>make run</code> "
                "printed, or one of GITHUB_MCP_AUTH_TOKENS).</p>"
                f'{note}<form id="sign-in" method="post" action="{PATH}/login">'
                f'<input type="hidden" name="csrf" value="{csrf}">'
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
        principal, _, rest = value.partition("|")
        expires, _, mac = rest.partition("|")
        if not (principal and expires.isdigit() and mac):
            return None
        if not _same(mac, self._mac(f"{principal}|{expires}")) or int(expires) < time.time():
            return None
        return principal

    def _mac(self, text: str) -> str:
        return hmac.new(self.key, text.encode(), hashlib.sha256).hexdigest()

    def _secure(self, request: Request) -> bool:
        forwarded = request.headers.get("x-forwarded-proto", "")
        return self.secure_default or request.url.scheme == "https" or forwarded == "https"


def _cross_site(request: Request) -> bool:
    return request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none")


def _same(a: str, b: str) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(a.encode(), b.encode())


def _refused(message: str) -> Response:
    body = f"<!doctype html><title>Refused</title><p>{html.escape(message)}</p>"
    return HTMLResponse(body, status_code=403, headers=FORM_HEADERS)
