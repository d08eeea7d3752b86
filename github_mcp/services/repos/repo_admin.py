"""Creating, forking and deleting repositories over the REST API, as compact records.

A created or forked repository must be on the allow-list (the tools check the name before
anything is sent); a deletion is bound to the repository as the human approved it (its id
and its default branch's head) and re-checked just before the DELETE."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.shared.account import identity
from github_mcp.services.shared.approved_state import RemoteState
from github_mcp.services.shared.branches import branch_head
from github_mcp.services.shared.github_json import Repository
from github_mcp.services.shared.repo_facts import repo_path


class NewRepository(BaseModel):
    full_name: str
    private: bool
    default_branch: str
    url: str
    clone_url: str | None = None


class Fork(NewRepository):
    parent: str = Field(description="The repository forked.")
    already_existed: bool = Field(
        False, description="You had forked it before; GitHub answered that fork."
    )


class DeletedRepository(BaseModel):
    full_name: str
    deleted: bool = True
    verified: bool = Field(description="Read back: GitHub no longer has it.")


async def my_login(github: GitHubClient) -> str:
    """The login a personal repository or fork goes under; an App has none."""
    me = await identity(github)
    if me["type"] == "App":
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "A GitHub App installation has no personal account to create repositories in.",
            hint="Name the organisation (owner= or organization=).",
        )
    return me["login"]


async def create(
    github: GitHubClient, owner: str, personal: bool, fields: dict[str, Any]
) -> NewRepository:
    path = "/user/repos" if personal else f"/orgs/{encode_path(owner)}/repos"
    data = await github.request_json("POST", path, json_body=fields)
    return _new(data)


async def fork(github: GitHubClient, source: str, fields: dict[str, Any]) -> Fork:
    data = await github.request_json("POST", f"{repo_path(source)}/forks", json_body=fields)
    parent = (data.get("parent") or {}).get("full_name") or source
    return Fork(**_new(data).model_dump(), parent=parent)


async def existing(github: GitHubClient, full_name: str) -> Repository | None:
    """The repository as GitHub has it now (uncached), or None when there is none."""
    try:
        data: Repository = await github.request_json("GET", repo_path(full_name))
        return data
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:
            return None
        raise


async def repo_state(github: GitHubClient, full_name: str) -> RemoteState:
    """What a deletion is approved for: this repository (by id), its default branch's
    head, its visibility and when it was last pushed to."""
    data = await existing(github, full_name)
    if data is None:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"There is no repository {full_name}.",
            hint=(
                "Check the owner/repo spelling; the repository must be visible to this "
                "server's token."
            ),
        )
    if (data.get("permissions") or {}).get("admin") is False:
        raise GitHubMCPError(
            ErrorCode.FORBIDDEN,
            f"Deleting {full_name} needs admin rights on it, which you do not have; "
            "no approval was asked for.",
            hint=(
                "Ask an admin of the repository to delete it, or to give this account admin rights."
            ),
        )
    head = await branch_head(github, full_name, data["default_branch"])
    facts = (
        ("repository_id", str(data["id"])),
        ("visibility", "private" if data.get("private") else "public"),
        ("default_branch", f"{data['default_branch']} at {head or 'no commit'}"),
        ("pushed_at", str(data.get("pushed_at") or "never")),
    )
    return RemoteState(facts)


async def delete(
    github: GitHubClient, full_name: str, approved: RemoteState | None
) -> DeletedRepository:
    """DELETE the repository, after checking it is still the one approved."""
    if approved is not None:
        now = await repo_state(github, full_name)
        changed = [k for k, v in now.facts if approved.get(k) != v]
        if changed:
            raise GitHubMCPError(
                ErrorCode.CONFLICT,
                f"{full_name} changed since the deletion was approved ({', '.join(changed)}); "
                "nothing was deleted.",
                hint="Look at it again; deleting it now asks the human afresh.",
            )
    await github.request_json("DELETE", repo_path(full_name))
    return DeletedRepository(
        full_name=full_name, verified=await existing(github, full_name) is None
    )


def _new(data: dict[str, Any]) -> NewRepository:
    return NewRepository(
        full_name=data["full_name"],
        private=bool(data.get("private")),
        default_branch=data.get("default_branch") or "main",
        url=data["html_url"],
        clone_url=data.get("clone_url"),
    )
