"""Who is at the approval page, and how they prove it is their approval to decide.

- an OAuth user (GITHUB_MCP_AUTH=oauth): GitHub's own sign-in in the browser (GitHub's web
  flow, run here for the approval pages only), remembered in a signed, HttpOnly cookie;
- a bearer-token principal: HTTP Basic with a token of that same principal as password;
- a caller with no identity (loopback without tokens): the link alone.
The sign-in state and the cookie are signed with a key every replica shares.
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
from starlette.responses import RedirectResponse, Response

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

# The visitor of a github user's request who has not signed in here yet.
SIGN_IN = Principal("sign-in needed", "anonymous")


def same(a: str, b: str) -> bool:
    """Both given and equal, compared in constant time."""
    return bool(a) and bool(b) and hmac.compare_digest(a.encode(), b.encode())


class Approver:
    def __init__(
        self,
        pending: PendingApprovals,
        bearer_principal: TokenPrincipal | None = None,
        sign_in: Any = None,
    ) -> None:
        self.pending = pending
        self.bearer_principal = bearer_principal
        self.sign_in = sign_in  # the OAuth provider (hosted.GitHubSignIn) in oauth mode

    def visitor(self, request: Request, found: ApprovalRequest) -> Principal | None:
        """The principal proven by this browser if it is the request's own; None when it
        is someone else; SIGN_IN when an OAuth user has not signed in here yet."""
        owner = found.scope.principal
        if owner.kind == "github":
            login = self.login(request)
            if login is None:
                return SIGN_IN
            return owner if login.lower() == owner.name.lower() else None
        if owner.kind == "bearer":
            name = self.basic_principal(request)
            return owner if name is not None and name == owner.name else None
        return owner  # no identity behind the call: the link is the credential

    def basic_principal(self, request: Request) -> str | None:
        """The bearer principal whose token is this request's HTTP Basic password."""
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

    def login(self, request: Request) -> str | None:
        """The GitHub login this browser signed in as here, from its signed cookie."""
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
        if self.sign_in is None:
            return wrong_person(found)
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
