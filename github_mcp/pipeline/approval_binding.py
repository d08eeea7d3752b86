"""An approval names the remote state it approves, and the write enforces that state.

For a gated write whose effect depends on remote state (a merge depends on the PR's head,
a branch deletion on the branch's head…), the tool declares a binder (`@tool(binds=…)`).
Before the gate decides, the binder reads that state fresh from GitHub; the facts (head
SHA, base) become part of the write's fingerprint, are shown on the approval page, and
are left on `call.bound` for the handler to send as the write's precondition (the merge
endpoint's `sha`) or to re-check just before writing.

So an approval given for one head cannot be spent on another: when the state moved after
the human approved, the call is refused with `conflict` naming the new commits, and the
stale approval is spent, so calling again asks the human afresh about the new state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from github_mcp.approvals.requests import fingerprint
from github_mcp.monitoring.observability import log_event
from github_mcp.services.shared.approved_state import RemoteState, moved, what_moved

if TYPE_CHECKING:
    from github_mcp.pipeline.spec import Call
    from github_mcp.policy.flow_guard import FlowDecision


def write_fingerprints(call: Call, args: dict[str, Any], branch: str | None) -> tuple[str, str]:
    """(the call's fingerprint: tool and arguments; the write's: those plus the bound facts)."""
    name, repo = call.spec.name, call.repo
    plain_call = fingerprint(name, repo, branch, args)
    if call.bound is None:
        return plain_call, plain_call
    return plain_call, fingerprint(name, repo, branch, args, call.bound.facts)


async def bind_write(
    call: Call, args: dict[str, Any], branch: str | None, flow: FlowDecision | None = None
) -> str:
    """Read the state a gated write depends on into `call.bound` (gated by a protected
    branch, or by the cross-visibility guard's `flow`); refuse the call when an unused
    approval of the same call was given for other facts. Returns the fingerprint an
    approval of this write is keyed on."""
    spec, gate = call.spec, call.rt.gate
    if spec.binder is not None and await _gated(call, branch, flow):
        call.bound = await spec.binder(call, args)
        log_event("write_bound", call_id=call.call_id, tool=spec.name, facts=dict(call.bound.facts))
    plain_call, bound = write_fingerprints(call, args, branch)
    if call.bound is not None and call.approval is not None:
        scope = call.approval.key
        stale = call.rt.pending.stale_approval(scope, plain_call, bound)
        if stale is not None and stale.summary is not None and stale.summary.state is not None:
            gate.take_once(scope, stale.fingerprint)  # spent: the next call asks afresh
            raise await _moved(call, stale.summary.state, call.bound)
    return bound


async def _gated(call: Call, branch: str | None, flow: FlowDecision | None) -> bool:
    if flow is not None and flow.action != "allow":
        return True
    return await call.rt.gate.protection_reason(call.repo, branch) is not None


async def _moved(call: Call, approved: RemoteState, now: RemoteState) -> Exception:
    assert call.repo is not None
    error = await what_moved(call.rt.github, call.repo, approved, dict(now.facts))
    return error or moved(approved, dict(now.facts), [])
