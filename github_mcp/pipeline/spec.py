"""What a tool is (`ToolSpec`, recorded by `@tool`) and what its handler gets with its
arguments (`Call`)."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fastmcp import Context
from mcp.types import ToolAnnotations
from pydantic import BaseModel

from github_mcp.config import Toolset
from github_mcp.kernel.effects import Target
from github_mcp.kernel.principal import PROCESS, ApprovalScope, Principal

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.services.approved_state import RemoteState

# Reads the call's arguments (never changes them) and says where the write lands.
TargetResolver = Callable[["Call", dict[str, Any]], Awaitable[Target]]
# Reads the remote state a gated write depends on (a PR's head, a branch's head): what
# the human approves and what the handler then enforces (pipeline/approval_binding.py).
StateBinder = Callable[["Call", dict[str, Any]], Awaitable["RemoteState"]]


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
    # Approved for each call on its own (a human, or the operator's GITHUB_MCP_AUTO_APPROVE):
    # an approval window a human granted for other writes does not cover it.
    approve_each: bool = False

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
