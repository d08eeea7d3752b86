"""Who is calling: the approval scope (principal, plus the server-issued session) that
write approvals and the read record are keyed on, from the call's Peer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from github_mcp.kernel.principal import ANONYMOUS, ApprovalScope

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import Peer


def approval_scope(peer: Peer) -> ApprovalScope | None:
    """What an approval is keyed on: the authenticated principal, plus the session id
    when the server issued that session to the same principal (the transport checks
    that before it names the session). None when nothing identifies the caller:
    unauthenticated HTTP without a server session."""
    principal, session = peer.principal, peer.session
    if principal is ANONYMOUS and session is None:
        return None
    if principal.kind == "process":
        return ApprovalScope(principal)  # one client per process
    return ApprovalScope(principal, session)
