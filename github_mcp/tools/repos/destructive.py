"""Less common or destructive tools: delete or move a file, delete a remote branch.

They live in the package, so an installed server has them; operators add their own tools
in `extra_tools.py` (see there).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.params import Branch, CommitMessage, FullName, RepoPath
from github_mcp.pipeline.earlier_calls import earlier_call
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services.shared.approved_state import RemoteState, branch_state
from github_mcp.services.shared.branches import branch_head, delete_branch
from github_mcp.services.shared.commit_checks import read_head
from github_mcp.services.shared.commit_types import Change, CommitResult, Verification
from github_mcp.tools.repos.writes import branch_at, verified_commit


@tool(
    toolset="writes", write=True, target="branch", ref_arg="branch", destructive=True,
    binds=branch_at,
)  # fmt: skip
async def delete_file(
    call: Call,
    full_name: FullName,
    path: RepoPath,
    message: CommitMessage,
    branch: Branch | None = None,
) -> CommitResult:
    """Delete one file in a verified commit."""
    assert branch is not None
    return await verified_commit(call, full_name, branch, message, [Change(path, None)])


@tool(
    toolset="writes", write=True, target="branch", ref_arg="branch", destructive=True,
    binds=branch_at,
)  # fmt: skip
async def move_file(
    call: Call,
    full_name: FullName,
    path: RepoPath,
    new_path: RepoPath,
    message: CommitMessage,
    branch: Branch | None = None,
) -> CommitResult:
    """Move or rename a file in one verified commit (content unchanged)."""
    assert branch is not None
    if path == new_path:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "path and new_path are the same.",
            hint="Give a new_path that differs from path.",
        )
    from github_mcp.services.shared.files import MAX_READ_BYTES, read_file

    head = await read_head(call.rt.github, full_name, branch)
    read = await read_file(
        call.rt.github,
        full_name,
        path,
        head.commit_sha,
        max_bytes=MAX_READ_BYTES,
        allow_binary=True,
    )
    if read.truncated:
        raise GitHubMCPError(
            ErrorCode.UNPROCESSABLE,
            f"{path} is over 1 MiB; move it in the workspace instead.",
            hint=("Clone with ensure_workspace_clone, git mv there, then commit_workspace."),
        )
    import base64

    data = base64.b64decode(read.content) if read.encoding == "base64" else read.content
    return await verified_commit(
        call, full_name, branch, message, [Change(path, None), Change(new_path, data)], head=head
    )


async def branch_to_delete(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """What a gated deletion is approved for: the branch's head, and its commits that the
    default branch lacks (what would be lost)."""
    full_name = kwargs["full_name"]
    default = await call.rt.gate.default_branch(full_name)
    return await branch_state(call.rt.github, full_name, kwargs["branch"], since=default)


class DeletedBranch(CommitResult):
    already_deleted: bool = Field(
        False, description="Your earlier call deleted it; this call deleted nothing."
    )
    earlier_call_id: str | None = None


@tool(toolset="writes", write=True, target="branch", destructive=True, binds=branch_to_delete)
async def delete_remote_branch(call: Call, full_name: FullName, branch: Branch) -> DeletedBranch:
    """Delete a branch on GitHub (never the default or a protected branch without approval)."""
    approved = call.bound.get("head_sha") if call.bound is not None else None
    try:
        sha = await delete_branch(call.rt.github, full_name, branch, expected_sha=approved)
    except GitHubMCPError as exc:
        if exc.code != ErrorCode.NOT_FOUND:
            raise
        return await _already_deleted(call, full_name, branch, exc)
    # Verified means read back: the branch is gone. If something re-created it meanwhile,
    # the answer says so (branch_sha) rather than failing a delete that happened.
    remaining = await branch_head(call.rt.github, full_name, branch)
    return DeletedBranch(
        commit_sha=sha,
        branch=branch,
        parent_sha=sha,
        files=[],
        verification=Verification(
            verified=remaining is None, commit_sha=sha, branch_sha=remaining, files_checked=0
        ),
    )


async def _already_deleted(
    call: Call, full_name: str, branch: str, missing: GitHubMCPError
) -> DeletedBranch:
    """A retry of a delete that happened: the branch is gone, and this principal's earlier
    call (by the audit record) deleted it. Gone for any other reason: not_found."""
    entry = await earlier_call(
        call.rt, call.principal, "delete_remote_branch", full_name, ref=branch
    )
    if entry is None:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"There is no branch {branch}; no earlier call of yours that this server "
            "recorded deleted it.",
            hint="list_branches shows the branches there are.",
        ) from missing
    sha = str(entry.get("commit_sha", ""))
    return DeletedBranch(
        commit_sha=sha,
        branch=branch,
        parent_sha=sha,
        files=[],
        verification=Verification(verified=True, commit_sha=sha, branch_sha=None, files_checked=0),
        already_deleted=True,
        earlier_call_id=str(entry.get("call_id")),
    )
