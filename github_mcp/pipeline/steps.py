"""The steps of one tool call, in the order `run_tool` takes them.

1. `begin`: who is calling and under which approval scope; from here the GitHub
   client notes on the call every source GitHub's answers name (its provenance).
2. `scope_arguments`: canonical refs, the allow-list, the effective ref.
3. `authorize_write` (writes): the per-PR lock, the write's target branch, the
   look-alike check, the flow guard, the gate (which may ask a human).
4. `claim_once` (writes, replicas): an idempotency claim, or the first call's result.
5. the handler, then `after_write` (call_outcome.py).
6. `succeeded` or `failed`: metrics, the log line, the audit record, the tool result.
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from github_mcp.github import provenance
from github_mcp.kernel.effects import Target
from github_mcp.kernel.refnames import write_target as canonical_write_target
from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.answer import ToolAnswer
from github_mcp.pipeline.arguments import apply_pr_ref, canonicalize_refs, check_lookalike
from github_mcp.pipeline.call_outcome import (
    as_tool_error,
    claim_write,
    keep_result,
    outcome_refs,
    replayed,
    safe_detail,
)
from github_mcp.pipeline.caller import approval_scope
from github_mcp.pipeline.flows import flow_decision
from github_mcp.pipeline.gatekeeper import authorize
from github_mcp.pipeline.spec import Call
from github_mcp.pipeline.tool_spec import ToolSpec

if TYPE_CHECKING:
    from pydantic import BaseModel

    from github_mcp.pipeline.peer import Peer
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.state import WriteClaim


@dataclass
class CallRun:
    """One call's progress through the steps."""

    call: Call
    kwargs: dict[str, Any]
    started: float = field(default_factory=time.perf_counter)
    gate_passed: bool = False
    branch: str | None = None  # the branch the write was authorised for
    claim: WriteClaim | None = None

    @property
    def spec(self) -> ToolSpec:
        return self.call.spec

    @property
    def rt(self) -> Runtime:
        return self.call.rt

    def log_fields(self) -> dict[str, Any]:
        spec = self.spec
        return {"call_id": self.call.call_id, "tool": spec.name, "write": spec.write}


def begin(spec: ToolSpec, rt: Runtime, kwargs: dict[str, Any], peer: Peer, call_id: str) -> CallRun:
    approval = approval_scope(peer)
    call = Call(
        rt=rt,
        spec=spec,
        call_id=call_id,
        scope=approval.key if approval is not None else None,
        peer=peer,
        principal=approval.principal if approval is not None else peer.principal,
        approval=approval,
    )
    # from here on, what GitHub answers is noted on the call (flows.note_reads takes it)
    call.recording = provenance.start(call.reads)
    run = CallRun(call, kwargs)
    # a read's outcome line follows at once with the same fields: its start is for debugging
    level = logging.INFO if spec.write or spec.read_only_hint is False else logging.DEBUG
    log_event("tool_call_start", level=level, **run.log_fields(), arg_keys=sorted(kwargs))
    return run


async def scope_arguments(run: CallRun) -> None:
    """Canonical ref spellings, the allow-list, and the ref the call reads or writes."""
    spec, rt, kwargs = run.spec, run.rt, run.kwargs
    canonicalize_refs(spec, kwargs)
    if spec.pr_arg:
        apply_pr_ref(kwargs)
    full_name = kwargs.get(spec.repo_arg) if spec.repo_arg else None
    run.call.repo = full_name
    if not full_name:
        return
    rt.gate.check_repo_allowed(full_name)
    await rt.cache.sync_repo(full_name)  # replicas: drop reads older than a write
    if spec.ref_arg and spec.lazy_default_ref:
        kwargs[spec.ref_arg] = _known_ref(rt, full_name, kwargs.get(spec.ref_arg))
    elif spec.ref_arg:
        kwargs[spec.ref_arg] = await rt.gate.effective_ref(full_name, kwargs.get(spec.ref_arg))


async def authorize_write(run: CallRun, held: contextlib.AsyncExitStack) -> None:
    """Everything the gate needs, then the gate: it returns only when the write may go."""
    spec, rt, call, kwargs = run.spec, run.rt, run.call, run.kwargs
    if spec.pr_arg and call.repo:
        # One write at a time per PR: its base, read for the gate, stays put.
        pr_key = (call.repo.lower(), kwargs.get("number"))
        await held.enter_async_context(rt.gate.pr_locks.hold(pr_key))
    target = await _resolve_target(spec, call, kwargs)
    branch = _canonical_target(spec, kwargs, target.branch)
    if target.repo and target.repo != call.repo:
        # the resolver named the repository (e.g. from PR references)
        rt.gate.check_repo_allowed(target.repo)
        call.repo = target.repo
        if spec.repo_arg:
            kwargs[spec.repo_arg] = target.repo
    run.branch = branch
    if branch is not None:
        await check_lookalike(rt, call.repo, branch)
    flow = await flow_decision(call, target)
    await authorize(call, kwargs, branch, flow)
    run.gate_passed = True
    call.authorized_ref = branch


async def claim_once(run: CallRun) -> ToolAnswer | None:
    """Replicas: claim the write's idempotency key; a retry gets the first result."""
    if run.rt.shared is None:
        return None
    run.claim = await claim_write(run.rt, run.call, run.spec, run.kwargs)
    if run.claim is not None and run.claim.replay is not None:
        return replayed(run.claim.replay)
    return None


async def failed(run: CallRun, exc: Exception) -> ToolAnswer:
    """The error envelope, and what a failed call leaves behind: metrics, log, audit."""
    rt, call = run.rt, run.call
    error = as_tool_error(exc, call.call_id)
    envelope = error.envelope(call.call_id)
    duration = _record(run, error.code.value)
    log_event(
        "tool_call_error",
        **_outcome_fields(run, duration),
        status="error",
        error_type=error.code.value,
        exc_type=type(exc).__name__,
        detail=safe_detail(exc),
    )
    if run.claim is not None and rt.shared is not None:
        await rt.shared.writes.abandon(run.claim)  # a retry may try again
    if run.gate_passed:
        if call.repo:
            await rt.cache.bump_repo(call.repo)  # a failed write may have half happened
        _audit(run, "error:" + error.code.value)
    # result_meta: a card's data (apps/), not the model's
    return ToolAnswer.of(envelope, is_error=True, meta=getattr(exc, "result_meta", None))


async def succeeded(run: CallRun, result: BaseModel) -> ToolAnswer:
    """The handler's answer as the tool result, with its metrics, log line and audit."""
    spec, rt = run.spec, run.rt
    answer = ToolAnswer.of(result.model_dump(mode="json", exclude_none=True))
    payload = answer.structured
    duration = _record(run, None)
    log_event(
        "tool_call_success",
        **_outcome_fields(run, duration),
        status="ok",
        result_size=len(answer.text),
    )
    if spec.write:
        _audit(run, "ok", **outcome_refs(payload))
        if run.claim is not None and rt.shared is not None:
            await keep_result(rt, run.claim, payload)
    return answer


def _audit(run: CallRun, outcome: str, **refs: Any) -> None:
    call = run.call
    ref = call.audit_ref or run.branch
    tool = run.spec.name
    run.rt.audit.record(call.call_id, call.principal, tool, call.repo, ref, outcome, **refs)


def _record(run: CallRun, error_code: str | None) -> float:
    duration = (time.perf_counter() - run.started) * 1000
    run.rt.metrics.record_tool(run.spec.name, run.spec.write, duration, error_code)
    return duration


def _outcome_fields(run: CallRun, duration: float) -> dict[str, Any]:
    return {
        **run.log_fields(),
        "repo": run.call.repo,
        "ref": _ref_of(run.spec, run.kwargs),
        "path": run.kwargs.get("path"),
        "arg_keys": sorted(run.kwargs),
        "duration_ms": round(duration, 1),
    }


async def _resolve_target(spec: ToolSpec, call: Call, kwargs: dict[str, Any]) -> Target:
    if spec.target is None:
        return Target(None)
    if isinstance(spec.target, str):
        return Target(kwargs.get(spec.target))
    return await spec.target(call, kwargs)


def _canonical_target(spec: ToolSpec, kwargs: dict[str, Any], branch: str | None) -> str | None:
    """The target branch in its one spelling, written back where the handler reads it."""
    if branch is None:
        return None
    target_arg = spec.target if isinstance(spec.target, str) else "branch"
    branch = canonical_write_target(branch, target_arg)
    if isinstance(spec.target, str):
        kwargs[spec.target] = branch
    return branch


def _known_ref(rt: Runtime, full_name: str, ref: str | None) -> str | None:
    """The ref a lazy-default read uses without asking GitHub: the given one or a
    configured override; None leaves the default branch to the read's own request."""
    if rt.gate.is_controller_repo(full_name) and (not ref or ref == "main"):
        return rt.settings.controller_branch
    return ref or rt.settings.repo_default_overrides.get(full_name.lower())


def _ref_of(spec: ToolSpec, kwargs: dict[str, Any]) -> str | None:
    for key in (spec.ref_arg, "branch", "ref"):
        value = kwargs.get(key) if key else None
        if isinstance(value, str):
            return value
    return None
