"""GitHub Code Quality findings: read-only, in the code_security toolset, inside the
repository allow-list."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services import code_quality as service
from github_mcp.services.code_quality import QualityFinding, QualityPage

TOOLSET = "code_security"


@tool(toolset=TOOLSET)
async def list_code_quality_findings(
    call: Call, full_name: FullName, limit: Limit = 30, cursor: Cursor | None = None
) -> QualityPage:
    """A repository's Code Quality findings, newest first."""
    return await service.list_findings(call.rt.github, full_name, limit=limit, cursor=cursor)


@tool(toolset=TOOLSET)
async def get_code_quality_finding(
    call: Call, full_name: FullName, number: Annotated[int, Field(ge=1)]
) -> QualityFinding:
    """One Code Quality finding: its rule, location and message."""
    return await service.get_finding(call.rt.github, full_name, number)
