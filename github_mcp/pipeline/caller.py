"""Who is calling: the authenticated principal behind a tool call, and the approval scope
(principal, plus the server-issued session) that write approvals are keyed on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from github_mcp.kernel.principal import (
    ANONYMOUS,
    PROCESS,
    ApprovalScope,
    Principal,
    principal_from_token,
)
from github_mcp.monitoring.observability import log_event

if TYPE_CHECKING:
    from fastmcp import Context

SESSION_OWNER_KEY = "github_mcp.session_owner"


def caller_principal(ctx: Context | None) -> Principal:
    """The authenticated identity behind this call: the bearer token's principal
    (or an OAuth user's GitHub login) over HTTP, the process over stdio."""
    if ctx is None:
        return PROCESS
    from fastmcp.server.dependencies import get_access_token

    token = get_access_token()
    if token is not None:
        return principal_from_token(token.client_id, token.claims)
    if _over_http(ctx):
        return ANONYMOUS
    return PROCESS


def approval_scope(ctx: Context | None) -> ApprovalScope | None:
    """What an approval is keyed on: the authenticated principal, plus the session
    id only when the server issued that session to the same principal (recorded on
    the connection at initialize). A session header the client merely sent (the
    stateless transport has no sessions of its own) counts for nothing. None when
    nothing identifies the caller: unauthenticated HTTP without a server session."""
    principal = caller_principal(ctx)
    session_id = _issued_session(ctx, principal)
    if principal is ANONYMOUS and session_id is None:
        return None
    if principal.kind == "process":
        return ApprovalScope(principal)  # one client per process
    return ApprovalScope(principal, session_id)


def _over_http(ctx: Context) -> bool:
    try:
        return ctx.transport in ("sse", "streamable-http")
    except RuntimeError:
        return False


def _connection(ctx: Context | None) -> Any:
    if ctx is None:
        return None
    request = ctx.request_context
    session = request.session if request is not None else getattr(ctx, "_session", None)
    return getattr(session, "_connection", None)


def _issued_session(ctx: Context | None, principal: Principal) -> str | None:
    connection = _connection(ctx)
    session_id = getattr(connection, "session_id", None)
    if not session_id:
        return None
    owner = connection.state.get(SESSION_OWNER_KEY)
    if owner != principal:
        if owner is not None:
            log_event("session_principal_mismatch", owner=owner.key, caller=principal.key)
        return None
    return str(session_id)


def claim_session(ctx: Context | None, on_end: Callable[[ApprovalScope], None]) -> None:
    """At initialize: record which principal a server-issued session belongs to, and
    call on_end with its approval scope when the session ends (however it ends)."""
    connection = _connection(ctx)
    session_id = getattr(connection, "session_id", None)
    if not session_id or SESSION_OWNER_KEY in connection.state:
        return
    principal = caller_principal(ctx)
    connection.state[SESSION_OWNER_KEY] = principal
    scope = ApprovalScope(principal, str(session_id))
    connection.exit_stack.callback(on_end, scope)
