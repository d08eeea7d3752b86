"""Labels: read a repository's labels, create, update and delete them.

Label writes change no branch: they are unscoped writes and need a human's approval
(a rename or a delete reaches every issue and pull request carrying the label).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import labels as service
from github_mcp.services.labels import Label, LabelDeleted, LabelPage

TOOLSET = "labels"
LabelName = Annotated[str, Field(min_length=1, max_length=100, description="Label name.")]
Color = Annotated[str, Field(pattern=r"^#?[0-9a-fA-F]{6}$", description="Hex colour, e.g. d73a4a.")]
Description = Annotated[str, Field(max_length=100)]


@tool(toolset=TOOLSET)
async def list_labels(
    call: Call, full_name: FullName, limit: Limit = 100, cursor: Cursor | None = None
) -> LabelPage:
    """A repository's labels with colour and description."""
    return await service.list_labels(call.rt.github, full_name, limit=limit, cursor=cursor)


@tool(toolset=TOOLSET)
async def get_label(call: Call, full_name: FullName, name: LabelName) -> Label:
    """One label by name."""
    return await service.get_label(call.rt.github, full_name, name)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    binds=ArgumentsOnly("a label is its name, colour and description, all given"),
)
async def create_label(
    call: Call,
    full_name: FullName,
    name: LabelName,
    color: Color = "ededed",
    description: Description | None = None,
) -> Label:
    """Create a label."""
    fields: dict[str, Any] = {"name": name, "color": color.lstrip("#").lower()}
    if description is not None:
        fields["description"] = description
    return await service.create_label(call.rt.github, full_name, fields)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    binds=ArgumentsOnly(
        "the label keeps what is not given and takes the name, colour and description given"
    ),
)
async def update_label(
    call: Call,
    full_name: FullName,
    name: LabelName,
    new_name: LabelName | None = None,
    color: Color | None = None,
    description: Description | None = None,
) -> Label:
    """Rename, recolour or describe a label (issues carrying it follow a rename)."""
    fields: dict[str, Any] = {"new_name": new_name, "description": description}
    fields = {k: v for k, v in fields.items() if v is not None}
    if color is not None:
        fields["color"] = color.lstrip("#").lower()
    if not fields:
        raise invalid_input("nothing to change", hint="Give new_name, color or description.")
    return await service.update_label(call.rt.github, full_name, name, fields)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    destructive=True,
    binds=ArgumentsOnly("it deletes the label of the given name, wherever it is used"),
)
async def delete_label(call: Call, full_name: FullName, name: LabelName) -> LabelDeleted:
    """Delete a label; it is removed from every issue and pull request."""
    return await service.delete_label(call.rt.github, full_name, name)
