"""Tools found on demand: search the registered tools, and list a toolset for this session
(listed when some registered tool is not; see catalog/tool_catalog.py)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from github_mcp.catalog import tool_catalog
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
    enabled: list[str] = []  # toolsets this call listed for the session
    hint: str | None = None


@tool(toolset=TOOLSET, repo_arg=None)
async def find_tools(
    call: Call,
    query: Annotated[str, Field(max_length=200)] = "",
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
    enable: bool = True,
) -> FoundTools:
    """Find tools by words (e.g. 'merge conflicts'); lists the best matches' toolsets too."""
    found, enabled = await tool_catalog.find_and_enable(
        call.rt, query, limit, call.peer, enable_found=enable
    )
    return FoundTools(
        tools=[FoundTool(**f) for f in found],
        enabled=enabled,
        hint=_hint(found, enabled, call.peer.keeps_session),
    )


def _hint(found: list[dict[str, Any]], enabled: list[str], session: bool) -> str | None:
    hidden = sorted({f["toolset"] for f in found if not f["listed"]})
    said = [f"Listed for this session now: {', '.join(enabled)}."] if enabled else []
    if hidden and session:
        said.append(f"enable_toolset lists these: {', '.join(hidden)}.")
    elif hidden:
        said.append("This connection keeps no session: call these tools by name.")
    return " ".join(said) or None


class EnabledToolset(BaseModel):
    toolset: str
    tools: list[str]
    list_changed: bool


@tool(toolset=TOOLSET, repo_arg=None, idempotent=True)
async def enable_toolset(
    call: Call, name: Annotated[str, Field(max_length=40, pattern=r"^[a-z_]+$")]
) -> EnabledToolset:
    """List a toolset's tools in this session (find_tools names the toolset of each tool)."""
    tools, changed = await tool_catalog.enable(call.rt, call.peer, name)
    return EnabledToolset(toolset=name, tools=tools, list_changed=changed)
