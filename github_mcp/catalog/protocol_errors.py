"""JSON-RPC error codes for the paths that are not tool calls (resources, prompts).

A tool's failure is a result (`isError` with the envelope). A failed `resources/read` or
`prompts/get` has no result shape, so it is a JSON-RPC error, and its code says whose
fault it is:

- a resource that does not exist (missing file, a directory): "resource not found",
  -32002 up to protocol 2025-11-25, -32602 from 2026-07-28 (SEP-2164 moved it); the
  envelope and the URI go in `data`;
- bad arguments (a prompt's missing or malformed argument, a bad template value, a
  binary file without allow_binary, a repository outside the allow-list): -32602;
- anything else (GitHub down, rate limits, our own bugs): -32603, envelope in `data`.
"""

from __future__ import annotations

from typing import Any

from fastmcp.exceptions import NotFoundError, PromptError, ResourceError
from fastmcp.server.middleware import Middleware, MiddlewareContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

RESOURCE_NOT_FOUND = -32002  # the code before protocol 2026-07-28
NOT_FOUND_CODES = {"not_found", "not_a_file"}
CALLER_CODES = {"invalid_input", "binary_file", "repo_not_allowed", "forbidden"}
MODERN_PROTOCOLS = ("2026-07-28",)


class PromptArgumentError(PromptError):
    """A prompt argument the caller got wrong: answered -32602."""


class ResourceFailure(ResourceError):
    """A resource read that failed with an error envelope (see `resource_error`)."""

    def __init__(self, envelope: dict[str, Any]) -> None:
        error = envelope.get("error", {})
        super().__init__(str(error.get("message") or "resource read failed"))
        self.envelope = envelope


def resource_error(envelope: dict[str, Any], uri: str, protocol: str | None) -> MCPError:
    code_name = str(envelope.get("error", {}).get("code", "internal"))
    message = str(envelope.get("error", {}).get("message") or code_name)
    data = {"uri": uri, **envelope}
    if code_name in NOT_FOUND_CODES:
        modern = protocol in MODERN_PROTOCOLS
        return MCPError(
            code=INVALID_PARAMS if modern else RESOURCE_NOT_FOUND,
            message=f"Resource not found: {message}",
            data=data,
        )
    if code_name in CALLER_CODES:
        return MCPError(code=INVALID_PARAMS, message=message, data=data)
    return MCPError(code=INTERNAL_ERROR, message=message, data=data)


class ProtocolErrorMiddleware(Middleware):
    """Gives resources/read and prompts/get failures the codes above."""

    async def on_read_resource(self, context: MiddlewareContext, call_next: Any) -> Any:
        try:
            return await call_next(context)
        except ResourceFailure as exc:
            uri = str(getattr(context.message, "uri", ""))
            raise resource_error(exc.envelope, uri, _protocol(context)) from None
        except NotFoundError:
            uri = str(getattr(context.message, "uri", ""))
            envelope = {"error": {"code": "not_found", "message": f"no resource at {uri}"}}
            raise resource_error(envelope, uri, _protocol(context)) from None

    async def on_get_prompt(self, context: MiddlewareContext, call_next: Any) -> Any:
        name = getattr(context.message, "name", "")
        given = getattr(context.message, "arguments", None) or {}
        missing = await _missing_arguments(context, name, given)
        if missing:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Missing required argument(s) for prompt {name!r}: " + ", ".join(missing),
                data={"prompt": name, "missing": missing},
            )
        try:
            return await call_next(context)
        except PromptArgumentError as exc:
            raise MCPError(code=INVALID_PARAMS, message=str(exc), data={"prompt": name}) from None


async def _missing_arguments(
    context: MiddlewareContext, name: str, given: dict[str, Any]
) -> list[str]:
    server = getattr(context.fastmcp_context, "fastmcp", None)
    if server is None:
        return []
    try:
        prompt = await server.get_prompt(name)
    except Exception:
        return []
    if prompt is None:
        return []
    return [a.name for a in (prompt.arguments or []) if a.required and a.name not in given]


def _protocol(context: MiddlewareContext) -> str | None:
    ctx = context.fastmcp_context
    request = getattr(ctx, "request_context", None) if ctx is not None else None
    return getattr(request, "protocol_version", None)
