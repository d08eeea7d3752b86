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

The link's key travels in its fragment (`#key=…`), which browsers never send: a tiny
script posts it to `…/open`, which keeps it in an HttpOnly cookie for this request's
path only. So no URL that a proxy or server logs carries the key. Nothing here is held
in one process: requests live in the gate's store (Redis with replicas), and the
sign-in state and cookies are signed with a key every replica shares.
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

from github_mcp.approvals.record import CHOICES, ApprovalRequest
from github_mcp.approvals.render import STYLE, summary_html
from github_mcp.approvals.requests import PAGE_PATH, PendingApprovals, RequestClosed
from github_mcp.kernel.principal import Principal
from github_mcp.monitoring.observability import log_event

CALLBACK_PATH = "/auth/callback/approvals"  # below GitHub's registered /auth/callback
APPROVER_COOKIE = "github_mcp_approver"
STATE_COOKIE = "github_mcp_approval_state"
CSRF_COOKIE = "github_mcp_approval_csrf"
KEY_COOKIE = "github_mcp_approval_key"
APPROVER_SESSION_S = 3600
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

    def routes(self) -> list[Route]:
        routes = [
            Route(PAGE_PATH + "/{request_id}", self.show, methods=["GET"]),
            Route(PAGE_PATH + "/{request_id}", self.decide, methods=["POST"]),
            Route(PAGE_PATH + "/{request_id}/open", self.open_link, methods=["POST"]),
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
        if not self.pending.key_matches(found, request.cookies.get(KEY_COOKIE, "")):
            return _loader(found)  # the key is in the fragment: the page posts it
        visitor = self._visitor(request, found)
        if visitor is _SIGN_IN:
            return self._start_sign_in(request, found)
        if visitor is None:
            return _wrong_person(found)
        body = summary_html(found) + _form_html(found, self.pending.offers_window(found))
        response = _page("Approve this write?", body, 200)
        response.set_cookie(
            CSRF_COOKIE, found.csrf, path=f"{PAGE_PATH}/{found.id}", httponly=True,
            samesite="strict", secure=self._secure, max_age=FLOW_TTL_S,
        )  # fmt: skip
        return response

    async def open_link(self, request: Request) -> Response:
        """The loader's POST of the fragment's key: kept in a cookie for this request's
        path, then the page itself (a GET whose URL carries no secret)."""
        found = self.pending.find(request.path_params["request_id"])
        if found is None:
            return _page("Approval not found", "<p>No such approval request.</p>", 404)
        if not found.pending:
            return _closed(found)
        key = str((await request.form()).get("key", ""))
        if not self.pending.key_matches(found, key):
            return _page("Link not valid", "<p>This approval link is not valid.</p>", 403)
        response = RedirectResponse(f"{PAGE_PATH}/{found.id}", 303)
        response.set_cookie(
            KEY_COOKIE, key, path=f"{PAGE_PATH}/{found.id}", httponly=True, samesite="lax",
            secure=self._secure, max_age=FLOW_TTL_S,
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
        if choice == "approve_window" and not self.pending.offers_window(found):
            return _page("Refused", "<p>This client has no session: no window.</p>", 400)
        try:
            self.pending.decide(found, choice, visitor.key)  # type: ignore[arg-type]
        except RequestClosed:
            return _closed(self.pending.find(found.id) or found)
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
        return self.start_sign_in(found.id)

    def start_sign_in(self, page_id: str) -> Response:
        """GitHub's web flow, back to `/approvals/{page_id}` (a request, or `grants`)."""
        assert self.sign_in is not None
        # the state names the page and is signed: any replica can take the callback
        body = f"{page_id}.{int(time.time())}.{secrets.token_urlsafe(12)}"
        state = f"{body}.{self._mac(body)}"
        query = urlencode(
            {"client_id": self.sign_in._upstream_client_id, "redirect_uri": self._callback_url,
             "state": state, "allow_signup": "false"}
        )  # fmt: skip
        # a page that moves on by itself, not a redirect: the browser got here from the
        # link's form, whose form-action 'self' would block a redirect to GitHub
        target = html.escape(f"{self.sign_in.endpoints.authorize}?{query}")
        body = (
            f'<meta http-equiv="refresh" content="0;url={target}">'
            f'<p>Sign in with GitHub to see this approval: <a href="{target}">continue</a>.</p>'
        )
        response = _page("Sign in to approve", body, 200)
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
        request_id = self._flow_request(state)
        if request_id is None or not _same(request.cookies.get(STATE_COOKIE, ""), state):
            return _page("Sign-in failed", "<p>This sign-in was not started here.</p>", 400)
        code = request.query_params.get("code")
        login = await self._login_for_code(code) if code else None
        if login is None:
            return _page("Sign-in failed", "<p>GitHub did not confirm who you are.</p>", 403)
        expires = str(int(time.time()) + APPROVER_SESSION_S)
        value = f"{login}|{expires}|{self._mac(f'{login}|{expires}')}"
        response = RedirectResponse(f"{PAGE_PATH}/{request_id}", 303)
        response.set_cookie(
            APPROVER_COOKIE, value, path=PAGE_PATH, httponly=True, samesite="lax",
            secure=self._secure, max_age=APPROVER_SESSION_S,
        )  # fmt: skip
        response.delete_cookie(STATE_COOKIE, path=CALLBACK_PATH)
        log_event("approval_page_sign_in", login=login)
        return response

    def _flow_request(self, state: str) -> str | None:
        """The request id a signed, unexpired sign-in state names."""
        body, _, mac = state.rpartition(".")
        request_id, _, rest = body.partition(".")
        started = rest.partition(".")[0]
        if not (request_id and started.isdigit() and _same(mac, self._mac(body))):
            return None
        return request_id if time.time() - int(started) <= FLOW_TTL_S else None

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


def _page(
    title: str, body: str, status: int, headers: dict[str, str] | None = None
) -> HTMLResponse:
    document = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}'
        f"</title><style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}"
        "</body></html>"
    )
    return HTMLResponse(document, status_code=status, headers=headers or SECURITY_HEADERS)


def _loader(found: ApprovalRequest) -> HTMLResponse:
    """Posts the link's fragment key to `…/open`; the only page with a script (its
    nonce is the only one the policy allows)."""
    nonce = secrets.token_urlsafe(16)
    action = f"{PAGE_PATH}/{html.escape(found.id)}/open"
    script = (
        "var m=/(?:^#|&)key=([^&]*)/.exec(location.hash);"
        "history.replaceState(null,'',location.pathname);"
        "if(m){document.getElementById('k').value=decodeURIComponent(m[1]);"
        "document.getElementById('f').submit();}"
        "else{document.getElementById('none').hidden=false;}"
    )
    body = (
        f'<form id="f" method="post" action="{action}"><input type="hidden" name="key" id="k">'
        '</form><p id="none" hidden>This approval link is not valid: it carries no key.</p>'
        "<noscript><p>This page needs JavaScript to read the link's key, which stays out "
        "of every server log.</p></noscript>"
        f'<script nonce="{nonce}">{script}</script>'
    )
    policy = SECURITY_HEADERS["Content-Security-Policy"] + f"; script-src 'nonce-{nonce}'"
    headers = {**SECURITY_HEADERS, "Content-Security-Policy": policy}
    return _page("Opening the approval…", body, 200, headers)


def _closed(found: ApprovalRequest) -> HTMLResponse:
    words = {
        "approved": "Approved: this write may go ahead once."
        if found.summary is not None
        else "Approved: gated writes in this session pass for the approval's time.",
        "approved_window": f"Approved: gated writes in this client session pass for "
        f"{found.window_minutes} minutes (not in your other sessions).",
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


def button_meanings(found: ApprovalRequest, windows: bool) -> list[tuple[str, str, str, str]]:
    """(id, choice, label, exactly what it grants) for each button the page offers.
    A client without a session is offered no window: per-write approvals only."""
    minutes = found.window_minutes
    session = "this client session (the one that asked; not your other sessions or clients)"
    if found.summary is not None:
        choices = [
            (
                "approve",
                "approve",
                "Approve this write once",
                "Lets exactly this call, with these arguments, run once; nothing else.",
            )
        ]
    else:
        choices = [
            (
                "approve",
                "approve",
                "Approve gated writes in this session",
                f"Gated writes from {session} pass until the approval expires.",
            )
        ]
    if windows:
        choices.append(
            (
                "approve-window",
                "approve_window",
                f"Approve for {minutes} minutes",
                f"Every gated write from {session} passes for {minutes} minutes, "
                "then approval is asked again.",
            )
        )
    choices.append(("deny", "deny", "Deny", "Nothing is approved; the call is refused."))
    return choices  # fmt: skip


def _form_html(found: ApprovalRequest, windows: bool = True) -> str:
    fields = (
        f'<input type="hidden" name="key" value="{html.escape(found.key)}">'
        f'<input type="hidden" name="csrf" value="{html.escape(found.csrf)}">'
    )
    meanings = button_meanings(found, windows)
    buttons = "".join(
        f'<button id="{b}" name="choice" value="{c}">{html.escape(label)}</button>'
        for b, c, label, _ in meanings
    )
    notes = "".join(
        f'<li data-choice="{c}"><strong>{html.escape(label)}</strong>: {html.escape(what)}</li>'
        for _, c, label, what in meanings
    )
    action = f"{PAGE_PATH}/{html.escape(found.id)}"
    return (
        f'<form method="post" action="{action}">{fields}{buttons}</form>'
        f'<ul id="choices">{notes}</ul>'
    )
