"""The one way a tool call runs, whatever transport carried it.

Every `tools/call` (over stdio, over HTTP, from a card, from a resource read) enters
`call_tool` with its tool name, its raw arguments and the `Peer` it answers to, and takes
the same steps, in this order:

1. **served**: the tool is one this server serves (its toolsets, less writes in read-only
   mode); anything else is an unknown tool;
2. **view**: a read-only view (`/readonly`, `X-MCP-Readonly`) refuses a write; a tool
   only an MCP Apps card calls is unknown to a client that does not render cards;
3. **arguments**: validated against the handler's signature (the schema the tool lists);
4. **order**: calls from one client take effect in the order they were sent (peer.py);
5. **the pipeline** (running.run_tool): the allow-list and effective ref, the gate and
   any approval, the handler, provenance, the audit record and metrics.

Steps 1-3 refuse with the standard error envelope, logged, counted and traced like any
failed call. `STEPS` names them; the tests check every path runs all of them.
"""

from __future__ import annotations

import asyncio
import inspect
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring import tracing
from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.answer import ToolAnswer
from github_mcp.pipeline.peer import InputRequired, finished
from github_mcp.pipeline.running import run_tool

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import Peer
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.tool_spec import ToolSpec

STEPS = ("served", "view", "arguments", "order", "pipeline")
INVALID_ARGUMENTS = "invalid_arguments"
UNKNOWN_TOOL = "unknown_tool"
READ_ONLY_VIEW = "read_only_view"
UNKNOWN_NAME = "(unknown)"  # a client-chosen name is never a metrics label

_ADAPTERS: dict[str, tuple[ToolSpec, TypeAdapter[Any]]] = {}


async def call_tool(
    rt: Runtime, peer: Peer, name: Any, arguments: Any
) -> ToolAnswer | InputRequired:
    """One tools/call, through every step (see the module docstring)."""
    spec = rt.bound_specs.get(name) if isinstance(name, str) else None
    if spec is None or (spec.app_only and not peer.shows_cards):
        error = GitHubMCPError(
            ErrorCode.NOT_FOUND,
            "Unknown tool.",
            hint="find_tools (or list_all_actions) lists the tools this server serves.",
        )
        return refuse(rt, error, UNKNOWN_NAME, UNKNOWN_TOOL)
    if spec.write and peer.view.read_only:
        return refuse(rt, _read_only(spec.name), spec.name, READ_ONLY_VIEW)
    kwargs = validated(spec, arguments)
    if isinstance(kwargs, GitHubMCPError):
        return refuse(rt, kwargs, spec.name, INVALID_ARGUMENTS)
    ahead, done = peer.order.enter(changes=spec.write or spec.read_only_hint is False)
    try:
        for earlier in ahead:
            await asyncio.shield(earlier)
        answer = await run_tool(spec, rt, kwargs, peer)
    finally:
        finished(done)
    return _with_card_meta(rt, peer, spec.name, answer)


def _with_card_meta(
    rt: Runtime, peer: Peer, name: str, answer: ToolAnswer | InputRequired
) -> ToolAnswer | InputRequired:
    """For a client that renders cards: what the card of this result may call here."""
    cards = rt.approval_cards
    if cards is None or not peer.shows_cards or not isinstance(answer, ToolAnswer):
        return answer
    extra = cards.result_meta(rt, peer.view, name)
    return answer if extra is None else replace(answer, meta={**(answer.meta or {}), **extra})


def validated(spec: ToolSpec, arguments: Any) -> dict[str, Any] | GitHubMCPError:
    """The call's arguments as the handler takes them (defaults filled in), or the
    `invalid_input` error naming each offending field."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return _invalid("Invalid arguments: 'arguments' must be an object")
    try:
        kwargs = adapter(spec).validate_python(arguments)
    except ValidationError as exc:
        return _invalid(_problems(exc))
    return kwargs if isinstance(kwargs, dict) else _invalid("Invalid arguments")


def adapter(spec: ToolSpec) -> TypeAdapter[Any]:
    """The handler's parameters as one validator, built on first use (about 5 ms)."""
    cached = _ADAPTERS.get(spec.name)
    if cached is None or cached[0] is not spec:
        cached = _ADAPTERS[spec.name] = (spec, TypeAdapter(_arguments_of(spec)))  # type: ignore[arg-type]
    return cached[1]


def refuse(rt: Runtime, error: GitHubMCPError, tool: str, reason: str) -> ToolAnswer:
    """The envelope of a call turned away before it ran, with a call_id of its own like
    every other error, logged, counted and traced under it."""
    call_id = secrets.token_hex(8)
    code = error.code.value
    with tracing.span(
        f"tool {tool}", **{"mcp.tool": tool, "mcp.call_id": call_id, "mcp.refused": reason}
    ) as current:
        tracing.annotate(current, **{"mcp.outcome": "error", "mcp.error_code": code})
        tracing.mark_error(current, code)
    rt.metrics.record_refused(tool, reason, code)
    log_event("tool_call_refused", call_id=call_id, tool=tool, error_type=code, reason=reason)
    return ToolAnswer.of(error.envelope(call_id), is_error=True)


def _read_only(name: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        f"{name} writes, and this connection is read-only (/readonly or X-MCP-Readonly).",
        hint="Connect without /readonly and X-MCP-Readonly to write.",
    )


def _invalid(message: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.INVALID_INPUT,
        message[:1000],
        hint="describe_tool shows the input schema; validate_tool_args checks it.",
    )


def _problems(exc: ValidationError) -> str:
    problems = []
    for err in exc.errors()[:10]:
        where = ".".join(str(p) for p in err.get("loc", ()))
        problems.append(f"{where}: {err.get('msg', 'invalid')}")
    return "Invalid arguments: " + ("; ".join(problems) or "see the tool's schema")


def _arguments_of(spec: ToolSpec) -> Callable[..., dict[str, Any]]:
    """A function with the handler's parameters (less `call`) that returns its arguments:
    validating a call against it validates the tool's arguments as its schema says."""
    params, _ = spec.signature()

    def arguments(**kwargs: Any) -> dict[str, Any]:
        return kwargs

    signature = inspect.Signature(list(params))
    arguments.__signature__ = signature  # type: ignore[attr-defined]
    arguments.__annotations__ = {p.name: p.annotation for p in params}
    return arguments
