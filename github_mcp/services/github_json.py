"""GitHub's JSON as the services read it: TypedDicts of the fields actually used.

The client returns parsed JSON untyped; a service names the shape at the one place an answer
enters (`data: GitRef = await github.request_json(...)`), so every read below it is checked.
Only the fields something reads are declared; GitHub sends many more.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict


class GitObject(TypedDict):
    type: str
    sha: str


class GitRef(TypedDict):
    """GET /repos/{owner}/{repo}/git/ref/{ref}; also the object of an annotated tag."""

    object: GitObject


class GitTree(TypedDict):
    sha: str


class RepoPermissions(TypedDict, total=False):
    admin: bool
    maintain: bool
    push: bool
    triage: bool
    pull: bool


class RepoParent(TypedDict):
    full_name: str


class Repository(TypedDict):
    """GET /repos/{owner}/{repo}."""

    id: int
    name: str
    full_name: str
    default_branch: str
    private: bool
    html_url: str
    visibility: NotRequired[str]
    description: NotRequired[str | None]
    archived: NotRequired[bool]
    fork: NotRequired[bool]
    pushed_at: NotRequired[str | None]
    permissions: NotRequired[RepoPermissions]
    parent: NotRequired[RepoParent]
