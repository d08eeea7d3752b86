"""Approve and Deny on the proposed-write card: an app-only tool the human's click calls
through the host, never the model.

Trust boundary. MCP Apps marks a tool app-only with `_meta.ui.visibility: ["app"]`; the
HOST keeps such a tool out of the model's tool list and refuses the model's calls of it.
The server cannot tell the model's call from the view's on one connection, so the card
approves only where this server trusts the host to honour that:
- the client declared the MCP Apps extension (`io.modelcontextprotocol/ui`) when it
  connected; and
- the deployment is single-user: not hosted with GitHub sign-in (GITHUB_MCP_AUTH=oauth)
  and not several principals (GITHUB_MCP_AUTH_TOKENS listing more than one token), where
  the operator cannot vouch for the hosts their users connect with; and
- GITHUB_MCP_APPROVAL_MODE=auto (the mode in which a human is asked).
Anywhere else the card shows the approval page's link, the page decides, and this tool is
neither listed nor callable: a call is refused here, server-side, not only hidden.

Even where it is trusted, a decision needs the card's nonce, which travels in the write's
result `_meta` (hosts give it to the view, not to the model), is bound to the request and
to the caller's approval scope (principal and session), expires with the request and is
spent by the first decision (approval_card.py). Approving grants that one write once, bound
to its arguments and to the remote state it was summarised against (pipeline/approval_binding.py):
the same call made again lands exactly that, and a moved head is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.approvals.record import ApprovalRequest
from github_mcp.approvals.requests import PendingApprovals, RequestClosed
from github_mcp.apps.approval_card import (
    DECIDE_TOOL,
    card_refusal,
    nonce_matches,
    with_page_card,
)
from github_mcp.apps.listing import card_result_meta, untrusted_host
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.caller import approval_scope
from github_mcp.pipeline.registry import Call, tool

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.views import View

Token = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]


class CardDecision(BaseModel):
    request: str
    status: Literal["approved", "denied"]
    message: str


@tool(toolset="meta", repo_arg=None, read_only_hint=False, name=DECIDE_TOOL, app_only=True)
async def decide_proposed_write(
    call: Call, request: Token, nonce: Token, choice: Literal["approve", "deny"]
) -> CardDecision:
    """Approve or deny a proposed write shown on its card (app only: the human's click;
    never the model)."""
    reason = untrusted_host(call.rt.settings, call.peer.shows_cards)
    if reason is not None:
        raise _refused(f"Deciding on the card is not available here: {reason}.")
    scope = approval_scope(call.peer)
    pending = call.rt.pending
    found = pending.find(request)
    if found is None or scope is None or found.scope != scope:
        raise _refused("This card's request is not one of this session's.")
    if not found.pending:
        raise _refused(f"This write's approval request was already {found.status}.")
    if not nonce_matches(found, scope.key, nonce):
        raise _refused("This card's nonce is not valid for this request.")
    try:
        pending.decide(found, choice, f"{scope.principal.key} (card)")
    except RequestClosed as closed:
        raise _refused(f"This write's approval request was already {closed}.") from None
    log_event("approval_card_decision", request=found.id, choice=choice)
    approved = choice == "approve"
    then = (
        "The same call, with the same arguments, now runs once."
        if approved
        else "Nothing was approved and nothing is written."
    )
    return CardDecision(request=found.id, status="approved" if approved else "denied", message=then)


def _refused(message: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        message + " Nothing was decided.",
        hint="The human decides on the card their client shows, or on the approval page.",
    )


class CardChannel:
    """What the approval path (pipeline/human_approval.py) asks of the card."""

    def trusted(self, call: Call) -> bool:
        return untrusted_host(call.rt.settings, call.peer.shows_cards) is None

    def refusal(
        self, pending: PendingApprovals, request: ApprovalRequest, link: str | None
    ) -> GitHubMCPError:
        return card_refusal(pending, request, link)

    def result_meta(self, rt: Runtime, view: View, tool: str) -> dict[str, Any] | None:
        """What a card's result says about the calls its buttons make (listing.py)."""
        return card_result_meta(rt, view, tool)

    def page_card(
        self, call: Call, error: GitHubMCPError, request: ApprovalRequest, link: str
    ) -> GitHubMCPError:
        """The page's refusal, with a card showing the write and the page's link."""
        if request.summary is None or not call.peer.shows_cards:
            return error
        return with_page_card(error, call.rt.pending, request, link)


def install_cards(rt: Runtime) -> None:
    """The approval path asks the card through this (the pipeline sits below apps)."""
    rt.approval_cards = CardChannel()
