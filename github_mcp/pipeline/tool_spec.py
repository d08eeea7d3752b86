"""What a tool is: `ToolSpec`, recorded by `@tool`. Below spec.py's Call and runtime.py's
Runtime, which both refer to it; the resolvers below take (call, arguments), typed loosely
as the handler is, since Call holds the Runtime that holds these specs."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from github_mcp.config import Toolset
from github_mcp.kernel.effects import Target

if TYPE_CHECKING:
    from mcp.types import ToolAnnotations

    from github_mcp.services.shared.approved_state import RemoteState

# Reads the call's arguments (never changes them) and says where the write lands.
TargetResolver = Callable[..., Awaitable[Target]]
# Reads the remote state a gated write depends on (a PR's head, a branch's head): what
# the human approves and what the handler then enforces (pipeline/approval_binding.py).
StateBinder = Callable[..., Awaitable["RemoteState"]]


@dataclass(frozen=True)
class ArgumentsOnly:
    """A write's declaration that no remote state changes what it does: its arguments
    are its whole effect (a comment's body, a label's name), and why that holds."""

    reason: str

    def __post_init__(self) -> None:
        if len(self.reason.strip()) < 10:
            raise TypeError("ArgumentsOnly needs the reason the arguments are the whole effect")


# What every write tool declares (`@tool(binds=…)`): the state it is bound to, or none.
Binding = StateBinder | ArgumentsOnly


def binding_text(binds: Binding | None) -> str:
    """The declaration in words: the binder's first docstring line, or the reason."""
    if binds is None:
        return "(none declared)"
    if isinstance(binds, ArgumentsOnly):
        return "arguments only: " + binds.reason
    first = inspect.cleandoc(binds.__doc__ or binds.__name__).split("\n\n")[0]
    return "bound: " + " ".join(first.split())


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
    # every write: the remote state its approval is bound to, or ArgumentsOnly(reason)
    binds: Binding | None = None
    # Approved for each call on its own (a human, or the operator's GITHUB_MCP_AUTO_APPROVE):
    # an approval window a human granted for other writes does not cover it.
    approve_each: bool = False
    # Called only by an MCP Apps card (`_meta.ui.visibility: ["app"]`): unknown to a
    # client that did not declare the UI extension, listed or called.
    app_only: bool = False
    # Can take more than a few seconds: runs as an MCP task for a client that asks.
    tasks: bool = False

    @property
    def annotations(self) -> ToolAnnotations:
        """The hints a client acts on: read-only, and for anything else whether it is
        destructive, both said either way; idempotent only when true and open world
        never (MCP's defaults). The tool list is context paid on every turn."""
        from mcp.types import ToolAnnotations  # only a listing needs it

        read_only = (not self.write) if self.read_only_hint is None else self.read_only_hint
        if read_only and not self.destructive:
            return ToolAnnotations(read_only_hint=True)
        return ToolAnnotations(
            read_only_hint=read_only,
            destructive_hint=self.destructive,
            idempotent_hint=True if self.idempotent else None,
        )

    @property
    def binder(self) -> StateBinder | None:
        """The binder that reads the state a gated call is bound to, if the tool has one."""
        return None if self.binds is None or isinstance(self.binds, ArgumentsOnly) else self.binds

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


# Every registered tool by name, in the order registered (the `@tool` decorator fills it).
REGISTRY: dict[str, ToolSpec] = {}
_DEFERRED: list[bool] = [False]  # importing github_mcp.tools registers nothing until import_all()


def defer_tool_imports() -> None:
    """Before github_mcp.tools is first imported: its modules are imported one by one
    (the stdio start, from the tool index), not by the package."""
    _DEFERRED[0] = True


def tool_imports_deferred() -> bool:
    return _DEFERRED[0]
