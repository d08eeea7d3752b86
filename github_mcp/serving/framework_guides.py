"""The prompts, resources and completions of catalog/ on the MCP framework (HTTP and
in-process clients): the same definitions the stdio server serves, registered through the
framework's public API, and their failures given the JSON-RPC codes resources.py names.

No `from __future__ import annotations`: the framework reads the resource template
function's signature at runtime.
"""

from typing import TYPE_CHECKING, Any

from fastmcp import Context
from fastmcp.exceptions import NotFoundError, ResourceError
from fastmcp.prompts import Prompt
from fastmcp.prompts.base import PromptArgument
from fastmcp.resources import ResourceContent, ResourceResult
from fastmcp.server.middleware import Middleware, MiddlewareContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from github_mcp.catalog import prompts, resources, run_resource
from github_mcp.catalog.completions import Completer
from github_mcp.catalog.resources import ResourceFailure, decoded
from github_mcp.serving.framework_tools import peer_of

if TYPE_CHECKING:
    from fastmcp import FastMCP

    from github_mcp.pipeline.runtime import Runtime


class FailedRead(ResourceError):
    """A resource read's failure, carrying its envelope through the framework (which
    passes its own errors on as they are) to the middleware that gives it its code."""

    def __init__(self, envelope: dict[str, Any]) -> None:
        super().__init__(str(envelope.get("error", {}).get("message") or "read failed"))
        self.envelope = envelope


class GuidePrompt(Prompt):
    """A prompt of catalog/prompts.py, rendered by its definition."""

    definition: Any = None

    async def render(self, arguments: dict[str, Any] | None = None) -> str:
        args = {key: str(value) for key, value in (arguments or {}).items()}
        try:
            return str(self.definition.render(args))
        except prompts.PromptArgumentError as exc:
            raise MCPError(
                code=INVALID_PARAMS, message=str(exc), data={"prompt": self.name}
            ) from None


def register_guides(mcp: "FastMCP", rt: "Runtime") -> None:
    for definition in prompts.prompts(rt).values():
        arguments = [
            PromptArgument(name=a.name, description=a.description, required=a.required)
            for a in definition.arguments
        ]
        mcp.add_prompt(
            GuidePrompt(
                name=definition.name,
                description=definition.description,
                arguments=arguments,
                definition=definition,
            )
        )
    mcp.resource(
        prompts.CONTRACT_URI,
        name=prompts.CONTRACT_NAME,
        mime_type="text/markdown",
        description=prompts.CONTRACT_DESCRIPTION,
    )(lambda: prompts.contract(rt))
    if "get_file_contents" in rt.bound_specs:
        _register_blob_template(mcp, rt)
    if run_resource.RUN_TOOL in rt.bound_specs:
        _register_run_template(mcp, rt)
    mcp.add_completion_handler(Completer(rt, resources.BLOB_TEMPLATE))
    mcp.add_middleware(ProtocolErrorMiddleware())


def _register_blob_template(mcp: "FastMCP", rt: "Runtime") -> None:
    async def file_at_ref(
        owner: str,
        repo: str,
        ref: str,
        path: str,
        ctx: Context,
        max_bytes: int = 65536,
        allow_binary: bool = False,
    ) -> ResourceResult:
        """A file at a ref, read exactly as get_file_contents reads it."""
        try:
            arguments = resources.blob_call(f"{owner}/{repo}", ref, path, max_bytes, allow_binary)
            content = await resources.read_blob(rt, await peer_of(rt, ctx), arguments)
        except ResourceFailure as failed:
            raise FailedRead(failed.envelope) from None
        body = decoded(content)
        return ResourceResult(
            [ResourceContent(body, mime_type=content["mimeType"], meta=content["_meta"])]
        )

    mcp.resource(
        resources.BLOB_TEMPLATE, name=resources.BLOB_NAME, description=resources.BLOB_DESCRIPTION
    )(file_at_ref)


def _register_run_template(mcp: "FastMCP", rt: "Runtime") -> None:
    async def workflow_run(owner: str, repo: str, run_id: str, ctx: Context) -> ResourceResult:
        """A workflow run's state, read exactly as get_workflow_run_overview reads it."""
        try:
            arguments = run_resource.run_call(f"{owner}/{repo}", run_id)
            content = await run_resource.read_run(rt, await peer_of(rt, ctx), arguments)
        except ResourceFailure as failed:
            raise FailedRead(failed.envelope) from None
        return ResourceResult(
            [ResourceContent(content["text"], mime_type=content["mimeType"], meta=content["_meta"])]
        )

    mcp.resource(
        run_resource.RUN_TEMPLATE,
        name=run_resource.RUN_NAME,
        description=run_resource.RUN_DESCRIPTION,
        mime_type=run_resource.RUN_MIME,
    )(workflow_run)


class ProtocolErrorMiddleware(Middleware):
    """Gives resources/read and prompts/get failures the codes catalog/resources.py names."""

    async def on_read_resource(self, context: MiddlewareContext, call_next: Any) -> Any:
        uri = str(getattr(context.message, "uri", ""))
        try:
            return await call_next(context)
        except FailedRead as exc:
            raise _rpc(resources.read_error(exc.envelope, uri, _modern(context))) from None
        except NotFoundError:
            envelope = {"error": {"code": "not_found", "message": f"no resource at {uri}"}}
            raise _rpc(resources.read_error(envelope, uri, _modern(context))) from None

    async def on_get_prompt(self, context: MiddlewareContext, call_next: Any) -> Any:
        name = getattr(context.message, "name", "")
        given = getattr(context.message, "arguments", None) or {}
        server = getattr(context.fastmcp_context, "fastmcp", None)
        found = await server.get_prompt(name) if server is not None else None
        if isinstance(found, GuidePrompt):
            missing = found.definition.missing(given)
            if missing:
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=f"Missing required argument(s) for prompt {name!r}: "
                    + ", ".join(missing),
                    data={"prompt": name, "missing": missing},
                )
        return await call_next(context)


def _rpc(failure: resources.RpcFailure) -> MCPError:
    return MCPError(code=failure.code, message=failure.message, data=failure.data)


def _modern(context: MiddlewareContext) -> bool:
    ctx = context.fastmcp_context
    request = getattr(ctx, "request_context", None) if ctx is not None else None
    return getattr(request, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS
