"""Tool calls refused before they run (bad arguments, an unknown tool): the standard error
envelope, a count by reason, and a span, like every call that runs.

An operator adding up `mcp_tool_calls` and `mcp_tool_errors` sees every call the clients
made; `mcp_tool_calls_refused{reason}` says which were turned away at the door. An unknown
tool's name comes from the client, so it is counted under `(unknown)`, never as a label of
its own (a client could otherwise grow the metrics without bound).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from mcp.types import TextContent

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring import tracing
from github_mcp.monitoring.metrics import Metrics
from github_mcp.monitoring.observability import log_event

INVALID_ARGUMENTS = "invalid_arguments"
UNKNOWN_TOOL = "unknown_tool"
UNKNOWN_NAME = "(unknown)"


class ArgumentErrorMiddleware(Middleware):
    """Turn argument-validation failures into the standard error envelope."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
        from fastmcp.exceptions import NotFoundError, ValidationError
        from pydantic import ValidationError as PydanticValidationError

        try:
            return await call_next(context)
        except (ValidationError, PydanticValidationError) as exc:
            cause = exc.__cause__ if isinstance(exc, ValidationError) else exc
            error = GitHubMCPError(
                ErrorCode.INVALID_INPUT,
                _problems(cause)[:1000],
                hint="describe_tool shows the input schema; validate_tool_args checks it.",
            )
            tool = str(getattr(context.message, "name", "") or UNKNOWN_NAME)
            return self._refuse(error, tool, INVALID_ARGUMENTS)
        except NotFoundError:
            error = GitHubMCPError(
                ErrorCode.NOT_FOUND, "Unknown tool.", hint="list_all_actions lists the tools."
            )
            return self._refuse(error, UNKNOWN_NAME, UNKNOWN_TOOL)

    def _refuse(self, error: GitHubMCPError, tool: str, reason: str) -> ToolResult:
        """The envelope of a refused call, with a call_id of its own like every other
        error, logged, counted and traced under it."""
        call_id = uuid.uuid4().hex[:16]
        with tracing.span(
            f"tool {tool}",
            **{"mcp.tool": tool, "mcp.call_id": call_id, "mcp.refused": reason},
        ) as current:
            code = error.code.value
            tracing.annotate(current, **{"mcp.outcome": "error", "mcp.error_code": code})
            tracing.mark_error(current, error.code.value)
        self.metrics.record_refused(tool, reason, error.code.value)
        log_event("tool_call_refused", call_id=call_id, error_type=error.code.value, reason=reason)
        envelope = error.envelope(call_id)
        return ToolResult(
            content=[TextContent(type="text", text=json.dumps(envelope, separators=(",", ":")))],
            structured_content=envelope,
            is_error=True,
        )


def _problems(cause: BaseException | None) -> str:
    from pydantic import ValidationError as PydanticValidationError

    problems = []
    if isinstance(cause, PydanticValidationError):
        for err in cause.errors()[:10]:
            where = ".".join(str(p) for p in err.get("loc", ()))
            problems.append(f"{where}: {err.get('msg', 'invalid')}")
    return "Invalid arguments: " + ("; ".join(problems) or "see the tool's schema")
