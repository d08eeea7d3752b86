"""Who is at the approval page, and how they prove it is their approval to decide. The
pages share /status's sign-in (approvals/browser_session.py): one session cookie, never a
browser's HTTP Basic prompt.

- an OAuth user (GITHUB_MCP_AUTH=oauth): GitHub's own sign-in in the browser (GitHub's web
  flow, run here when the user has not signed in to /status with GitHub), which starts the
  shared session;
- a bearer-token principal: the session /status's sign-in form starts with a token of that
  same principal (the page sends the browser there and gets it back), or an
  `Authorization: Bearer` header from a script;
- a caller with no identity (loopback without tokens): the link alone.
The sign-in state and the cookies are signed with keys every replica shares.
"""

from __future__ import annotations

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
from starlette.responses import RedirectResponse, Response

from github_mcp.approvals.browser_session import COOKIE as SESSION_COOKIE
from github_mcp.approvals.browser_session import GITHUB_PREFIX, BrowserSession
from github_mcp.approvals.page_html import page, wrong_person
from github_mcp.approvals.record import ApprovalRequest
from github_mcp.approvals.requests import PAGE_PATH, PendingApprovals
from github_mcp.kernel.principal import Principal
from github_mcp.monitoring.observability import log_event

CALLBACK_PATH = "/auth/callback/approvals"  # below GitHub's registered /auth/callback
APPROVER_COOKIE = "github_mcp_approver"
STATE_COOKIE = "github_mcp_approval_state"
APPROVER_SESSION_S = 3600
FLOW_TTL_S = 600

TokenPrincipal = Callable[[str], str | None]  # a bearer token -> its principal name

# The visitor of a request whose owner must sign in first (nobody signed in here yet).
SIGN_IN = Principal("sign-in needed", "anonymous")
STATUS_SIGN_IN = "/status"  # the sign-in form for bearer principals (status/auth.py)


def same(a: str, b: str) -> bool:
    """Both given and equal, compared in constant time."""
    return bool(a) and bool(b) and hmac.compare_digest(a.encode(), b.encode())


class Approver:
    def __init__(
        self,
        pending: PendingApprovals,
        bearer_principal: TokenPrincipal | None = None,
        sign_in: Any = None,
        browser: BrowserSession | None = None,
    ) -> None:
        self.pending = pending
        self.bearer_principal = bearer_principal
        self.sign_in = sign_in  # the OAuth provider (hosted.GitHubSignIn) in oauth mode
        self.browser = browser  # the session /status's sign-in starts

    def visitor(self, request: Request, found: ApprovalRequest) -> Principal | None:
        """The principal proven by this browser if it is the request's own; None when it
        is someone else; SIGN_IN when nobody has signed in yet."""
        owner = found.scope.principal
        if owner.kind not in ("github", "bearer"):
            return owner  # no identity behind the call: the link is the credential
        who = self.signed_in_as(request)
        if who is None:
            return SIGN_IN
        if who.kind != owner.kind:
            return None
        if owner.kind == "github":
            return owner if who.name.lower() == owner.name.lower() else None
        return owner if who.name == owner.name else None

    def signed_in_as(self, request: Request) -> Principal | None:
        """Who this browser (or script) proved to be: a GitHub login, or the principal of a
        bearer token given in /status's sign-in form or an Authorization header."""
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and value and self.bearer_principal is not None:
            name = self.bearer_principal(value)
            return Principal(name, "bearer") if name else None
        login = self.login(request)
        if login is not None:
            return Principal(login, "github")
        session = self.browser.principal(request.cookies.get(SESSION_COOKIE, "")) if (
            self.browser is not None and self.bearer_principal is not None
        ) else None  # fmt: skip
        if session is not None and not session.startswith(GITHUB_PREFIX):
            return Principal(session, "bearer")
        return None

    def sign_in_for(self, page_id: str, owner_kind: str) -> Response:
        """Where a visitor who has not signed in goes: GitHub's sign-in for a GitHub user,
        /status's form (back here afterwards) for a bearer principal."""
        if owner_kind == "github" and self.sign_in is not None:
            return self.start_sign_in(page_id)
        if owner_kind == "bearer" and self.bearer_principal is not None:
            return RedirectResponse(f"{STATUS_SIGN_IN}?next={PAGE_PATH}/{page_id}", 303)
        body = "<p>Sign in to this server's status page first, then open the link again.</p>"
        return page("Sign in to approve", body, 401)

    def login(self, request: Request) -> str | None:
        """The GitHub login this browser signed in as: on /status (the shared session) or
        through this page's own GitHub sign-in (its signed cookie)."""
        if self.browser is not None and self.sign_in is not None:
            shared = self.browser.github_login(request.cookies.get(SESSION_COOKIE, ""))
            if shared is not None:
                return shared
        value = request.cookies.get(APPROVER_COOKIE, "")
        login, _, rest = value.partition("|")
        expires, _, mac = rest.partition("|")
        if not (login and expires.isdigit() and mac):
            return None
        if not same(mac, self._mac(f"{login}|{expires}")) or int(expires) < time.time():
            return None
        return login

    def _mac(self, text: str) -> str:
        return hmac.new(self.pending.cookie_key, text.encode(), hashlib.sha256).hexdigest()

    @property
    def secure(self) -> bool:
        """Whether cookies are marked Secure: the page is served over HTTPS."""
        return (self.pending.public_url or "").startswith("https://")

    # -- OAuth mode: GitHub's web flow, for the approval pages only --------------------

    def start_for(self, found: ApprovalRequest) -> Response:
        if found.scope.principal.kind == "github" and self.sign_in is None:
            return wrong_person(found)
        return self.sign_in_for(found.id, found.scope.principal.kind)

    def start_sign_in(self, page_id: str) -> Response:
        """GitHub's web flow, back to `/approvals/{page_id}` (a request, or `grants`)."""
        assert self.sign_in is not None
        # the state names the page and is signed: any replica can take the callback
        body = f"{page_id}.{int(time.time())}.{secrets.token_urlsafe(12)}"
        state = f"{body}.{self._mac(body)}"
        query = urlencode(
            {"client_id": self.sign_in.app_client_id, "redirect_uri": self._callback_url,
             "state": state, "allow_signup": "false"}
        )  # fmt: skip
        # a page that moves on by itself, not a redirect: the browser got here from the
        # link's form, whose form-action 'self' would block a redirect to GitHub
        target = html.escape(f"{self.sign_in.endpoints.authorize}?{query}")
        body = (
            f'<meta http-equiv="refresh" content="0;url={target}">'
            f'<p>Sign in with GitHub to see this approval: <a href="{target}">continue</a>.</p>'
        )
        response = page("Sign in to approve", body, 200)
        response.set_cookie(
            STATE_COOKIE, state, path=CALLBACK_PATH, httponly=True, samesite="lax",
            secure=self.secure, max_age=FLOW_TTL_S,
        )  # fmt: skip
        return response

    @property
    def _callback_url(self) -> str:
        return f"{(self.pending.public_url or '').rstrip('/')}{CALLBACK_PATH}"

    async def signed_in(self, request: Request) -> Response:
        state = request.query_params.get("state", "")
        request_id = self._flow_request(state)
        if request_id is None or not same(request.cookies.get(STATE_COOKIE, ""), state):
            return page("Sign-in failed", "<p>This sign-in was not started here.</p>", 400)
        code = request.query_params.get("code")
        login = await self._login_for_code(code) if code else None
        if login is None:
            return page("Sign-in failed", "<p>GitHub did not confirm who you are.</p>", 403)
        expires = str(int(time.time()) + APPROVER_SESSION_S)
        value = f"{login}|{expires}|{self._mac(f'{login}|{expires}')}"
        response = RedirectResponse(f"{PAGE_PATH}/{request_id}", 303)
        response.set_cookie(
            APPROVER_COOKIE, value, path=PAGE_PATH, httponly=True, samesite="lax",
            secure=self.secure, max_age=APPROVER_SESSION_S,
        )  # fmt: skip
        response.delete_cookie(STATE_COOKIE, path=CALLBACK_PATH)
        if self.browser is not None and self.browser.keyed:  # signed in to /status too
            self.browser.start(response, GITHUB_PREFIX + login, secure=self.secure)
        log_event("approval_page_sign_in", login=login)
        return response

    def _flow_request(self, state: str) -> str | None:
        """The request id a signed, unexpired sign-in state names."""
        body, _, mac = state.rpartition(".")
        request_id, _, rest = body.partition(".")
        started = rest.partition(".")[0]
        if not (request_id and started.isdigit() and same(mac, self._mac(body))):
            return None
        return request_id if time.time() - int(started) <= FLOW_TTL_S else None

    async def _login_for_code(self, code: str) -> str | None:
        """Exchange the code, ask GitHub who it is, then revoke that identity-only token."""
        sign_in = self.sign_in
        secret = sign_in.app_client_secret.get_secret_value()
        try:
            async with httpx.AsyncClient(timeout=10.0) as client:
                response = await client.post(
                    sign_in.endpoints.access_token,
                    data={"client_id": sign_in.app_client_id, "client_secret": secret,
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
