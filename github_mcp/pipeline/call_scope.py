"""What surrounds every tool call besides the pipeline itself: its call_id bound for the
logs, the client log sink bound to the caller (its Peer), and its trace span.

The registry wraps each call in `tool_call_scope`; services reach the sink through
`client_log` and the span through `tracing`, neither of which knows about MCP.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from github_mcp.monitoring import client_log, tracing
from github_mcp.monitoring.observability import CURRENT_CALL_ID

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import Peer

LOGGER_NAME = "github_mcp"


def peer_sink(peer: Peer, call_id: str) -> client_log.Sink:
    """A sink sending the call's log lines to its client; the peer applies the level the
    client asked for (a session's logging/setLevel, a 2026 request's own level)."""

    async def send(level: client_log.Level, message: str, fields: dict[str, Any]) -> None:
        await peer.log(level, message, call_id)

    return send


class CallTrace:
    """The call's span, for recording how it ended."""

    def __init__(self, current: Any) -> None:
        self.span = current

    def finish(self, *, repo: str | None, error_code: str | None) -> None:
        tracing.annotate(
            self.span, **{"mcp.repo": repo, "mcp.outcome": "error" if error_code else "ok"}
        )
        if error_code:
            tracing.annotate(self.span, **{"mcp.error_code": error_code})
            tracing.mark_error(self.span, error_code)


class _InFlight:
    """Tool calls running now (a shutdown waits for them)."""

    count = 0


IN_FLIGHT = _InFlight()


@asynccontextmanager
async def tool_call_scope(
    tool: str, call_id: str, *, write: bool, peer: Peer
) -> AsyncIterator[CallTrace]:
    token = CURRENT_CALL_ID.set(call_id)
    IN_FLIGHT.count += 1
    try:
        with (
            client_log.bind(peer_sink(peer, call_id)),
            tracing.span(
                f"tool {tool}",
                **{"mcp.tool": tool, "mcp.call_id": call_id, "mcp.write": write},
            ) as current,
        ):
            yield CallTrace(current)
    finally:
        IN_FLIGHT.count -= 1
        CURRENT_CALL_ID.reset(token)
