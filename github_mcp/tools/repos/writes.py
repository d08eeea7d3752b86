"""Write tools: branches and verified commits. Every one is gated by its target."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from github_mcp.kernel.effects import Written
from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import (
    MAX_COMMIT_FILES,
    Body,
    Branch,
    CommitMessage,
    FileContent,
    FullName,
    Ref,
    RepoPath,
    Title,
)
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services.repos import edits
from github_mcp.services.repos.edits import PullRequestRef, compact_pr
from github_mcp.services.shared import branches
from github_mcp.services.shared.commit_types import (
    Change,
    CommitResult,
    Head,
)
from github_mcp.services.shared.commits import commit_changes
from github_mcp.tools._bindings import bound_head, from_ref_commit

# re-exported: operators' tools (destructive.py, the worked example) bind through it
from github_mcp.tools._bindings import branch_at as branch_at

TOOLSET = "writes"
Sha = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]


class BranchCreated(BaseModel):
    branch: str
    sha: str
    created: bool

    def written(self, repo: str) -> Written:
        return Written(repo, self.branch, self.sha)


@tool(
    toolset=TOOLSET, write=True, target="branch", ref_arg="from_ref", idempotent=True,
    binds=from_ref_commit,
)  # fmt: skip
async def create_branch(
    call: Call, full_name: FullName, branch: Branch, from_ref: Ref | None = None
) -> BranchCreated:
    """Create a branch from a ref (default: the default branch); idempotent if it exists there."""
    assert from_ref is not None  # the registry applied the effective ref
    start = call.bound.get("from_sha") if call.bound is not None else None
    if start == "absent":
        start = None  # no such ref: GitHub's answer says so
    result = await branches.create_branch(call.rt.github, full_name, branch, start or from_ref)
    return BranchCreated(**result)


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="branch", binds=branch_at)
async def apply_text_update_and_commit(
    call: Call,
    full_name: FullName,
    path: RepoPath,
    new_content: FileContent,
    message: CommitMessage,
    branch: Branch | None = None,
    expected_sha: Sha | None = None,
    allow_large_shrink: bool = False,
    return_diff: bool = False,
) -> CommitResult:
    """Create or replace one file's full text in a verified commit (prefer patches for edits)."""
    assert branch is not None
    edit = await edits.commit_text(
        call.rt.github, full_name, branch, path, new_content, message,
        expected_sha=expected_sha, allow_large_shrink=allow_large_shrink, with_diff=return_diff,
        expected_head_sha=bound_head(call, None),
    )  # fmt: skip
    return edit.outcome.result(edit.diff)


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="branch", binds=branch_at)
async def apply_patch_and_commit(
    call: Call,
    full_name: FullName,
    patch: Annotated[str, Field(min_length=1, max_length=2 * 1024 * 1024)],
    message: CommitMessage,
    branch: Branch | None = None,
    expected_head_sha: Sha | None = None,
) -> CommitResult:
    """Apply a unified diff (one or more files) exactly, as one verified commit."""
    assert branch is not None
    outcome = await edits.commit_patch(
        call.rt.github, full_name, branch, patch, message,
        expected_head_sha=bound_head(call, expected_head_sha),
    )  # fmt: skip
    return outcome.result()


class Section(BaseModel):
    start_line: Annotated[int, Field(ge=1)]
    end_line: Annotated[int, Field(ge=0, description="Inclusive; start_line - 1 inserts.")]
    new_text: FileContent


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="branch", binds=branch_at)
async def update_file_sections_and_commit(
    call: Call,
    full_name: FullName,
    path: RepoPath,
    sections: Annotated[list[Section], Field(min_length=1, max_length=200)],
    message: CommitMessage,
    branch: Branch | None = None,
    expected_sha: Sha | None = None,
    return_diff: bool = False,
) -> CommitResult:
    """Replace sorted, non-overlapping line ranges of one file in a verified commit."""
    assert branch is not None
    edit = await edits.commit_sections(
        call.rt.github, full_name, branch, path, sections, message,
        expected_sha=expected_sha, with_diff=return_diff,
        expected_head_sha=bound_head(call, None),
    )  # fmt: skip
    return edit.outcome.result(edit.diff)


class FileSpec(BaseModel):
    path: RepoPath
    content: FileContent | None = None
    delete: bool = False
    expected_sha: Sha | None = None


def _changes(specs: list[FileSpec]) -> list[Change]:
    changes = []
    for spec in specs:
        if spec.delete == (spec.content is not None):
            raise invalid_input(
                f"{spec.path}: give content, or delete=true, not both.",
                hint="For each file give content, or delete=true, but not both.",
            )
        changes.append(
            Change(spec.path, None if spec.delete else spec.content, expected_sha=spec.expected_sha)
        )
    return changes


FileList = Annotated[list[FileSpec], Field(min_length=1, max_length=MAX_COMMIT_FILES)]


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="branch", binds=branch_at)
async def commit_files(
    call: Call,
    full_name: FullName,
    files: FileList,
    message: CommitMessage,
    branch: Branch | None = None,
    expected_head_sha: Sha | None = None,
) -> CommitResult:
    """Create, update or delete up to 100 files in one atomic, verified commit."""
    assert branch is not None
    outcome = await commit_changes(
        call.rt.github, full_name, branch, message, _changes(files),
        expected_head_sha=bound_head(call, expected_head_sha),
    )  # fmt: skip
    return outcome.result()


class CommitAndPr(BaseModel):
    commit: CommitResult
    pull_request: PullRequestRef | None = None
    note: str | None = None

    def written(self, repo: str) -> Written:
        return self.commit.written(repo)


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="base", binds=branch_at)
async def update_files_and_open_pr(
    call: Call,
    full_name: FullName,
    branch: Branch,
    files: FileList,
    title: Title,
    message: CommitMessage,
    body: Body = "",
    base: Ref | None = None,
    draft: bool = False,
) -> CommitAndPr:
    """Commit files to a branch (created from base if needed) and open a PR if it verified."""
    assert base is not None
    proposal = await edits.commit_and_open_pr(
        call.rt.github, full_name, branch, base, _changes(files), message,
        title=title, body=body, draft=draft, expected_head_sha=bound_head(call, None),
    )  # fmt: skip
    pull = proposal.pull
    return CommitAndPr(
        commit=proposal.outcome.result(),
        pull_request=None if pull is None else compact_pr(pull, proposal.already_existed),
        note=proposal.note,
    )


async def verified_commit(
    call: Call,
    full_name: str,
    branch: str,
    message: str,
    changes: list[Change],
    *,
    head: Head | None = None,
) -> CommitResult:
    """Commit `changes` to `branch` through the verified commit engine, as the write tools
    here do: the entry point for tools declared elsewhere (extra_tools.py). The pipeline
    then drops the repository's cached reads and refreshes a clean clone of the branch.
    A call bound to the branch's head (binds=branch_at, gated) commits on that head only."""
    outcome = await commit_changes(
        call.rt.github, full_name, branch, message, changes, head=head,
        expected_head_sha=bound_head(call, None),
    )  # fmt: skip
    return outcome.result()
