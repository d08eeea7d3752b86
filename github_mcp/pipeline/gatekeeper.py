"""The pipeline's side of the gate: ask the pure rules (policy/gate.py) what happens to a
write, fetch the one fact they ask for, and ask again until they allow or refuse.

The facts: GitHub's default branch, the state the write depends on (its binder, which
also gives the fingerprint a one-time approval is keyed on), the caller's approval window,
a one-time approval of this write (taken when there), and a human's answer (auto mode).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.pipeline.approval_binding import bind_write
from github_mcp.pipeline.human_approval import HumanApproval, human_approval
from github_mcp.policy.gate import (
    Allow,
    AskHuman,
    Bind,
    CheckGrant,
    Known,
    LookUpDefaultBranch,
    Refuse,
    WriteCall,
    decide,
)
from github_mcp.policy.refusals import flow_details

if TYPE_CHECKING:
    from github_mcp.pipeline.spec import Call
    from github_mcp.policy.flow_guard import FlowDecision


async def authorize(
    call: Call, args: dict[str, Any], branch: str | None, flow: FlowDecision | None
) -> None:
    """Return when the write may go; raise the gate's refusal otherwise."""
    gate, spec = call.rt.gate, call.spec
    ask = human_approval(call, args, branch)
    write = WriteCall(
        tool=spec.name, repo=call.repo, branch=branch, flow=flow,
        approve_each=spec.approve_each, can_ask=ask is not None,
    )  # fmt: skip
    detail: dict[str, Any] = {"tool": spec.name, "repo": call.repo, "ref": branch}
    detail["call_id"] = call.call_id
    known, fingerprint = Known(), None
    while True:
        decision = decide(write, call.rt.settings, known)
        if isinstance(decision, Allow | Refuse):
            gate.record(decision, detail)
            if isinstance(decision, Refuse):
                raise decision.error
            return
        if isinstance(decision, LookUpDefaultBranch):
            known = replace(known, default_branch=await gate.look_up_default_branch(decision.repo))
        elif isinstance(decision, Bind):
            fingerprint = await bind_write(call, args, branch, flow)
            known = replace(known, bound=True)
        elif isinstance(decision, CheckGrant) and decision.kind == "window":
            known = replace(known, window=gate.is_approved(call.scope))
        elif isinstance(decision, CheckGrant):
            known = replace(known, once=gate.take_once(call.scope, fingerprint))
        else:
            assert ask is not None and isinstance(decision, AskHuman)
            known = replace(known, human=await _asked(call, ask, decision, flow, detail))


async def _asked(
    call: Call,
    ask: HumanApproval,
    question: AskHuman,
    flow: FlowDecision | None,
    detail: dict[str, Any],
) -> bool:
    try:
        return bool(await ask(question.shown))
    except GitHubMCPError as refused:
        # refused while asking (no channel, declined, timed out): still a denial
        call.rt.gate.record(Refuse(question.reason, refused), detail)
        refused.details.update(flow_details(flow))
        raise
