"""Tools found on demand: search the registered tools, and list a toolset for this session
(listed when some registered tool is not; see tool_catalog.py)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from github_mcp.pipeline.registry import Call, tool

TOOLSET = "meta"


class FoundTool(BaseModel):
    name: str
    toolset: str
    description: str
    write: bool
    listed: bool


class FoundTools(BaseModel):
    tools: list[FoundTool]
    hint: str | None = None


def _session(call: Call) -> Any:
    try:
        return call.ctx.session if call.ctx is not None else None
    except (RuntimeError, AttributeError):
        return None


@tool(toolset=TOOLSET, repo_arg=None, needs_server=True)
async def find_tools(
    call: Call,
    query: Annotated[str, Field(max_length=200)] = "",
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
) -> FoundTools:
    """Find tools by words (e.g. 'merge conflicts'); for unlisted ones, enable_toolset."""
    from github_mcp.catalog import tool_catalog  # the listing side loads the MCP framework

    found = tool_catalog.find(call.rt, query, limit, _session(call))
    hidden = sorted({f["toolset"] for f in found if not f["listed"]})
    hint = f"enable_toolset lists these: {', '.join(hidden)}." if hidden else None
    return FoundTools(tools=[FoundTool(**f) for f in found], hint=hint)


class EnabledToolset(BaseModel):
    toolset: str
    tools: list[str]
    list_changed: bool


@tool(toolset=TOOLSET, repo_arg=None, idempotent=True, needs_server=True)
async def enable_toolset(
    call: Call, name: Annotated[str, Field(max_length=40, pattern=r"^[a-z_]+$")]
) -> EnabledToolset:
    """List a toolset's tools in this session (find_tools names the toolset of each tool)."""
    from github_mcp.catalog import tool_catalog

    tools, changed = await tool_catalog.enable(call.rt, _session(call), name)
    return EnabledToolset(toolset=name, tools=tools, list_changed=changed)
