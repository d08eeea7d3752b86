"""Gists: list yours, read one, create one (secret unless asked), update one.

A gist belongs to no repository, so the allow-list does not name it; creating or changing
one is an unscoped write that needs a human's approval: a secret gist is unlisted, not
private, and anyone with its link can read it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from github_mcp.kernel.effects import Target
from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import Cursor, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import gists as service
from github_mcp.services.gists import Gist, GistPage
from github_mcp.tools._bindings import gist_files, still_as_approved

TOOLSET = "gists"
GistId = Annotated[str, Field(pattern=r"^[0-9a-fA-F]{1,64}$", description="Gist id.")]
FileName = Annotated[str, Field(min_length=1, max_length=255, pattern=r"^[^/\\]+$")]
FileText = Annotated[str, Field(min_length=1, max_length=1_000_000)]
Description = Annotated[str, Field(max_length=1000)]


# Where a gist write publishes, for the cross-visibility guard: public, or secret
# (unlisted; the guard does not count that as publishing).
async def _new_gist(call: Call, kwargs: dict[str, Any]) -> Target:
    return Target(None, visibility="public" if kwargs.get("public") else "secret")


async def _existing_gist(call: Call, kwargs: dict[str, Any]) -> Target:
    gist = await service.get_gist(call.rt.github, kwargs["gist_id"])
    return Target(None, visibility="public" if gist.public else "secret")


@tool(toolset=TOOLSET, repo_arg=None)
async def list_gists(call: Call, limit: Limit = 30, cursor: Cursor | None = None) -> GistPage:
    """Your gists, most recently updated first."""
    return await service.list_gists(call.rt.github, limit=limit, cursor=cursor)


@tool(toolset=TOOLSET, repo_arg=None)
async def get_gist(call: Call, gist_id: GistId) -> Gist:
    """One gist with its files' content (each capped)."""
    return await service.get_gist(call.rt.github, gist_id)


@tool(
    toolset=TOOLSET,
    write=True,
    target=_new_gist,
    repo_arg=None,
    binds=ArgumentsOnly("a new gist holds exactly the files and description given"),
)
async def create_gist(
    call: Call,
    files: Annotated[dict[FileName, FileText], Field(min_length=1, max_length=20)],
    description: Description | None = None,
    public: bool = False,
) -> Gist:
    """Create a gist from {filename: text}; secret (unlisted) unless public=true."""
    return await service.create_gist(call.rt.github, files, description, public)


@tool(toolset=TOOLSET, write=True, target=_existing_gist, repo_arg=None, binds=gist_files)
async def update_gist(
    call: Call,
    gist_id: GistId,
    files: Annotated[dict[FileName, FileText | None], Field(max_length=20)] | None = None,
    description: Description | None = None,
) -> Gist:
    """Change a gist's files ({filename: text}; null deletes a file) or description."""
    if not files and description is None:
        raise invalid_input("nothing to change", hint="Give files or description.")
    await still_as_approved(call, gist_files, {"gist_id": gist_id})  # no precondition in PATCH
    return await service.update_gist(call.rt.github, gist_id, files, description)
