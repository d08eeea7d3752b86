"""The @tool decorator, ToolSpec, and the per-call pipeline.

Every tool is declared with `@tool(...)`. The decorator records whether it
writes, its toolset, annotations and, for writes, the argument naming the
branch it writes to (`target`). `bind_tools` registers the selected specs on a
FastMCP server; each call then goes through `run_tool`, which applies, in
order: the allow-list, effective-ref remapping, the write gate, the handler,
the audit log, and the error envelope (shaped in call_outcome.py). Handlers never check
permissions.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import time
import typing
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fastmcp import Context
from fastmcp.tools import FunctionTool, Tool, ToolResult
from mcp.types import InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BaseModel

from github_mcp.config import Toolset
from github_mcp.kernel.effects import Target
from github_mcp.kernel.principal import PROCESS, ApprovalScope, Principal
from github_mcp.kernel.refnames import write_target as canonical_write_target
from github_mcp.monitoring import client_log
from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.approval_binding import bind_write
from github_mcp.pipeline.arguments import apply_pr_ref, canonicalize_refs, check_lookalike
from github_mcp.pipeline.arguments import ref_params as ref_params
from github_mcp.pipeline.call_outcome import (
    after_write,
    as_tool_error,
    claim_write,
    envelope_error,
    keep_result,
    outcome_refs,
    replayed,
    safe_detail,
)
from github_mcp.pipeline.call_scope import tool_call_scope
from github_mcp.pipeline.caller import approval_scope, caller_principal
from github_mcp.pipeline.caller import claim_session as claim_session
from github_mcp.pipeline.flows import flow_decision, note_reads
from github_mcp.pipeline.human_approval import ClientInputRequired, human_approval
from github_mcp.pipeline.schema_listing import listed_schema, validation_schema

if TYPE_CHECKING:
    from fastmcp import FastMCP

    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.services.approved_state import RemoteState
    from github_mcp.state import WriteClaim

# Reads the call's arguments (never changes them) and says where the write lands.
TargetResolver = Callable[["Call", dict[str, Any]], Awaitable[Target]]
# Reads the remote state a gated write depends on (a PR's head, a branch's head): what
# the human approves and what the handler then enforces (pipeline/approval_binding.py).
StateBinder = Callable[["Call", dict[str, Any]], Awaitable["RemoteState"]]
_REQUIRED: Any = object()


@dataclass(frozen=True)
class ToolSpec:
    name: str
    handler: Callable[..., Awaitable[BaseModel]]
    description: str
    toolset: Toolset
    write: bool
    target: str | TargetResolver | None
    ref_arg: str | None
    repo_arg: str | None
    pr_arg: bool
    destructive: bool
    idempotent: bool
    read_only_hint: bool | None = None
    # The handler takes ref=None as "the default branch" and resolves it in the same
    # request as its read, so the pipeline does not spend a round trip looking it up.
    lazy_default_ref: bool = False
    binds: StateBinder | None = None

    @property
    def annotations(self) -> ToolAnnotations:
        """The hints a client acts on: read-only, and for anything else whether it is
        destructive, both said either way; idempotent only when true and open world
        never (MCP's defaults). The tool list is context paid on every turn."""
        read_only = (not self.write) if self.read_only_hint is None else self.read_only_hint
        if read_only and not self.destructive:
            return ToolAnnotations(read_only_hint=True)
        return ToolAnnotations(
            read_only_hint=read_only,
            destructive_hint=self.destructive,
            idempotent_hint=True if self.idempotent else None,
        )

    @property
    def target_label(self) -> str | None:
        if not self.write:
            return None
        if self.target is None:
            return "unscoped"
        return self.target if isinstance(self.target, str) else "resolved"

    def signature(self) -> tuple[list[inspect.Parameter], Any]:
        """The handler's public parameters (without `call`), with resolved hints."""
        hints = typing.get_type_hints(self.handler, include_extras=True)
        params = []
        for param in list(inspect.signature(self.handler).parameters.values())[1:]:
            params.append(
                param.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints[param.name])
            )
        return params, hints["return"]


REGISTRY: dict[str, ToolSpec] = {}


def tool(
    *,
    toolset: Toolset | str,
    write: bool = False,
    target: str | TargetResolver | None = _REQUIRED,
    ref_arg: str | None = None,
    repo_arg: str | None = "full_name",
    destructive: bool = False,
    idempotent: bool = False,
    name: str | None = None,
    read_only_hint: bool | None = None,
    lazy_default_ref: bool = False,
    binds: StateBinder | None = None,
) -> Callable[[Callable[..., Awaitable[BaseModel]]], Callable[..., Awaitable[BaseModel]]]:
    """Declare a tool in one of the `Toolset`s (an unknown name fails here, at import).
    Writes must say what they write to: `target` is the argument holding the branch, a
    resolver, or None for unscoped writes."""
    if write and target is _REQUIRED:
        raise TypeError("write tools must declare target= (an argument name, resolver or None)")
    group = Toolset.parse(toolset)

    def decorate(fn: Callable[..., Awaitable[BaseModel]]) -> Callable[..., Awaitable[BaseModel]]:
        tool_name = name or fn.__name__
        if tool_name in REGISTRY and REGISTRY[tool_name].handler is not fn:
            raise ValueError(f"duplicate tool name {tool_name!r}")
        description = inspect.cleandoc(fn.__doc__ or "").split("\n\n")[0].replace("\n", " ")
        REGISTRY[tool_name] = ToolSpec(
            name=tool_name,
            handler=fn,
            description=description,
            toolset=group,
            write=write,
            target=None if target is _REQUIRED else target,
            ref_arg=ref_arg,
            repo_arg=repo_arg,
            pr_arg="pr" in inspect.signature(fn).parameters,
            destructive=destructive,
            idempotent=idempotent,
            read_only_hint=read_only_hint,
            lazy_default_ref=lazy_default_ref,
            binds=binds,
        )
        return fn

    return decorate


@dataclass
class Call:
    """What a handler gets besides its arguments."""

    rt: Runtime
    spec: ToolSpec
    call_id: str
    scope: str | None
    ctx: Context | None = None
    repo: str | None = None
    principal: Principal = PROCESS
    approval: ApprovalScope | None = None
    # The branch the gate authorised this write for; a handler that finds the real
    # target elsewhere (a PR retargeted meanwhile) sets audit_ref to it.
    authorized_ref: str | None = None
    audit_ref: str | None = None
    # Repositories read besides `repo` (search hits): the cross-visibility guard's record.
    read_repos: set[str] = field(default_factory=set)
    # The remote state the gate bound this write to (None: ungated, or nothing to bind);
    # the handler sends it as the write's precondition.
    bound: RemoteState | None = None

    async def progress(self, done: float, total: float | None = None, message: str = "") -> None:
        if self.ctx is None:
            return
        try:
            await self.ctx.report_progress(done, total, message)
        except Exception:
            return


def selected_specs(rt: Runtime) -> list[ToolSpec]:
    settings = rt.settings
    return [
        spec
        for spec in REGISTRY.values()
        if spec.toolset in settings.toolset_list and not (settings.read_only and spec.write)
    ]


def bind_tools(mcp: FastMCP, rt: Runtime) -> list[ToolSpec]:
    """Register the selected tools on `mcp`; returns what was registered."""
    specs = selected_specs(rt)
    for spec in specs:
        listed, validation = _fastmcp_tool(spec, rt)
        output = listed.output_schema
        if not rt.settings.output_schemas:
            # no client shows them to a model; describe_tool still gives them (docs/TOOLS.md)
            listed.output_schema = None
        registered = mcp.add_tool(listed)
        rt.tool_schemas[spec.name] = (registered.parameters, output)
        rt.validation_schemas[spec.name] = validation
    rt.bound_specs = {spec.name: spec for spec in specs}
    return specs


def _fastmcp_tool(spec: ToolSpec, rt: Runtime) -> tuple[Tool, dict[str, Any]]:
    """The listed tool (compact schemas), and its whole input schema, long patterns
    included, for `validate_tool_args` to agree with the call."""
    params, output_model = spec.signature()

    async def entry(ctx: Context, **kwargs: Any) -> ToolResult | InputRequiredResult:
        return await run_tool(spec, rt, kwargs, ctx)

    ctx_param = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    entry.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [ctx_param, *params], return_annotation=output_model
    )
    entry.__annotations__ = {p.name: p.annotation for p in params} | {
        "ctx": Context,
        "return": output_model,
    }
    entry.__name__ = spec.name
    entry.__doc__ = spec.description
    tags = {spec.toolset, "write" if spec.write else "read"}
    registered = _CompactTool.from_function(
        entry,
        name=spec.name,
        description=spec.description,
        annotations=spec.annotations,
        tags=tags,
    )
    validation = validation_schema(registered.parameters)
    registered.parameters = listed_schema(registered.parameters)
    if registered.output_schema is not None:
        registered.output_schema = listed_schema(registered.output_schema)
    return registered, validation


class _CompactTool(FunctionTool):
    """Listed without the title derived from the name (the name says it) and without the
    library's `_meta` (its tags): no MCP client uses either. Only `_meta.ui` (and ChatGPT's
    `openai/*` status lines) stay, which apps/wiring.py sets for a client that shows cards."""

    def to_mcp_tool(self, **overrides: Any) -> Any:
        listed = super().to_mcp_tool(**overrides)
        meta = self.meta or {}
        kept = {k: v for k, v in meta.items() if k == "ui" or k.startswith("openai/")}
        return listed.model_copy(update={"title": None, "meta": kept or None})


async def _resolve_target(spec: ToolSpec, call: Call, kwargs: dict[str, Any]) -> Target:
    if spec.target is None:
        return Target(None)
    if isinstance(spec.target, str):
        return Target(kwargs.get(spec.target))
    return await spec.target(call, kwargs)


async def run_tool(
    spec: ToolSpec, rt: Runtime, kwargs: dict[str, Any], ctx: Context | None = None
) -> ToolResult | InputRequiredResult:
    """One call: its call_id, client log and trace span around the pipeline below."""
    call_id = uuid.uuid4().hex[:16]
    async with tool_call_scope(spec.name, call_id, write=spec.write, ctx=ctx) as trace:
        await client_log.debug(f"{spec.name}: started (call_id {call_id})")
        result = await _run_pipeline(spec, rt, kwargs, ctx, call_id)
        failure = envelope_error(result)
        repo = kwargs.get(spec.repo_arg) if spec.repo_arg else None
        trace.finish(repo=repo if isinstance(repo, str) else None, error_code=failure.get("code"))
        if failure:
            await client_log.error(
                f"{spec.name} failed: {failure.get('code')}: {failure.get('message', '')}",
            )
        return result


async def _run_pipeline(
    spec: ToolSpec,
    rt: Runtime,
    kwargs: dict[str, Any],
    ctx: Context | None,
    call_id: str,
) -> ToolResult | InputRequiredResult:
    started = time.perf_counter()
    approval = approval_scope(ctx)
    scope = approval.key if approval is not None else None
    principal = approval.principal if approval is not None else caller_principal(ctx)
    call = Call(
        rt=rt,
        spec=spec,
        call_id=call_id,
        scope=scope,
        ctx=ctx,
        principal=principal,
        approval=approval,
    )
    held = contextlib.AsyncExitStack()
    base: dict[str, Any] = {"call_id": call_id, "tool": spec.name, "write": spec.write}
    log_event("tool_call_start", **base, arg_keys=sorted(kwargs))
    gate_passed = False
    branch: str | None = None
    claim: WriteClaim | None = None
    try:
        canonicalize_refs(spec, kwargs)
        if spec.pr_arg:
            apply_pr_ref(kwargs)
        full_name = kwargs.get(spec.repo_arg) if spec.repo_arg else None
        call.repo = full_name
        if full_name:
            rt.gate.check_repo_allowed(full_name)
            await rt.cache.sync_repo(full_name)  # replicas: drop reads older than a write
            if spec.ref_arg and spec.lazy_default_ref:
                kwargs[spec.ref_arg] = _known_ref(rt, full_name, kwargs.get(spec.ref_arg))
            elif spec.ref_arg:
                kwargs[spec.ref_arg] = await rt.gate.effective_ref(
                    full_name, kwargs.get(spec.ref_arg)
                )
        if spec.write:
            if spec.pr_arg and full_name:
                # One write at a time per PR: its base, read for the gate, stays put.
                pr_key = (full_name.lower(), kwargs.get("number"))
                await held.enter_async_context(rt.gate.pr_locks.hold(pr_key))
            target = await _resolve_target(spec, call, kwargs)
            branch = target.branch
            if branch is not None:
                target_arg = spec.target if isinstance(spec.target, str) else "branch"
                branch = canonical_write_target(branch, target_arg)
                if isinstance(spec.target, str):
                    kwargs[spec.target] = branch
            if target.repo and target.repo != full_name:
                # the resolver named the repository (e.g. from PR references)
                rt.gate.check_repo_allowed(target.repo)
                full_name = call.repo = target.repo
                if spec.repo_arg:
                    kwargs[spec.repo_arg] = target.repo
            if branch is not None:
                await check_lookalike(rt, full_name, branch)
            flow = await flow_decision(call, target)
            await rt.gate.authorize(
                tool=spec.name,
                full_name=full_name,
                branch=branch,
                scope=scope,
                call_id=call_id,
                fingerprint=await bind_write(call, kwargs, branch, flow),
                ask=human_approval(call, kwargs, branch),
                flow=flow,
            )
            gate_passed = True
            call.authorized_ref = branch
            if rt.shared is not None:
                claim = await claim_write(rt, call, spec, kwargs)
                if claim is not None and claim.replay is not None:
                    return replayed(claim.replay)
        result = await spec.handler(call, **kwargs)
        if isinstance(result, InputRequiredResult):
            return result  # a request for client input (elicitation), passed through as is
        if spec.write:
            await after_write(rt, call, result)
    except ClientInputRequired as question:
        return question.result  # the client asks its human, then retries with the answer
    except Exception as exc:
        error = as_tool_error(exc, call_id)
        envelope = error.envelope(call_id)
        duration = (time.perf_counter() - started) * 1000
        rt.metrics.record_tool(spec.name, spec.write, duration, error.code.value)
        log_event(
            "tool_call_error",
            **base,
            repo=call.repo,
            ref=_ref_of(spec, kwargs),
            path=kwargs.get("path"),
            duration_ms=round(duration, 1),
            status="error",
            error_type=error.code.value,
            exc_type=type(exc).__name__,
            detail=safe_detail(exc),
        )
        if claim is not None and rt.shared is not None:
            await rt.shared.writes.abandon(claim)  # a retry may try again
        if gate_passed:
            if call.repo:
                await rt.cache.bump_repo(call.repo)  # a failed write may have half happened
            rt.audit.record(
                call_id,
                principal,
                spec.name,
                call.repo,
                call.audit_ref or branch,
                "error:" + error.code.value,
            )
        text = json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)
        return ToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content=envelope,
            is_error=True,
        )
    finally:
        await held.aclose()  # the per-PR write lock, if taken
        await note_reads(call)  # what this call read counts for the scope's later writes
    payload = result.model_dump(mode="json", exclude_none=True)
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    duration = (time.perf_counter() - started) * 1000
    rt.metrics.record_tool(spec.name, spec.write, duration, None)
    log_event(
        "tool_call_success",
        **base,
        repo=call.repo,
        ref=_ref_of(spec, kwargs),
        path=kwargs.get("path"),
        duration_ms=round(duration, 1),
        status="ok",
        result_size=len(text),
    )
    if spec.write:
        rt.audit.record(
            call_id,
            principal,
            spec.name,
            call.repo,
            call.audit_ref or branch,
            "ok",
            **outcome_refs(payload),
        )
        if claim is not None and rt.shared is not None:
            await keep_result(rt, claim, payload)
    return ToolResult(content=[TextContent(type="text", text=text)], structured_content=payload)


def _known_ref(rt: Runtime, full_name: str, ref: str | None) -> str | None:
    """The ref a lazy-default read uses without asking GitHub: the given one or a
    configured override; None leaves the default branch to the read's own request."""
    if rt.gate.is_controller_repo(full_name) and (not ref or ref == "main"):
        return rt.settings.controller_branch
    return ref or rt.settings.repo_default_overrides.get(full_name.lower())


def _ref_of(spec: ToolSpec, kwargs: dict[str, Any]) -> str | None:
    for key in (spec.ref_arg, "branch", "ref"):
        if key and isinstance(kwargs.get(key), str):
            return kwargs[key]
    return None
