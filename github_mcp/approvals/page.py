"""The approval page: GET shows exactly what is to be written, POST records a human's
approve / deny / approve-for-N-minutes.

Who may decide is the principal the request belongs to, proven the way that principal
signs in (`approver.py`: the session /status's sign-in starts, with GitHub or with the
principal's token, never a browser's Basic prompt; for a caller with no identity the link
alone, which is single-use, short-lived and unguessable). A POST also needs the page's
CSRF token (a hidden field matching a SameSite=Strict cookie and the request's own
token) and the link's key; the first decision spends it.

The link's key travels in its fragment (`#key=…`), which browsers never send: a tiny
script posts it to `…/open`, which keeps it in an HttpOnly cookie for this request's
path only. So no URL that a proxy or server logs carries the key. Nothing here is held
in one process: requests live in the gate's store (Redis with replicas), and the
sign-in state and cookies are signed with a key every replica shares.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from github_mcp.approvals.approver import (
    CALLBACK_PATH,
    FLOW_TTL_S,
    SIGN_IN,
    Approver,
    TokenPrincipal,
    same,
)
from github_mcp.approvals.browser_session import BrowserSession
from github_mcp.approvals.page_html import (
    closed,
    form_html,
    link_not_valid,
    loader,
    not_found,
    page,
    wrong_person,
)
from github_mcp.approvals.record import CHOICES
from github_mcp.approvals.render import summary_html
from github_mcp.approvals.requests import PAGE_PATH, PendingApprovals, RequestClosed
from github_mcp.monitoring.observability import log_event

CSRF_COOKIE = "github_mcp_approval_csrf"
KEY_COOKIE = "github_mcp_approval_key"


class ApprovalPage:
    def __init__(
        self,
        pending: PendingApprovals,
        *,
        bearer_principal: TokenPrincipal | None = None,
        sign_in: Any = None,
        browser: BrowserSession | None = None,
    ) -> None:
        self.pending = pending
        self.approver = Approver(pending, bearer_principal, sign_in, browser)

    def routes(self) -> list[Route]:
        routes = [
            Route(PAGE_PATH + "/{request_id}", self.show, methods=["GET"]),
            Route(PAGE_PATH + "/{request_id}", self.decide, methods=["POST"]),
            Route(PAGE_PATH + "/{request_id}/open", self.open_link, methods=["POST"]),
        ]
        if self.approver.sign_in is not None:
            routes.append(Route(CALLBACK_PATH, self.approver.signed_in, methods=["GET"]))
        return routes

    # -- GET: the page ------------------------------------------------------------

    async def show(self, request: Request) -> Response:
        found = self.pending.find(request.path_params["request_id"])
        if found is None:
            return not_found()
        if not found.pending:
            return closed(found)
        if not self.pending.key_matches(found, request.cookies.get(KEY_COOKIE, "")):
            return loader(found)  # the key is in the fragment: the page posts it
        visitor = self.approver.visitor(request, found)
        if visitor is SIGN_IN:
            return self.approver.start_for(found)
        if visitor is None:
            return wrong_person(found)
        body = summary_html(found) + form_html(found, self.pending.offers_window(found))
        response = page("Approve this write?", body, 200)
        response.set_cookie(
            CSRF_COOKIE, found.csrf, path=f"{PAGE_PATH}/{found.id}", httponly=True,
            samesite="strict", secure=self.approver.secure, max_age=FLOW_TTL_S,
        )  # fmt: skip
        return response

    async def open_link(self, request: Request) -> Response:
        """The loader's POST of the fragment's key: kept in a cookie for this request's
        path, then the page itself (a GET whose URL carries no secret)."""
        found = self.pending.find(request.path_params["request_id"])
        if found is None:
            return not_found()
        if not found.pending:
            return closed(found)
        key = str((await request.form()).get("key", ""))
        if not self.pending.key_matches(found, key):
            return link_not_valid()
        response = RedirectResponse(f"{PAGE_PATH}/{found.id}", 303)
        response.set_cookie(
            KEY_COOKIE, key, path=f"{PAGE_PATH}/{found.id}", httponly=True, samesite="lax",
            secure=self.approver.secure, max_age=FLOW_TTL_S,
        )  # fmt: skip
        return response

    # -- POST: the decision ---------------------------------------------------------

    async def decide(self, request: Request) -> Response:
        found = self.pending.find(request.path_params["request_id"])
        if found is None:
            return not_found()
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return page("Refused", "<p>Cross-site request refused.</p>", 403)
        form = await request.form()
        visitor = self.approver.visitor(request, found)
        if visitor is None or visitor is SIGN_IN:
            return wrong_person(found)
        if not found.pending:
            return closed(found)
        key, csrf, choice = (str(form.get(n, "")) for n in ("key", "csrf", "choice"))
        if not self.pending.key_matches(found, key):
            return link_not_valid()
        cookie = request.cookies.get(CSRF_COOKIE, "")
        if not (same(csrf, found.csrf) and same(cookie, found.csrf)):
            return page("Refused", "<p>The form's security token did not match.</p>", 403)
        if choice not in CHOICES:
            return page("Refused", "<p>Unknown choice.</p>", 400)
        if choice == "approve_window" and not self.pending.offers_window(found):
            return page("Refused", "<p>This client has no session: no window.</p>", 400)
        try:
            self.pending.decide(found, choice, visitor.key)
        except RequestClosed:
            return closed(self.pending.find(found.id) or found)
        log_event("approval_page_decision", request=found.id, choice=choice, by=visitor.key)
        return closed(found)
