"""The @tool decorator, the registry of tools, and the entry of every call.

Every tool is declared with `@tool(...)`. The decorator records a `ToolSpec`
(pipeline/spec.py): whether it writes, its toolset, annotations and, for writes,
the argument naming the branch it writes to (`target`). `tool_binding.bind_tools`
serves the selected specs on a FastMCP server; each call then goes through `run_tool`, which
takes the named steps of pipeline/steps.py in order: the allow-list and effective
ref, the write gate, the handler, the audit log, and the tool result or error
envelope (shaped in call_outcome.py). Handlers never check permissions.
"""

from __future__ import annotations

import contextlib
import inspect
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from github_mcp.config import Toolset
from github_mcp.monitoring import client_log
from github_mcp.pipeline import steps
from github_mcp.pipeline.answer import ToolAnswer
from github_mcp.pipeline.call_outcome import (
    after_write,
    envelope_error,
)
from github_mcp.pipeline.call_scope import tool_call_scope
from github_mcp.pipeline.flows import note_reads
from github_mcp.pipeline.human_approval import ClientInputRequired
from github_mcp.pipeline.peer import InputRequired
from github_mcp.pipeline.spec import Call as Call
from github_mcp.pipeline.tool_spec import REGISTRY as REGISTRY
from github_mcp.pipeline.tool_spec import ArgumentsOnly as ArgumentsOnly
from github_mcp.pipeline.tool_spec import Binding, TargetResolver, ToolSpec
from github_mcp.pipeline.tool_spec import defer_tool_imports as defer_tool_imports
from github_mcp.pipeline.tool_spec import tool_imports_deferred as tool_imports_deferred

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import Peer
    from github_mcp.pipeline.runtime import Runtime

_REQUIRED: Any = object()


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
    binds: Binding | None = None,
    approve_each: bool = False,
    app_only: bool = False,
    tasks: bool = False,
) -> Callable[[Callable[..., Awaitable[BaseModel]]], Callable[..., Awaitable[BaseModel]]]:
    """Declare a tool in one of the `Toolset`s (an unknown name fails here, at import).
    Writes must say what they write to: `target` is the argument holding the branch, a
    resolver, or None for unscoped writes. And what their approval is bound to: `binds`
    is a binder reading the remote state the effect depends on (approval_binding.py), or
    `ArgumentsOnly(reason)` when the arguments are the whole effect. A write without
    either is refused here, at import: no write can be approved for a state it does not
    name. `tasks`: a call can take more than a few seconds, so it may run as an MCP task
    for a client that declared the Tasks extension."""
    if write and target is _REQUIRED:
        raise TypeError("write tools must declare target= (an argument name, resolver or None)")
    options: dict[str, Any] = {
        "toolset": Toolset.parse(toolset),
        "write": write,
        "target": None if target is _REQUIRED else target,
        "ref_arg": ref_arg,
        "repo_arg": repo_arg,
        "destructive": destructive,
        "idempotent": idempotent,
        "read_only_hint": read_only_hint,
        "lazy_default_ref": lazy_default_ref,
        "binds": binds,
        "approve_each": approve_each,
        "app_only": app_only,
        "tasks": tasks,
    }

    def decorate(fn: Callable[..., Awaitable[BaseModel]]) -> Callable[..., Awaitable[BaseModel]]:
        _check_binding(name or fn.__name__, write, binds)
        _register(name or fn.__name__, fn, options)
        return fn

    return decorate


def _check_binding(name: str, write: bool, binds: Binding | None) -> None:
    what = f"tool {name!r}"
    if write and binds is None:
        raise TypeError(
            f"{what} writes but declares no binds=: give the binder that reads the remote "
            "state its effect depends on (a head SHA, a release, a file's blob), or "
            "ArgumentsOnly('why the arguments are the whole effect')"
        )
    if binds is not None and not (isinstance(binds, ArgumentsOnly) or callable(binds)):
        raise TypeError(f"{what}: binds= takes a binder (async callable) or ArgumentsOnly")
    if not write and binds is not None:
        raise TypeError(f"{what} is a read: only writes bind remote state")


def _register(
    tool_name: str, fn: Callable[..., Awaitable[BaseModel]], options: dict[str, Any]
) -> None:
    """Record the handler's ToolSpec; its first docstring paragraph is the description."""
    if tool_name in REGISTRY and REGISTRY[tool_name].handler is not fn:
        raise ValueError(f"duplicate tool name {tool_name!r}")
    description = inspect.cleandoc(fn.__doc__ or "").split("\n\n")[0].replace("\n", " ")
    REGISTRY[tool_name] = ToolSpec(
        name=tool_name,
        handler=fn,
        description=description,
        pr_arg="pr" in inspect.signature(fn).parameters,
        **options,
    )


async def run_tool(
    spec: ToolSpec, rt: Runtime, kwargs: dict[str, Any], peer: Peer
) -> ToolAnswer | InputRequired:
    """One call with validated arguments (seam.py validates them): its call_id, client
    log and trace span around the pipeline below."""
    call_id = secrets.token_hex(8)  # 16 hex characters, as the logs and envelopes show
    async with tool_call_scope(spec.name, call_id, write=spec.write, peer=peer) as trace:
        await client_log.debug(f"{spec.name}: started (call_id {call_id})")
        result = await _run_pipeline(spec, rt, kwargs, peer, call_id)
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
    peer: Peer,
    call_id: str,
) -> ToolAnswer | InputRequired:
    """The steps of pipeline/steps.py, in order; any failure becomes the error envelope."""
    run = steps.begin(spec, rt, kwargs, peer, call_id)
    async with contextlib.AsyncExitStack() as held:  # the per-PR write lock, if taken
        try:
            await steps.scope_arguments(run)
            if spec.write:
                await steps.authorize_write(run, held)
                if (replay := await steps.claim_once(run)) is not None:
                    return replay
            result = await spec.handler(run.call, **kwargs)
            if spec.write:
                await after_write(rt, run.call, result)
        except ClientInputRequired as question:
            return question.result  # the client asks its human, then retries with the answer
        except Exception as exc:
            return await steps.failed(run, exc)
        finally:
            await note_reads(run.call)  # what this call read counts for the scope's later writes
    return await steps.succeeded(run, result)
