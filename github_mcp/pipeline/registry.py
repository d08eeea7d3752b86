"""The @tool decorator and the registry of tools.

Every tool is declared with `@tool(...)`. The decorator records a `ToolSpec`
(pipeline/tool_spec.py): whether it writes, its toolset, annotations and, for writes,
the argument naming the branch it writes to (`target`) and what its approval binds
(`binds`). Each call then goes through `running.run_tool` (from the call seam), which
takes the steps of pipeline/steps.py in order. Declaring a tool imports none of that, so
a listing answered from the tool index does not pay for the call machinery.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from github_mcp.config import Toolset
from github_mcp.pipeline.spec import Call as Call
from github_mcp.pipeline.tool_spec import REGISTRY as REGISTRY
from github_mcp.pipeline.tool_spec import ArgumentsOnly as ArgumentsOnly
from github_mcp.pipeline.tool_spec import Binding, TargetResolver, ToolSpec
from github_mcp.pipeline.tool_spec import defer_tool_imports as defer_tool_imports
from github_mcp.pipeline.tool_spec import tool_imports_deferred as tool_imports_deferred

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
