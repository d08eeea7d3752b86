"""Meta tools about the tools: the list of tools, a tool's schemas, and checking arguments
against them without a call."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.pipeline.registry import Call, tool
from github_mcp.pipeline.tool_index import ToolEntry

TOOLSET = "meta"


class ActionInfo(BaseModel):
    name: str
    toolset: str
    write: bool
    description: str | None = None
    target: str | None = None
    destructive: bool | None = None
    parameters: dict[str, Any] | None = None


class ActionList(BaseModel):
    total: int
    tools: list[ActionInfo]


def _info(call: Call, name: str, *, params: bool, compact: bool) -> ActionInfo:
    entry = call.rt.bound_specs.entries[name]  # from the tool index: no tool imported
    return ActionInfo(
        name=entry.name,
        toolset=entry.toolset,
        write=entry.write,
        description=None if compact else entry.description,
        target=entry.target,
        destructive=entry.destructive or None,
        parameters=call.rt.bound_specs.listed_input(name) if params else None,
    )


@tool(toolset=TOOLSET, repo_arg=None)
async def list_all_actions(
    call: Call, include_parameters: bool = False, compact: bool = True
) -> ActionList:
    """List every registered tool with its toolset and read/write tag."""
    names = sorted(call.rt.bound_specs)
    tools = [_info(call, n, params=include_parameters, compact=compact) for n in names]
    return ActionList(total=len(tools), tools=tools)


@tool(toolset=TOOLSET, repo_arg=None)
async def list_write_tools(call: Call) -> ActionList:
    """List the write-capable tools and what each writes to."""
    names = sorted(n for n, e in call.rt.bound_specs.entries.items() if e.write)
    tools = [_info(call, n, params=False, compact=False) for n in names]
    return ActionList(total=len(tools), tools=tools)


class ToolDescription(BaseModel):
    name: str
    toolset: str
    write: bool
    description: str
    target: str | None = None
    annotations: dict[str, Any]
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None


ToolName = Annotated[str, Field(min_length=1, max_length=100)]


def _entry(call: Call, name: str) -> ToolEntry:
    entry = call.rt.bound_specs.entries.get(name)
    if entry is None:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"No tool named {name!r}.",
            hint="list_all_actions lists the tools.",
        )
    return entry


@tool(toolset=TOOLSET, repo_arg=None)
async def describe_tool(call: Call, name: ToolName) -> ToolDescription:
    """The full input and output schema of one tool, with its write target."""
    entry = _entry(call, name)
    return ToolDescription(
        name=entry.name,
        toolset=entry.toolset,
        write=entry.write,
        description=entry.description,
        target=entry.target,
        annotations=entry.annotations,
        input_schema=entry.input_schema,  # every rule, not the listing's lighter form
        output_schema=entry.output_schema,
    )


class ArgsValidation(BaseModel):
    valid: bool
    errors: list[str] = []


@tool(toolset=TOOLSET, repo_arg=None)
async def validate_tool_args(call: Call, name: ToolName, args: dict[str, Any]) -> ArgsValidation:
    """Validate arguments against a tool's real input schema without calling it."""
    import jsonschema  # lazy: keeps server start-up fast

    schema = _entry(call, name).input_schema
    validator = jsonschema.Draft202012Validator(schema)
    errors = [
        f"{'/'.join(str(p) for p in err.absolute_path) or '<root>'}: {err.message}"[:300]
        for err in sorted(validator.iter_errors(args), key=lambda e: list(e.absolute_path))[:20]
    ]
    return ArgsValidation(valid=not errors, errors=errors)
