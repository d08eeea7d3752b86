"""Create, fork and delete repositories: the `repo_admin` toolset, off the default list.

All three are unscoped writes and need a human's approval. The repository created, the
fork's destination and the repository deleted must be on the allow-list; this is checked
before the human is asked. A new repository is private unless asked otherwise. Deleting
is off unless the operator sets GITHUB_MCP_ALLOW_REPO_DELETE=true; each deletion is
approved on its own (no approval window covers it), bound to the repository as the human
saw it (its id and default branch head).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

from github_mcp.kernel.effects import Target
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.params import FullName
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services.repos import repo_admin as service
from github_mcp.services.repos.repo_admin import DeletedRepository, Fork, NewRepository
from github_mcp.services.shared.approved_state import RemoteState
from github_mcp.services.shared.repo_facts import get_repo

TOOLSET = "repo_admin"


def _check_name(value: str) -> str:
    if value in (".", "..") or value.lower().endswith(".git"):
        raise ValueError("name must not be '.', '..' or end in '.git'")
    return value


RepoName = Annotated[
    str,
    AfterValidator(_check_name),
    Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$", description="new name"),
]
Owner = Annotated[
    str,
    Field(
        min_length=1,
        max_length=39,
        pattern=r"^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$",
        description="organisation login; omit for your own account",
    ),
]
Description = Annotated[str, Field(max_length=350)]


async def _owner(call: Call, given: str | None) -> tuple[str, bool]:
    """(the account the repository goes under, whether it is the caller's own)."""
    if given is None:
        return await service.my_login(call.rt.github), True
    try:
        me = await service.my_login(call.rt.github)
    except GitHubMCPError:
        me = ""  # an App: every owner is an organisation
    return given, me.lower() == given.lower()


async def _new_repository(call: Call, kwargs: dict[str, Any]) -> Target:
    """Unscoped, published with its own visibility; refused off the allow-list."""
    owner, _ = await _owner(call, kwargs.get("owner"))
    call.rt.gate.check_repo_allowed(f"{owner}/{kwargs['name']}")
    return Target(None, visibility="private" if kwargs.get("private", True) else "public")


@tool(
    toolset=TOOLSET,
    write=True,
    target=_new_repository,
    repo_arg=None,
    binds=ArgumentsOnly(
        "a new repository takes the name, description and visibility given (private unless "
        "private=false)"
    ),
)
async def create_repository(
    call: Call,
    name: RepoName,
    owner: Owner | None = None,
    description: Description | None = None,
    private: bool = True,
    auto_init: bool = False,
) -> NewRepository:
    """Create a repository, private unless private=false (auto_init: with a README commit)."""
    login, personal = await _owner(call, owner)
    fields: dict[str, Any] = {"name": name, "private": private, "auto_init": auto_init}
    if description:
        fields["description"] = description
    call.repo = f"{login}/{name}"  # the audit names what was created
    return await service.create(call.rt.github, login, personal, fields)


async def _fork_destination(call: Call, kwargs: dict[str, Any]) -> Target:
    """The fork's name must be on the allow-list and free (or already this fork); the
    fork is published with the source's visibility."""
    source = await get_repo(call.rt.github, kwargs["full_name"])
    owner, _ = await _owner(call, kwargs.get("organization"))
    destination = f"{owner}/{kwargs.get('name') or source['name']}"
    call.rt.gate.check_repo_allowed(destination)
    there = await service.existing(call.rt.github, destination)
    upstream = there.get("parent") if there is not None else None
    parent = upstream["full_name"] if upstream else ""
    if there is not None and parent.lower() != str(source["full_name"]).lower():
        raise GitHubMCPError(
            ErrorCode.CONFLICT,
            f"{destination} already exists and is not a fork of {source['full_name']}; "
            "GitHub would fork under another name.",
            hint="Pass name= with a free name on the allow-list.",
        )
    return Target(None, visibility="private" if source.get("private") else "public")


@tool(
    toolset=TOOLSET,
    write=True,
    target=_fork_destination,
    idempotent=True,
    binds=ArgumentsOnly(
        "the fork copies the source with the source's visibility, to a destination checked before"
        " anyone is asked"
    ),
)
async def fork_repository(
    call: Call,
    full_name: FullName,
    organization: Owner | None = None,
    name: RepoName | None = None,
    default_branch_only: bool = True,
) -> Fork:
    """Fork a repository to your account or an organisation (default branch only unless
    default_branch_only=false); forking again answers the existing fork."""
    owner, personal = await _owner(call, organization)
    fields: dict[str, Any] = {"default_branch_only": default_branch_only}
    if not personal:
        fields["organization"] = owner
    if name:
        fields["name"] = name
    before = await service.existing(call.rt.github, f"{owner}/{name or full_name.split('/')[1]}")
    made = await service.fork(call.rt.github, full_name, fields)
    if not call.rt.gate.repo_allowed(made.full_name):
        raise GitHubMCPError(
            ErrorCode.REPO_NOT_ALLOWED,
            f"GitHub made the fork as {made.full_name}, which is not on the allow-list; "
            "nothing more is done with it.",
            hint="Ask the human to delete or rename it on GitHub.",
        )
    return made.model_copy(update={"already_existed": before is not None})


async def _deletable(call: Call, kwargs: dict[str, Any]) -> Target:
    if not call.rt.settings.allow_repo_delete:
        raise GitHubMCPError(
            ErrorCode.WRITE_NOT_ALLOWED,
            "Deleting repositories is turned off on this server; nothing was asked or sent.",
            hint="Only an operator can allow it (GITHUB_MCP_ALLOW_REPO_DELETE=true); "
            "archiving or deleting it on GitHub itself is the human's call.",
            reason="repo_delete_disabled",
        )
    return Target(None)


async def _repository_to_delete(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """The repository's id, visibility, default branch head and last push: a push or a
    re-created repository of the same name after the approval deletes nothing."""
    return await service.repo_state(call.rt.github, kwargs["full_name"])


@tool(
    toolset=TOOLSET,
    write=True,
    target=_deletable,
    destructive=True,
    binds=_repository_to_delete,
    approve_each=True,
)
async def delete_repository(call: Call, full_name: FullName) -> DeletedRepository:
    """Delete a repository for good (off unless the operator allows it; always approved
    by a human, for the repository as it was shown to them)."""
    return await service.delete(call.rt.github, full_name, call.bound)
