"""Session ids chosen by the proxy in front, so that a session names its replica.

Replicas keep each streamable-HTTP session in memory, so every request of a session must
reach the replica that opened it. The shipped nginx config balances with
`hash $affinity consistent`, where `$affinity` is the request's `Mcp-Session-Id`, or, for
a request without one (initialize), nginx's own random `$request_id`. nginx also passes
that `$request_id` to the replica (`X-Request-Id`), and with
GITHUB_MCP_SESSION_ID_HEADER=X-Request-Id the replica makes it the new session's id. The
later requests then carry the very value nginx hashed when it chose the replica for
initialize, so the same hash leads them back to it; no shared session store and no
forwarding between replicas. Before, the replica minted its own id, which hashed to an
arbitrary replica: about half of all sessions got 404.

Only a value shaped like nginx's `$request_id` (32 lowercase hex digits, 128 random bits)
is adopted, only on a request that opens a session, and never one already in use; set the
variable only behind a proxy that overwrites the header (a client choosing its own id
gains nothing: a session answers only the credential that opened it).
"""

from __future__ import annotations

import contextvars
import re
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from github_mcp.kernel.framework_internals import on_admit, rename_session

VALUE = re.compile(r"[0-9a-f]{32}")
_PROPOSED: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "github_mcp_proposed_session_id", default=None
)


class ProposedSessionId:
    """ASGI middleware: remember the proxy's id for a request that opens a session."""

    def __init__(self, app: ASGIApp, header: str) -> None:
        self.app = app
        self.header = header.lower().encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        value = headers.get(self.header, b"").decode("latin-1")
        if b"mcp-session-id" in headers or not VALUE.fullmatch(value):
            await self.app(scope, receive, send)
            return
        token = _PROPOSED.set(value)
        try:
            await self.app(scope, receive, send)
        finally:
            _PROPOSED.reset(token)


def adopt_proposed_ids(manager: Any) -> None:
    """Make `manager` (the SDK's session manager) name each new session by the proxy's
    id when the request carries one, before anything else has seen the session."""

    def rename(transport: Any) -> None:
        proposed = _PROPOSED.get()
        if proposed is not None:
            rename_session(manager, transport, proposed)

    on_admit(manager, rename)
