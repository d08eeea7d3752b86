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

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastmcp import Context, FastMCP
from fastmcp.apps.config import AppConfig
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from mcp.types import TextContent, ToolAnnotations
from pydantic import Field

from github_mcp.approvals.requests import ApprovalRequest, PendingApprovals, RequestClosed
from github_mcp.apps.approval_card import (
    DECIDE_TOOL,
    PROPOSED_WRITE_URI,
    card_refusal,
    nonce_matches,
    with_page_card,
)
from github_mcp.apps.catalog import view_of_tool
from github_mcp.apps.wiring import client_shows_cards
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.caller import approval_scope

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.pipeline.runtime import Runtime

Token = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]


def declares_ui(ctx: Context | None) -> bool:
    """Whether this client declared the MCP Apps extension (with the card MIME type)."""
    return client_shows_cards(ctx)


def untrusted_host(ctx: Context | None, settings: Settings) -> str | None:
    """Why the card may not approve for this client (None: it may)."""
    if settings.approval_mode != "auto":
        return "this server does not ask humans itself (GITHUB_MCP_APPROVAL_MODE is not auto)"
    if settings.auth_mode == "oauth":
        return "a hosted deployment (GITHUB_MCP_AUTH=oauth) decides on its approval page"
    if len(settings.bearer_tokens) > 1:
        return "a server with several principals decides on its approval page"
    if not declares_ui(ctx):
        return "this client did not declare the MCP Apps extension"
    return None


async def _tool(rt: Runtime, ctx: Context, request: str, nonce: str, choice: str) -> ToolResult:
    try:
        body = _decide(rt, ctx, request, nonce, choice)
    except GitHubMCPError as refused:
        log_event("approval_card_refused", request=request[:24], code=refused.code.value)
        return _answer(refused.envelope(), is_error=True)
    return _answer(body, is_error=False)


def _decide(rt: Runtime, ctx: Context, request_id: str, nonce: str, choice: str) -> dict:
    reason = untrusted_host(ctx, rt.settings)
    if reason is not None:
        raise _refused(f"Deciding on the card is not available here: {reason}.")
    scope = approval_scope(ctx)
    pending = rt.pending
    found = pending.find(request_id)
    if found is None or scope is None or found.scope != scope:
        raise _refused("This card's request is not one of this session's.")
    if not found.pending:
        raise _refused(f"This write's approval request was already {found.status}.")
    if not nonce_matches(found, scope.key, nonce):
        raise _refused("This card's nonce is not valid for this request.")
    try:
        pending.decide(found, choice, f"{scope.principal.key} (card)")  # type: ignore[arg-type]
    except RequestClosed as closed:
        raise _refused(f"This write's approval request was already {closed}.") from None
    log_event("approval_card_decision", request=found.id, choice=choice)
    status = "approved" if choice == "approve" else "denied"
    then = (
        "The same call, with the same arguments, now runs once."
        if status == "approved"
        else "Nothing was approved and nothing is written."
    )
    return {"request": found.id, "status": status, "message": then}


def _refused(message: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        message + " Nothing was decided.",
        hint="The human decides on the card their client shows, or on the approval page.",
    )


def _answer(body: dict[str, Any], *, is_error: bool) -> ToolResult:
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return ToolResult(
        content=[TextContent(type="text", text=text)], structured_content=body, is_error=is_error
    )


class ProposedWriteCards(Middleware):
    """tools/list per client: the app-only tool only for a host trusted with it, and the
    write tools no other card shows linked to the proposed-write view, for a client that
    renders MCP Apps (the change card shows a commit waiting for approval the same way).
    A call of the app-only tool from anyone else is refused in the tool itself."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    async def on_list_tools(self, context: MiddlewareContext, call_next: Any) -> Sequence[Any]:
        tools = await call_next(context)
        ctx = context.fastmcp_context
        trusted = untrusted_host(ctx, self.rt.settings) is None
        ui = declares_ui(ctx)
        own_cards = view_of_tool()  # the change card shows a pending commit itself
        shown = []
        for tool in tools:
            if tool.name == DECIDE_TOOL and not trusted:
                continue
            spec = self.rt.bound_specs.get(tool.name)
            if ui and spec is not None and spec.write and tool.name not in own_cards:
                tool = _linked(tool)
            shown.append(tool)
        return shown


def _linked(tool: Any) -> Any:
    meta = dict(tool.meta or {})
    meta["ui"] = {**(meta.get("ui") or {}), "resourceUri": PROPOSED_WRITE_URI}
    return tool.model_copy(update={"meta": meta})


class CardChannel:
    """What the approval path (pipeline/human_approval.py) asks of the card."""

    def trusted(self, call: Any) -> bool:
        return untrusted_host(call.ctx, call.rt.settings) is None

    def refusal(
        self, pending: PendingApprovals, request: ApprovalRequest, link: str | None
    ) -> GitHubMCPError:
        return card_refusal(pending, request, link)

    def page_card(
        self, call: Any, error: GitHubMCPError, request: ApprovalRequest, link: str
    ) -> GitHubMCPError:
        """The page's refusal, with a card showing the write and the page's link."""
        if request.summary is None or not declares_ui(call.ctx):
            return error
        return with_page_card(error, call.rt.pending, request, link)


def register_proposed_write(mcp: FastMCP, rt: Runtime) -> None:
    """The app-only decision tool and the middleware that lists it (see the docstring)."""

    async def decide_proposed_write(
        request: Token, nonce: Token, choice: Literal["approve", "deny"], ctx: Context
    ) -> ToolResult:
        """The human's Approve or Deny on a proposed-write card. Only the card calls this."""
        return await _tool(rt, ctx, request, nonce, choice)

    mcp.tool(
        decide_proposed_write,
        name=DECIDE_TOOL,
        description="Approve or deny a proposed write shown on its card (app only: the "
        "human's click; never the model).",
        app=AppConfig(visibility=["app"]),
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )
    mcp.add_middleware(ProposedWriteCards(rt))
    rt.approval_cards = CardChannel()
