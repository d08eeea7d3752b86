"""The one tool that takes part in write approval: `authorize_write_actions` records or
revokes a session's grant through the gate, after asking the human where the approval mode
says so (elicitation, or the approval page in auto mode). The gate still decides each write."""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.pipeline.human_approval import ClientInputRequired
from github_mcp.pipeline.peer import Answer, InputRequired
from github_mcp.pipeline.registry import Call, tool

TOOLSET = "meta"


class ApprovalState(BaseModel):
    approved: bool
    mode: str
    scope: Literal["process", "session", "principal"] = Field(
        description="What the approval belongs to: this server process (stdio) or this "
        "session. A client without a session (`principal`) holds no approval window: "
        "each gated write is approved on its own."
    )
    principal: str
    expires_in_s: float | None = None
    note: str | None = None


TOOL_CONFIRMATION_NOTE = (
    "Approved by this call: this client has no elicitation and stdio has no approval "
    "page, so the approval relies on the client asking its human before running this tool."
)


@tool(toolset=TOOLSET, repo_arg=None, read_only_hint=False)
async def authorize_write_actions(call: Call, approved: bool) -> ApprovalState:
    """Approve (or revoke) protected and unscoped writes for this session; may ask the human."""
    s = call.rt.settings
    gate = call.rt.gate
    if s.approval_mode == "env":
        raise GitHubMCPError(
            ErrorCode.FORBIDDEN,
            "Approval is controlled by the operator (GITHUB_MCP_APPROVAL_MODE=env).",
            hint="Ask the operator to set GITHUB_MCP_AUTO_APPROVE.",
        )
    if call.scope is None or call.approval is None:
        raise GitHubMCPError(
            ErrorCode.FORBIDDEN,
            "This connection has no session or principal to scope an approval to.",
            hint="Use bearer authentication or a stateful HTTP session.",
        )
    if approved:
        gate.require_window(call.scope)  # a sessionless client is approved per write
    note = None
    if approved and s.approval_mode == "auto":
        from github_mcp.pipeline.human_approval import ask_human

        if await ask_human(call, None, None) == "tool":
            gate.set_approval(call.scope, True)
            note = TOOL_CONFIRMATION_NOTE
        # otherwise the human's decision has set (or refused) the approval
    else:
        if approved and s.approval_mode == "elicit":
            await _ask_human(call)  # 2026-07-28: raises the question for the client
        gate.set_approval(call.scope, approved)
    return ApprovalState(
        approved=gate.is_approved(call.scope),
        mode=s.approval_mode,
        scope=call.approval.label,
        principal=call.principal.name,
        expires_in_s=gate.approval_expires_in(call.scope),
        note=note,
    )


APPROVAL_QUESTION = (
    "Allow this assistant to write to protected branches and make unscoped writes "
    "(issues, comments, merges) for this session?"
)
APPROVAL_KEY = "approve_writes"


def _refusal() -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        "The human did not approve writes.",
        hint="Work on a feature branch instead.",
    )


def _no_elicitation() -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        "This client cannot show an approval prompt (no MCP elicitation support).",
        hint="Use a client with elicitation, or ask the operator for GITHUB_MCP_AUTO_APPROVE.",
    )


# The question as the client sees it: one boolean, in an object as MCP requires (its
# name as each revision's clients have always been asked it).
APPROVAL_FIELD = {"title": "Allow writes", "type": "boolean"}
APPROVAL_SCHEMA = {"type": "object", "properties": {"value": APPROVAL_FIELD}, "required": ["value"]}
MODERN_SCHEMA = {
    "type": "object",
    "properties": {"approve": APPROVAL_FIELD},
    "required": ["approve"],
}


async def _ask_human(call: Call) -> None:
    """Ask through elicitation. On 2026-07-28 connections the question travels as
    the call's result (ClientInputRequired) and the answer comes back with the retry."""
    peer = call.peer
    if peer.modern:
        answer = peer.input_responses.get(APPROVAL_KEY)
        if answer is None:
            form = {
                "mode": "form",
                "message": APPROVAL_QUESTION,
                "requestedSchema": APPROVAL_SCHEMA,
            }
            question = {"method": "elicitation/create", "params": form}
            raise ClientInputRequired(InputRequired({APPROVAL_KEY: question}))
        _check_answer(answer, "approve")
        return
    if not peer.elicitation.form:
        raise _no_elicitation()
    wait_s = call.rt.settings.approval_prompt_timeout_seconds
    try:
        async with asyncio.timeout(wait_s):
            result = await peer.ask_form(APPROVAL_QUESTION, APPROVAL_SCHEMA)
    except TimeoutError:
        raise GitHubMCPError(
            ErrorCode.TIMEOUT,
            f"Nobody answered the approval prompt within {wait_s:g} s; nothing was approved.",
            hint="Ask the human to answer the prompt, then call authorize_write_actions again.",
        ) from None
    except Exception:
        raise _no_elicitation() from None
    _check_answer(result, "value")


def _check_answer(answer: Answer, field: str) -> None:
    if answer.action != "accept" or (answer.content or {}).get(field) is not True:
        raise _refusal()
