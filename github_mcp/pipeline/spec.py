"""What a tool's handler gets with its arguments (`Call`); what a tool is (`ToolSpec`) is
in tool_spec.py, re-exported here."""

from __future__ import annotations

from contextvars import Token
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from github_mcp.github.provenance import Provenance
from github_mcp.kernel.principal import PROCESS, ApprovalScope, Principal
from github_mcp.pipeline.peer import Peer
from github_mcp.pipeline.tool_spec import ToolSpec

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.services.shared.approved_state import RemoteState


@dataclass
class Call:
    """What a handler gets besides its arguments."""

    rt: Runtime
    spec: ToolSpec
    call_id: str
    scope: str | None
    peer: Peer
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
        try:
            await self.peer.progress(done, total, message)
        except Exception:  # a client gone or slow to read never fails the call
            return
