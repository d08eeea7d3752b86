"""The selected tools as the MCP server sees them, each built the first time it is needed.

Building a tool means generating its argument model and its input and output schemas with
pydantic: about 5 ms a tool, most of a start for 130 tools. A session lists only its view
(tool_catalog.py) and most calls use a handful of tools, so `SpecTools` builds a tool when
it is listed, called or described, and keeps it; a start pays only for what it shows.
Every selected tool stays callable by name, listed or not.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from fastmcp import Context
from fastmcp.server.providers import Provider
from fastmcp.tools import FunctionTool, Tool, ToolResult
from mcp.types import InputRequiredResult, TextContent

from github_mcp.monitoring import tracing
from github_mcp.pipeline.answer import ToolAnswer
from github_mcp.pipeline.registry import run_tool, selected_specs
from github_mcp.pipeline.schema_listing import listed_schema, validation_schema

if TYPE_CHECKING:
    from fastmcp import FastMCP

    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.tool_spec import ToolSpec

# Set around a tools/list by the catalog: the names this listing will show. Unset (a
# lookup from anywhere else), every selected tool is built.
_LISTING: ContextVar[Callable[[str], bool] | None] = ContextVar("tool_listing", default=None)


@contextmanager
def listing_only(shows: Callable[[str], bool]) -> Iterator[None]:
    """Within this block, a tools/list builds only the tools `shows` accepts."""
    token = _LISTING.set(shows)
    try:
        yield
    finally:
        _LISTING.reset(token)


class _Built(dict[str, Any]):
    """A table of `Runtime` (listed schemas, validation schemas) that builds a tool on the
    first look-up of its name."""

    def __init__(self, tools: SpecTools) -> None:
        super().__init__()
        self._tools = tools

    def __missing__(self, name: str) -> Any:
        if name not in self._tools.specs:
            raise KeyError(name)
        self._tools.build(name)
        return self[name]


class SpecTools(Provider):
    """The selected specs, as FastMCP tools built on demand (see the module docstring)."""

    def __init__(self, rt: Runtime, specs: Sequence[ToolSpec]) -> None:
        super().__init__()
        self.rt = rt
        self.specs = {spec.name: spec for spec in specs}
        self._tools: dict[str, Tool] = {}
        self.schemas = _Built(self)
        self.validation = _Built(self)

    def build(self, name: str) -> Tool:
        built = self._tools.get(name)
        if built is None:
            built, validation = _fastmcp_tool(self.specs[name], self.rt)
            output = built.output_schema
            if not self.rt.settings.output_schemas:
                # no client shows them to a model; describe_tool still gives them
                built.output_schema = None
            dict.__setitem__(self.schemas, name, (built.parameters, output))
            dict.__setitem__(self.validation, name, validation)
            self._tools[name] = built
        return built

    async def _list_tools(self) -> Sequence[Tool]:
        shows = _LISTING.get()
        return [self.build(name) for name in self.specs if shows is None or shows(name)]

    async def _get_tool(self, name: str, version: Any = None) -> Tool | None:
        return self.build(name) if name in self.specs else None

    async def get_tasks(self) -> Sequence[Any]:
        return []  # no tool here runs as a background task: nothing to build at start


def bind_tools(mcp: FastMCP, rt: Runtime) -> list[ToolSpec]:
    """Serve the selected tools on `mcp`, built on demand; returns the selected specs."""
    tracing.match_library_spans()
    specs = selected_specs(rt)
    tools = SpecTools(rt, specs)
    mcp.add_provider(tools)
    rt.bound_specs = dict(tools.specs)
    rt.tool_schemas = tools.schemas
    rt.validation_schemas = tools.validation
    return specs


def _fastmcp_tool(spec: ToolSpec, rt: Runtime) -> tuple[Tool, dict[str, Any]]:
    """The listed tool (compact schemas), and its whole input schema, long patterns
    included, for `validate_tool_args` to agree with the call."""
    template, validation = _parsed_tool(spec)

    async def entry(ctx: Context, **kwargs: Any) -> ToolResult | InputRequiredResult:
        answer = await run_tool(spec, rt, kwargs, ctx)
        return tool_result(answer) if isinstance(answer, ToolAnswer) else answer

    _describe(entry, spec, inspect.signature(template.fn))
    return template.model_copy(update={"fn": entry}), validation


def tool_result(answer: ToolAnswer) -> ToolResult:
    """The pipeline's answer as the MCP library's tool result."""
    return ToolResult(
        content=[TextContent(type="text", text=answer.text)],
        structured_content=answer.structured,
        is_error=answer.is_error,
        meta=answer.meta,
    )


# The schemas depend only on the spec: they are generated once per process, so a process
# that builds many servers (the test suite builds one per test) pays for each tool once.
# Each runtime gets a copy bound to its own entry point; the schemas themselves are shared
# (nothing changes them in place: a runtime that drops output schemas replaces the field).
_PARSED: dict[str, tuple[ToolSpec, _CompactTool, dict[str, Any]]] = {}


def _parsed_tool(spec: ToolSpec) -> tuple[_CompactTool, dict[str, Any]]:
    cached = _PARSED.get(spec.name)
    if cached is not None and cached[0] is spec:
        return cached[1], cached[2]
    params, output_model = spec.signature()

    async def unbound(ctx: Context, **kwargs: Any) -> None:
        raise RuntimeError("a parsed tool's template is never called")

    ctx_param = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    _describe(
        unbound, spec, inspect.Signature([ctx_param, *params], return_annotation=output_model)
    )
    tags = {spec.toolset, "write" if spec.write else "read"}
    template = _CompactTool.from_function(
        unbound,
        name=spec.name,
        description=spec.description,
        annotations=spec.annotations,
        tags=tags,
    )
    assert isinstance(template, _CompactTool)
    validation = validation_schema(template.parameters)
    template.parameters = listed_schema(template.parameters)
    if template.output_schema is not None:
        template.output_schema = listed_schema(template.output_schema)
    _PARSED[spec.name] = (spec, template, validation)
    return template, validation


def _describe(fn: Any, spec: ToolSpec, signature: inspect.Signature) -> None:
    """What the library reads from a tool function: its signature, hints, name and doc."""
    fn.__signature__ = signature
    fn.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()} | {
        "return": signature.return_annotation
    }
    fn.__name__ = spec.name
    fn.__doc__ = spec.description


class _CompactTool(FunctionTool):
    """Listed without the title derived from the name (the name says it) and without the
    library's `_meta` (its tags): no MCP client uses either. Only `_meta.ui` (and ChatGPT's
    `openai/*` status lines) stay, which apps/wiring.py sets for a client that shows cards."""

    def to_mcp_tool(self, **overrides: Any) -> Any:
        listed = super().to_mcp_tool(**overrides)
        meta = self.meta or {}
        kept = {k: v for k, v in meta.items() if k == "ui" or k.startswith("openai/")}
        return listed.model_copy(update={"title": None, "meta": kept or None})
