"""What a tool's handler gets with its arguments (`Call`); what a tool is (`ToolSpec`) is
in tool_spec.py, re-exported here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from github_mcp.github.provenance import Provenance
from github_mcp.kernel.principal import PROCESS, ApprovalScope, Principal
from github_mcp.pipeline.tool_spec import ToolSpec

# How a call made without an MCP context reports progress (serving/direct_calls.py), when
# its request carried a progress token.
ProgressReport = Callable[[float, float | None, str], Awaitable[None]]
PROGRESS: ContextVar[ProgressReport | None] = ContextVar("direct_progress", default=None)

if TYPE_CHECKING:
    from fastmcp import Context

    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.services.approved_state import RemoteState


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
    # What GitHub's answers to this call named (github/provenance.py): the
    # cross-visibility guard's record, noted by the client, never by the handler.
    reads: Provenance = field(default_factory=Provenance)
    recording: Token[Provenance | None] | None = None
    # The remote state the gate bound this write to (None: ungated, or nothing to bind);
    # the handler sends it as the write's precondition.
    bound: RemoteState | None = None

    async def progress(self, done: float, total: float | None = None, message: str = "") -> None:
        if self.ctx is None:
            report = PROGRESS.get()  # a call answered without the MCP framework
            if report is not None:
                await report(done, total, message)
            return
        try:
            await self.ctx.report_progress(done, total, message)
        except Exception:
            return
