"""Who last changed each line of a file: GitHub's blame, compact."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from github_mcp.kernel.params import FullName, Ref, RepoPath
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services.repos import blame as service
from github_mcp.tools.repos.repos import MESSAGE_TRUST, MessageTrust

TOOLSET = "blame"
Line = Annotated[int, Field(ge=1, le=1_000_000)]


class Blame(service.Blame):
    message_trust: MessageTrust = MESSAGE_TRUST


@tool(toolset=TOOLSET, ref_arg="ref", lazy_default_ref=True)
async def get_file_blame(
    call: Call,
    full_name: FullName,
    path: RepoPath,
    ref: Ref | None = None,
    start_line: Line = 1,
    end_line: Line | None = None,
) -> Blame:
    """Which commit last changed each line range of a file (optionally a line window)."""
    found = await service.blame(call.rt.github, full_name, path, ref, (start_line, end_line))
    return Blame(**found.model_dump())
