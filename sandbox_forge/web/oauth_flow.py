"""The browser side of GitHub's web application flow.

GET /login/oauth/authorize checks the app and its redirect URI (an unknown app or an
unregistered redirect URI gets an error page, never a redirect), sends a signed-out
browser to GET /login, and shows the authorize page. Its buttons POST back with the
session's CSRF token; Authorize redirects to `redirect_uri?code=…&state=…`, Cancel to
`redirect_uri?error=access_denied…`. A user who already granted the app these scopes is
sent straight back with a code, as GitHub does.
"""

from __future__ import annotations

import hmac
import re
from urllib.parse import urlencode, urlsplit, urlunsplit

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from sandbox_forge.stores.access import password_matches
from sandbox_forge.stores.oauth import OAuthApp, WebSession, parse_scopes
from sandbox_forge.stores.state import ForgeState
from sandbox_forge.web.pages import NO_STORE, authorize_page, error_page, login_page

SESSION_COOKIE = "user_session"
AUTHORIZE_PATH = "/login/oauth/authorize"
PKCE_CHALLENGE = re.compile(r"^[A-Za-z0-9._~-]{43,128}$")
ERROR_DOCS = (
    "https://docs.github.com/apps/managing-oauth-apps/"
    "troubleshooting-authorization-request-errors/#"
)
FLOW_FIELDS = ("client_id", "redirect_uri", "state", "scope", "code_challenge",
               "code_challenge_method", "login")  # fmt: skip


def _state(request: Request) -> ForgeState:
    return request.app.state.forge


def _session(request: Request) -> WebSession | None:
    return _state(request).oauth.session(request.cookies.get(SESSION_COOKIE))


def _set_cookie(response: Response, session: WebSession) -> Response:
    response.set_cookie(SESSION_COOKIE, session.id, httponly=True, samesite="lax", path="/")
    return response


def _redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=302, headers=NO_STORE)


def _with_query(url: str, params: dict[str, str]) -> str:
    parts = urlsplit(url)
    query = "&".join(q for q in (parts.query, urlencode(params)) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def _csrf_ok(session: WebSession | None, form: FormData) -> bool:
    given = str(form.get("authenticity_token") or "")
    return session is not None and bool(given) and hmac.compare_digest(given, session.csrf)


class _FlowRequest:
    """An authorize request's parameters, checked: the app, where to send the browser."""

    def __init__(self, state: ForgeState, params: dict[str, str]):
        self.params = {k: params[k] for k in FLOW_FIELDS if params.get(k)}
        self.app: OAuthApp | None = state.oauth.app(params.get("client_id"))
        wanted = params.get("redirect_uri")
        self.redirect_uri = self.app.resolve_redirect(wanted) if self.app else None
        self.scopes = () if self.app and self.app.expiring else parse_scopes(params.get("scope"))

    def problem_page(self) -> Response | None:
        if self.app is None:
            return error_page("Not Found", "No OAuth app has this client_id.", 404)
        if self.redirect_uri is None:
            return error_page(
                "Be careful!",
                "The redirect_uri is not associated with this application. The application "
                "might be misconfigured or could be trying to redirect you to a website you "
                "weren't expecting.",
                400,
            )
        return None

    def pkce_problem(self) -> str | None:
        challenge = self.params.get("code_challenge")
        method = self.params.get("code_challenge_method")
        if challenge is None and method is None:
            return None
        if method != "S256":
            return "Only the S256 code_challenge_method is supported."
        if challenge is None or not PKCE_CHALLENGE.match(challenge):
            return "code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]."
        return None

    def back(self, params: dict[str, str]) -> RedirectResponse:
        assert self.redirect_uri is not None
        if "state" in self.params:
            params = {**params, "state": self.params["state"]}
        return _redirect(_with_query(self.redirect_uri, params))

    def error(self, error: str, description: str) -> RedirectResponse:
        anchor = error.replace("_", "-")
        return self.back(
            {"error": error, "error_description": description, "error_uri": ERROR_DOCS + anchor}
        )

    def code(self, state: ForgeState, login: str) -> RedirectResponse:
        assert self.app is not None and self.redirect_uri is not None
        code = state.oauth.issue_code(
            self.app, login, self.redirect_uri, self.scopes, self.params.get("code_challenge")
        )
        return self.back({"code": code})


async def authorize(request: Request) -> Response:
    state = _state(request)
    if request.method == "POST":
        form = await request.form()
        flow = _FlowRequest(state, {k: str(v) for k, v in form.items()})
    else:
        form = None
        flow = _FlowRequest(state, dict(request.query_params))
    problem = flow.problem_page()
    if problem is not None:
        return problem
    pkce = flow.pkce_problem()
    if pkce is not None:
        return flow.error("invalid_request", pkce)
    session = _session(request)
    if form is not None:
        if not _csrf_ok(session, form) or session is None or session.login is None:
            return error_page("Forbidden", "Your session has expired. Sign in again.", 403)
        if form.get("authorize") != "1":
            return flow.error("access_denied", "The user has denied your application access.")
        return flow.code(state, session.login)
    if session is None or session.login is None:
        return_to = AUTHORIZE_PATH + "?" + urlencode(flow.params)
        login_hint = flow.params.get("login", "")
        query = urlencode({"return_to": return_to, **({"login": login_hint} if login_hint else {})})
        return _redirect("/login?" + query)
    assert flow.app is not None
    granted = state.oauth.granted_scopes(session.login, flow.app.client_id)
    if granted is not None and set(flow.scopes) <= set(granted):
        return flow.code(state, session.login)
    return authorize_page(session.csrf, session.login, flow.app.name, flow.scopes, flow.params)


def _safe_return_to(value: str | None) -> str:
    """Only back into the authorize flow: never an absolute or scheme-relative URL."""
    if value and value.startswith(AUTHORIZE_PATH) and "//" not in value and "\\" not in value:
        return value
    return "/login"


async def login_form(request: Request) -> Response:
    state = _state(request)
    session = _session(request) or state.oauth.new_session()
    return_to = _safe_return_to(request.query_params.get("return_to"))
    if session.login is not None and return_to != "/login":
        return _redirect(return_to)
    page = login_page(session.csrf, return_to, request.query_params.get("login", ""))
    return _set_cookie(page, session)


async def create_session(request: Request) -> Response:
    state = _state(request)
    form = await request.form()
    session = _session(request)
    return_to = _safe_return_to(str(form.get("return_to") or ""))
    if session is None or not _csrf_ok(session, form):
        return error_page("Forbidden", "Your session has expired. Reload the page.", 403)
    login = str(form.get("login") or "").strip()
    password = str(form.get("password") or "")
    user = state.user(login) or (state.user_by_email(login) if "@" in login else None)
    ok = (
        user is not None
        and user.type == "User"
        and await run_in_threadpool(password_matches, user.password_hash, password)
    )
    if not ok or user is None:
        return login_page(session.csrf, return_to, login, "Incorrect username or password.")
    state.oauth.end_session(session.id)
    signed_in = state.oauth.new_session(user.login)
    return _set_cookie(_redirect(return_to), signed_in)


async def logout(request: Request) -> Response:
    state = _state(request)
    form = await request.form()
    session = _session(request)
    if session is None or not _csrf_ok(session, form):
        return error_page("Forbidden", "Your session has expired. Reload the page.", 403)
    state.oauth.end_session(session.id)
    response = _redirect("/login")
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


def routes(state: ForgeState) -> list[Route]:
    return [
        Route(AUTHORIZE_PATH, authorize, methods=["GET", "POST"]),
        Route("/login", login_form, methods=["GET"]),
        Route("/session", create_session, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
    ]
