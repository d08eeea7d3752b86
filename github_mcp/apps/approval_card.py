"""The proposed-write card: what a gated write waiting for a human answers to a client
that renders MCP Apps.

The write is refused as before (`write_not_allowed`, compact text for the model), and
the result's `_meta` (which hosts hand to the view, never to the model) carries the
card: the facts the approval page shows (approvals/facts.py, the same function), and
- in `card` mode, a nonce with which the human's Approve or Deny click decides the
  request through the app-only tool (approval_tool.py);
- in `page` mode (a host this server cannot trust, see approval_tool.py), the approval
  page's link instead: the page stays the authority, and the card only points to it.

The nonce is an HMAC keyed with the request's own secret (the key of the page's link)
over the request id and the approval scope (principal and session) it belongs to. So
it is bound to that request and that scope, it dies with the request (expiry), and the
first decision spends it: deciding clears the request's key, and a decided request
refuses every later decision, on whichever replica.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any, Literal

from github_mcp.approvals.facts import write_facts
from github_mcp.approvals.record import ApprovalRequest
from github_mcp.approvals.requests import PendingApprovals
from github_mcp.apps.catalog import URI_PREFIX
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError

PROPOSED_WRITE_URI = URI_PREFIX + "proposed-write.html"
CARD_META_KEY = "github-mcp/proposed-write"
DECIDE_TOOL = "decide_proposed_write"


def card_nonce(request: ApprovalRequest, scope_key: str) -> str:
    """The nonce the card sends back with the human's decision; empty once spent."""
    if not request.key:
        return ""
    message = f"proposed-write-card|{request.id}|{scope_key}".encode()
    return hmac.new(request.key.encode(), message, hashlib.sha256).hexdigest()


def nonce_matches(request: ApprovalRequest, scope_key: str, nonce: str) -> bool:
    expected = card_nonce(request, scope_key)
    return bool(expected) and hmac.compare_digest(expected.encode(), nonce.encode())


def card_meta(
    pending: PendingApprovals,
    request: ApprovalRequest,
    mode: Literal["card", "page"],
    link: str | None = None,
) -> dict[str, Any]:
    """The result's `_meta` for the proposed-write view."""
    ttl = pending.settings.approval_link_ttl_seconds
    body: dict[str, Any] = {
        "mode": mode,
        "request": request.id,
        "expires_in_s": round(max(0.0, ttl - pending.age_s(request)), 1),
        "facts": write_facts(request),
    }
    if mode == "card":
        body["nonce"] = card_nonce(request, request.scope.key)
        body["decide_tool"] = DECIDE_TOOL
        body["choices"] = ["approve", "deny"]
    else:
        body["approval_url"] = link
    return {CARD_META_KEY: body}


def card_refusal(
    pending: PendingApprovals, request: ApprovalRequest, link: str | None
) -> GitHubMCPError:
    """The write's answer while the human decides on the card. Over HTTP it also carries
    the approval page's link, for a write another card made (its answer goes to that card,
    which shows the link): the first decision, on either, settles the request."""
    page = f" (or on the approval page: {link} )" if link else ""
    error = GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        "This needs a human's approval: the human sees this write on the card in their "
        "client and approves or denies it there.",
        hint=f"Wait for the human's decision on the card{page}. Once they approve, the "
        "same call with the same arguments runs once; if they deny, nothing is written. "
        "You cannot approve it yourself.",
        approval="card",
        approval_request=request.id,
        approval_url=link,
    )
    error.result_meta = card_meta(pending, request, "card")  # type: ignore[attr-defined]
    return error


def with_page_card(
    error: GitHubMCPError, pending: PendingApprovals, request: ApprovalRequest, link: str
) -> GitHubMCPError:
    """The page's refusal, with a card that shows the write and links the page."""
    error.result_meta = card_meta(pending, request, "page", link)  # type: ignore[attr-defined]
    return error
