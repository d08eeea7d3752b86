"""The approval page: GET shows exactly what is to be written, POST records a human's
approve / deny / approve-for-N-minutes.

Who may decide is the principal the request belongs to, proven the way that principal
signs in:
- an OAuth user (GITHUB_MCP_AUTH=oauth): GitHub's own sign-in in the browser (this page
  runs GitHub's web flow and keeps the login in a signed, HttpOnly cookie), and the
  login must be the one whose write it is;
- a bearer-token principal: HTTP Basic with a token of that same principal as password;
- a caller with no identity (loopback without tokens): the link alone, which is
  single-use, short-lived and unguessable.
A POST also needs the page's CSRF token (a hidden field matching a SameSite=Strict
cookie and the request's own token) and the link's key; the first decision spends it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import secrets
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import httpx2 as httpx
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ..observability import log_event
from ..principal import Principal
from .render import STYLE, summary_html
from .requests import CHOICES, PAGE_PATH, ApprovalRequest, PendingApprovals, RequestClosed

CALLBACK_PATH = "/auth/callback/approvals"  # below GitHub's registered /auth/callback
APPROVER_COOKIE = "github_mcp_approver"
STATE_COOKIE = "github_mcp_approval_state"
CSRF_COOKIE = "github_mcp_approval_csrf"
APPROVER_SESSION_S = 3600
MAX_FLOWS = 1000
FLOW_TTL_S = 600
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'",
    # the link's key never leaves in a Referer to another site; same-origin keeps the
    # form POST's Origin header (with no-referrer Chromium sends `Origin: null`)
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
}

TokenPrincipal = Callable[[str], str | None]  # a bearer token -> its principal name


class ApprovalPage:
    def __init__(
        self,
        pending: PendingApprovals,
        *,
        bearer_principal: TokenPrincipal | None = None,
        sign_in: Any = None,
    ) -> None:
        self.pending = pending
        self.bearer_principal = bearer_principal
        self.sign_in = sign_in  # the OAuth provider (hosted.GitHubSignIn) in oauth mode
        self._flows: dict[str, tuple[str, str, float]] = {}  # state -> (id, key, started)

    def routes(self) -> list[Route]:
        routes = [
            Route(PAGE_PATH + "/{request_id}", self.show, methods=["GET"]),
            Route(PAGE_PATH + "/{request_id}", self.decide, methods=["POST"]),
        ]
        if self.sign_in is not None:
            routes.append(Route(CALLBACK_PATH, self.signed_in, methods=["GET"]))
        return routes

    # -- GET: the page ------------------------------------------------------------

    async def show(self, request: Request) -> Response:
        found = self.pending.find(request.path_params["request_id"])
        if found is None:
            return _page("Approval not found", "<p>No such approval request.</p>", 404)
        if not found.pending:
            return _closed(found)
        if not self.pending.key_matches(found, request.query_params.get("key", "")):
            return _page("Link not valid", "<p>This approval link is not valid.</p>", 403)
        visitor = self._visitor(request, found)
        if visitor is _SIGN_IN:
            return self._start_sign_in(request, found)
        if visitor is None:
            return _wrong_person(found)
        body = summary_html(found) + _form_html(found)
        response = _page("Approve this write?", body, 200)
        response.set_cookie(
            CSRF_COOKIE, found.csrf, path=f"{PAGE_PATH}/{found.id}", httponly=True,
            samesite="strict", secure=self._secure, max_age=FLOW_TTL_S,
        )  # fmt: skip
        return response

    # -- POST: the decision ---------------------------------------------------------

    async def decide(self, request: Request) -> Response:
        found = self.pending.find(request.path_params["request_id"])
        if found is None:
            return _page("Approval not found", "<p>No such approval request.</p>", 404)
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return _page("Refused", "<p>Cross-site request refused.</p>", 403)
        form = await request.form()
        visitor = self._visitor(request, found)
        if visitor is None or visitor is _SIGN_IN:
            return _wrong_person(found)
        if not found.pending:
            return _closed(found)
        key, csrf, choice = (str(form.get(n, "")) for n in ("key", "csrf", "choice"))
        if not self.pending.key_matches(found, key):
            return _page("Link not valid", "<p>This approval link is not valid.</p>", 403)
        cookie = request.cookies.get(CSRF_COOKIE, "")
        if not (_same(csrf, found.csrf) and _same(cookie, found.csrf)):
            return _page("Refused", "<p>The form's security token did not match.</p>", 403)
        if choice not in CHOICES:
            return _page("Refused", "<p>Unknown choice.</p>", 400)
        try:
            self.pending.decide(found, choice, visitor.key)  # type: ignore[arg-type]
        except RequestClosed:
            return _closed(found)
        log_event("approval_page_decision", request=found.id, choice=choice, by=visitor.key)
        return _closed(found)

    # -- who is at the page -----------------------------------------------------------

    def _visitor(self, request: Request, found: ApprovalRequest) -> Any:
        """The principal proven by this browser if it is the request's own; None when it
        is someone else; _SIGN_IN when an OAuth user has not signed in here yet."""
        owner = found.scope.principal
        if owner.kind == "github":
            login = self._approver_login(request)
            if login is None:
                return _SIGN_IN
            return owner if login.lower() == owner.name.lower() else None
        if owner.kind == "bearer":
            name = self._basic_principal(request)
            return owner if name is not None and name == owner.name else None
        return owner  # no identity behind the call: the link is the credential

    def _basic_principal(self, request: Request) -> str | None:
        if self.bearer_principal is None:
            return None
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "basic" or not value:
            return None
        try:
            password = base64.b64decode(value, validate=True).decode().partition(":")[2]
        except (ValueError, UnicodeDecodeError):
            return None
        return self.bearer_principal(password) if password else None

    def _approver_login(self, request: Request) -> str | None:
        value = request.cookies.get(APPROVER_COOKIE, "")
        login, _, rest = value.partition("|")
        expires, _, mac = rest.partition("|")
        if not (login and expires.isdigit() and mac):
            return None
        if not _same(mac, self._mac(f"{login}|{expires}")) or int(expires) < time.time():
            return None
        return login

    def _mac(self, text: str) -> str:
        return hmac.new(self.pending.cookie_key, text.encode(), hashlib.sha256).hexdigest()

    @property
    def _secure(self) -> bool:
        return (self.pending.public_url or "").startswith("https://")

    # -- OAuth mode: GitHub's web flow, for this page only ------------------------------

    def _start_sign_in(self, request: Request, found: ApprovalRequest) -> Response:
        if self.sign_in is None:
            return _wrong_person(found)
        now = time.time()
        for state, (_, _, started) in list(self._flows.items()):
            if now - started > FLOW_TTL_S or len(self._flows) > MAX_FLOWS:
                self._flows.pop(state, None)
        state = secrets.token_urlsafe(24)
        self._flows[state] = (found.id, found.key, now)
        query = urlencode(
            {"client_id": self.sign_in._upstream_client_id, "redirect_uri": self._callback_url,
             "state": state, "allow_signup": "false"}
        )  # fmt: skip
        response = RedirectResponse(f"{self.sign_in.endpoints.authorize}?{query}", 302)
        response.set_cookie(
            STATE_COOKIE, state, path=CALLBACK_PATH, httponly=True, samesite="lax",
            secure=self._secure, max_age=FLOW_TTL_S,
        )  # fmt: skip
        return response

    @property
    def _callback_url(self) -> str:
        return f"{(self.pending.public_url or '').rstrip('/')}{CALLBACK_PATH}"

    async def signed_in(self, request: Request) -> Response:
        state = request.query_params.get("state", "")
        flow = self._flows.pop(state, None) if state else None
        if flow is None or not _same(request.cookies.get(STATE_COOKIE, ""), state):
            return _page("Sign-in failed", "<p>This sign-in was not started here.</p>", 400)
        request_id, key, _ = flow
        code = request.query_params.get("code")
        login = await self._login_for_code(code) if code else None
        if login is None:
            return _page("Sign-in failed", "<p>GitHub did not confirm who you are.</p>", 403)
        expires = str(int(time.time()) + APPROVER_SESSION_S)
        value = f"{login}|{expires}|{self._mac(f'{login}|{expires}')}"
        response = RedirectResponse(f"{PAGE_PATH}/{request_id}?key={key}", 303)
        response.set_cookie(
            APPROVER_COOKIE, value, path=PAGE_PATH, httponly=True, samesite="lax",
            secure=self._secure, max_age=APPROVER_SESSION_S,
        )  # fmt: skip
        response.delete_cookie(STATE_COOKIE, path=CALLBACK_PATH)
        log_event("approval_page_sign_in", login=login)
        return response

    async def _login_for_code(self, code: str) -> str | None:
        """Exchange the code, ask GitHub who it is, then revoke that identity-only token."""
        sign_in = self.sign_in
        secret = sign_in._upstream_client_secret.get_secret_value()
        try:
            async with httpx.AsyncClient(timeout=10.0) as client:
                response = await client.post(
                    sign_in.endpoints.access_token,
                    data={"client_id": sign_in._upstream_client_id, "client_secret": secret,
                          "code": code, "redirect_uri": self._callback_url},
                    headers={"Accept": "application/json"},
                )  # fmt: skip
        except httpx.HTTPError:
            return None
        body = response.json() if response.status_code == 200 else {}
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token:
            return None
        user, _ = await sign_in.api.user(token)
        await sign_in._revoke_upstream(token)
        return user.login if user is not None else None


_SIGN_IN = Principal("sign-in needed", "anonymous")


def _same(a: str, b: str) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(a.encode(), b.encode())


# -- HTML --------------------------------------------------------------------------------


def _page(title: str, body: str, status: int) -> HTMLResponse:
    document = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}'
        f"</title><style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}"
        "</body></html>"
    )
    return HTMLResponse(document, status_code=status, headers=SECURITY_HEADERS)


def _closed(found: ApprovalRequest) -> HTMLResponse:
    words = {
        "approved": "Approved: this write may go ahead once.",
        "approved_window": f"Approved: gated writes pass for {found.window_minutes} minutes.",
        "denied": "Denied: nothing was approved.",
        "declined": "The client declined to open this page; nothing was approved.",
        "expired": "This approval request expired; nothing was approved.",
    }
    text = words.get(found.status, found.status)
    status = 200 if found.status in ("approved", "approved_window", "denied") else 410
    body = f'<p id="outcome" data-status="{html.escape(found.status)}">{html.escape(text)}</p>'
    return _page("Approval " + found.status.replace("_", " "), body, status)


def _wrong_person(found: ApprovalRequest) -> HTMLResponse:
    owner = found.scope.principal
    who = owner.name if owner.kind == "github" else "another principal"
    body = (
        f"<p>This approval belongs to {html.escape(who)}. Sign in as that user (or use that "
        "principal's credentials) to decide on it.</p>"
    )
    return _page("Not your approval", body, 403)


def _form_html(found: ApprovalRequest) -> str:
    fields = (
        f'<input type="hidden" name="key" value="{html.escape(found.key)}">'
        f'<input type="hidden" name="csrf" value="{html.escape(found.csrf)}">'
    )
    buttons = (
        '<button id="approve" name="choice" value="approve">Approve</button>'
        f'<button id="approve-window" name="choice" value="approve_window">Approve for '
        f"{found.window_minutes} minutes</button>"
        '<button id="deny" name="choice" value="deny">Deny</button>'
    )
    action = f"{PAGE_PATH}/{html.escape(found.id)}"
    return f'<form method="post" action="{action}">{fields}{buttons}</form>'
