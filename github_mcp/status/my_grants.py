"""Your approvals (`/approvals/grants`): each user sees their own open grants and pending
approval requests, with their age, and revokes a grant. It sits behind the approval page's
sign-in (the session /status's sign-in starts, with GitHub or the principal's own token),
so a user needs no operator credentials; the operator revokes anyone's on
/status. A revoke is a POST with a CSRF token matching a SameSite=Strict cookie.
"""

from __future__ import annotations

import hmac
import html
import secrets
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from github_mcp.approvals.page_html import page
from github_mcp.approvals.requests import PAGE_PATH
from github_mcp.kernel.principal import Principal
from github_mcp.monitoring.observability import log_event
from github_mcp.policy.grants import owner_of
from github_mcp.status.grants import grant_id, html_table, seconds_text

if TYPE_CHECKING:
    from github_mcp.approvals.page import ApprovalPage
    from github_mcp.policy.write_gate import WriteGate

PATH = f"{PAGE_PATH}/grants"
CSRF_COOKIE = "github_mcp_grants_csrf"


class MyGrants:
    def __init__(self, page: ApprovalPage, gate: WriteGate) -> None:
        self.page = page
        self.gate = gate

    def routes(self) -> list[Route]:
        return [
            Route(PATH, self.show, methods=["GET"]),
            Route(PATH, self.revoke, methods=["POST"]),
        ]

    def _who(self, request: Request) -> Principal | None:
        return self.page.approver.signed_in_as(request)

    async def show(self, request: Request) -> Response:
        who = self._who(request)
        if who is None:
            approver = self.page.approver
            return approver.sign_in_for("grants", "github" if approver.sign_in else "bearer")
        csrf = request.cookies.get(CSRF_COOKIE, "")
        csrf = csrf if len(csrf) >= 32 else secrets.token_urlsafe(32)
        response = page("Your approvals", self._body(who, csrf), 200)
        response.set_cookie(
            CSRF_COOKIE, csrf, path=PATH, httponly=True, samesite="strict",
            secure=request.url.scheme == "https",
        )  # fmt: skip
        return response

    def _body(self, who: Principal, csrf: str) -> str:
        esc = html.escape
        rows = []
        for key, left in self.gate.grants():
            if owner_of(key) != who.key:
                continue
            what = "one write, once" if "/write:" in key else "gated writes of one session"
            form = (
                f'<form method="post" action="{PATH}"><input type="hidden" name="csrf" '
                f'value="{esc(csrf)}"><button id="revoke-{grant_id(key)}" name="revoke" '
                f'value="{grant_id(key)}">'
                "Revoke</button></form>"
            )
            rows.append(
                f'<tr data-grant="{grant_id(key)}"><td>{what}</td>'
                f"<td>{seconds_text(left)}</td><td>{form}</td></tr>"
            )
        pending = self.page.pending
        waiting = [
            f'<tr data-request="{esc(r.id)}"><td>{esc(_target(r))}</td>'
            f"<td>{seconds_text(pending.age_s(r))}</td></tr>"
            for r in pending.open_requests()
            if r.scope.principal.key == who.key
        ]
        return (
            f"<p>Signed in as {esc(who.name)}.</p><h2>Open grants</h2>"
            + html_table("grants", ["grants", "expires in", ""], rows)
            + "<h2>Pending approval requests</h2>"
            + html_table("pending-approvals", ["write", "age"], waiting)
        )

    async def revoke(self, request: Request) -> Response:
        who = self._who(request)
        if who is None:
            return page("Refused", "<p>Sign in first.</p>", 403)
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return page("Refused", "<p>Cross-site request refused.</p>", 403)
        form = await request.form()
        csrf, cookie = str(form.get("csrf", "")), request.cookies.get(CSRF_COOKIE, "")
        if not (csrf and cookie and hmac.compare_digest(csrf.encode(), cookie.encode())):
            return page("Refused", "<p>The form's security token did not match.</p>", 403)
        wanted = str(form.get("revoke", ""))
        for key, _ in self.gate.grants():
            if owner_of(key) == who.key and hmac.compare_digest(grant_id(key), wanted):
                self.gate.revoke_grant(key)
                log_event("user_grant_revoked", principal=who.key)
        return RedirectResponse(PATH, 303)


def _target(request: object) -> str:
    summary = getattr(request, "summary", None)
    if summary is None:
        return "the session's gated writes"
    where = f" @ {summary.branch}" if summary.branch else ""
    return f"{summary.tool} on {summary.repo or '—'}{where}"
