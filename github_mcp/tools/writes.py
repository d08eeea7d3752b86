"""Write tools: branches and verified commits. Every one is gated by its target."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.services.patches import apply_file_patch, normalize_patch, parse_patch, unified_diff
from github_mcp.services.pulls import compact_pr, find_open_pr, open_pull_request

from ..errors import ErrorCode, GitHubMCPError, invalid_input
from ..params import (
    MAX_COMMIT_FILES,
    Body,
    Branch,
    CommitMessage,
    FileContent,
    FullName,
    Ref,
    RepoPath,
    Title,
    validate_path,
)
from ..registry import Call, tool
from ..services import branches, files
from ..services.commits import (
    NO_CHANGE,
    Change,
    CommitOutcome,
    Head,
    commit_changes,
    read_head,
)

TOOLSET = "writes"
SHRINK_GUARD_BYTES = 2048
Sha = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$", description="A full 40-hex SHA.")]


class BranchCreated(BaseModel):
    branch: str
    sha: str
    created: bool


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="from_ref", idempotent=True)
async def create_branch(
    call: Call, full_name: FullName, branch: Branch, from_ref: Ref | None = None
) -> BranchCreated:
    """Create a branch from a ref (default: the default branch); idempotent if it exists there."""
    assert from_ref is not None  # the registry applied the effective ref
    result = await branches.create_branch(call.rt.github, full_name, branch, from_ref)
    return BranchCreated(**result)


class Verification(BaseModel):
    verified: bool
    commit_sha: str
    branch_sha: str | None = None
    files_checked: int


class WrittenFile(BaseModel):
    path: str
    status: str
    sha: str | None = None
    ok: bool


class CommitResult(BaseModel):
    status: Literal["committed", "no_change"] = Field(
        "committed",
        description="no_change: the branch already held this content; nothing was written "
        "and commit_sha is the branch head.",
    )
    commit_sha: str
    branch: str
    parent_sha: str
    files: list[WrittenFile]
    verification: Verification
    rebased_onto: list[str] | None = None
    created_branch: bool | None = None
    diff: str | None = None
    diff_truncated: bool | None = None


async def after_write(call: Call, full_name: str, branch: str) -> None:
    """Every write drops the repo's cached reads and refreshes a clean clone."""
    call.rt.invalidate_repo(full_name)
    workspace = call.rt.started_workspaces
    if workspace is not None:
        try:
            await workspace.refresh_after_api_commit(full_name, branch)
        except GitHubMCPError:
            pass


async def _commit(
    call: Call,
    full_name: str,
    branch: str,
    message: str,
    changes: list[Change],
    *,
    expected_head_sha: str | None = None,
    head: Head | None = None,
    diff: str | None = None,
) -> CommitResult:
    outcome: CommitOutcome = await commit_changes(
        call.rt.github,
        full_name,
        branch,
        message,
        changes,
        expected_head_sha=expected_head_sha,
        head=head,
    )
    await after_write(call, full_name, branch)
    diff_text, diff_cut = (None, None)
    if diff is not None:
        diff_text = diff[:20_000]
        diff_cut = len(diff) > 20_000 or None
    return CommitResult(
        status="no_change" if outcome.status == NO_CHANGE else "committed",
        commit_sha=outcome.commit_sha,
        branch=branch,
        parent_sha=outcome.parent_sha,
        files=[WrittenFile(**f) for f in outcome.files],
        verification=Verification(**outcome.verification),
        rebased_onto=outcome.rebased_onto or None,
        created_branch=outcome.created_branch or None,
        diff=diff_text,
        diff_truncated=diff_cut,
    )


async def _current_text(call: Call, full_name: str, path: str, head: Head) -> str | None:
    """The file's text at the head commit, or None when it does not exist."""
    try:
        read = await files.read_file(
            call.rt.github, full_name, path, head.commit_sha, max_bytes=files.MAX_READ_BYTES
        )
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:
            return None
        raise
    if read.truncated:
        raise GitHubMCPError(
            ErrorCode.UNPROCESSABLE,
            f"{path} is larger than 1 MiB; edit it in the workspace.",
            hint="Use ensure_workspace_clone + terminal_command + commit_workspace.",
        )
    return read.content


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="branch")
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
    head = await read_head(call.rt.github, full_name, branch)
    old = await _current_text(call, full_name, path, head)
    old_size = len(old.encode()) if old is not None else 0
    new_size = len(new_content.encode())
    if old_size > SHRINK_GUARD_BYTES and new_size < old_size / 2 and not allow_large_shrink:
        raise invalid_input(
            f"This would shrink {path} from {old_size} to {new_size} bytes.",
            hint="If the cut is intended, pass allow_large_shrink=true; otherwise send the "
            "whole file or use apply_patch_and_commit.",
            old_bytes=old_size,
            new_bytes=new_size,
        )
    diff = unified_diff(old or "", new_content, path) if return_diff else None
    return await _commit(
        call,
        full_name,
        branch,
        message,
        [Change(path, new_content, expected_sha=expected_sha)],
        head=head,
        diff=diff,
    )


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="branch")
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
    file_patches = parse_patch(normalize_patch(patch))
    if len(file_patches) > MAX_COMMIT_FILES:
        raise invalid_input(f"A patch may touch at most {MAX_COMMIT_FILES} files.")
    head = await read_head(call.rt.github, full_name, branch)
    if expected_head_sha and head.commit_sha != expected_head_sha:
        raise GitHubMCPError(
            ErrorCode.CONFLICT,
            f"{branch} moved to {head.commit_sha[:12]}.",
            hint="Re-read the files and rebuild the patch.",
        )
    # A creation reads its target too, so it cannot silently overwrite an existing file.
    originals = await asyncio.gather(
        *(
            _current_text(call, full_name, fp.old_path or fp.new_path or "", head)
            for fp in file_patches
        )
    )
    rename_targets = await asyncio.gather(
        *(
            _current_text(call, full_name, fp.new_path, head)
            if fp.is_rename and fp.new_path
            else _none()
            for fp in file_patches
        )
    )
    changes: list[Change] = []
    for fp, original, target_text in zip(file_patches, originals, rename_targets, strict=True):
        if fp.old_path and original is None:
            raise GitHubMCPError(
                ErrorCode.PATCH_DOES_NOT_APPLY,
                f"{fp.old_path} does not exist on {branch}.",
                path=fp.old_path,
            )
        if target_text is not None:
            raise GitHubMCPError(
                ErrorCode.PATCH_DOES_NOT_APPLY,
                f"{fp.new_path} already exists on {branch}; the patch renames "
                f"{fp.old_path} onto it.",
                path=fp.new_path,
            )
        result = apply_file_patch(original, fp)
        target = fp.new_path or fp.old_path
        assert target is not None
        if fp.old_path and fp.new_path and fp.old_path != fp.new_path:
            changes.append(Change(validate_path(fp.old_path), None))
        changes.append(Change(validate_path(target), result))
    return await _commit(call, full_name, branch, message, changes, head=head)


async def _none() -> None:
    return None


class Section(BaseModel):
    start_line: Annotated[int, Field(ge=1)]
    end_line: Annotated[int, Field(ge=0, description="Inclusive; start_line - 1 inserts.")]
    new_text: FileContent


def apply_sections(text: str, sections: list[Section]) -> str:
    lines = text.splitlines(keepends=True)
    previous_end = 0
    for s in sections:
        if s.end_line < s.start_line - 1:
            raise invalid_input(f"Section {s.start_line}-{s.end_line} has end before start.")
        if s.start_line <= previous_end:
            raise invalid_input("Sections must be sorted and must not overlap.")
        if s.end_line > len(lines) or s.start_line > len(lines) + 1:
            raise invalid_input(
                f"Section {s.start_line}-{s.end_line} is beyond the file's {len(lines)} lines."
            )
        previous_end = max(s.end_line, s.start_line - 1)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    out: list[str] = []
    cursor = 0
    for s in sections:
        out.extend(lines[cursor : s.start_line - 1])
        replacement = s.new_text
        replaced_had_newline = (
            s.end_line == 0
            or s.end_line < len(lines)
            or (lines and lines[-1].endswith(("\n", "\r")))
        )
        if replacement and not replacement.endswith("\n") and replaced_had_newline:
            replacement += newline
        out.append(replacement)
        cursor = max(s.end_line, s.start_line - 1)
    out.extend(lines[cursor:])
    return "".join(out)


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="branch")
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
    head = await read_head(call.rt.github, full_name, branch)
    old = await _current_text(call, full_name, path, head)
    if old is None:
        raise GitHubMCPError(ErrorCode.NOT_FOUND, f"{path} does not exist on {branch}.")
    new = apply_sections(old, sections)
    diff = unified_diff(old, new, path) if return_diff else None
    return await _commit(
        call,
        full_name,
        branch,
        message,
        [Change(path, new, expected_sha=expected_sha)],
        head=head,
        diff=diff,
    )


class FileSpec(BaseModel):
    path: RepoPath
    content: FileContent | None = None
    delete: bool = False
    expected_sha: Sha | None = None


def _changes(specs: list[FileSpec]) -> list[Change]:
    changes = []
    for spec in specs:
        if spec.delete == (spec.content is not None):
            raise invalid_input(f"{spec.path}: give content, or delete=true, not both.")
        changes.append(
            Change(spec.path, None if spec.delete else spec.content, expected_sha=spec.expected_sha)
        )
    return changes


FileList = Annotated[list[FileSpec], Field(min_length=1, max_length=MAX_COMMIT_FILES)]


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="branch")
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
    return await _commit(
        call, full_name, branch, message, _changes(files), expected_head_sha=expected_head_sha
    )


class PullRequestRef(BaseModel):
    number: int
    title: str
    state: str
    draft: bool
    head: str
    head_sha: str
    base: str
    author: str | None = None
    url: str
    already_existed: bool = False


class CommitAndPr(BaseModel):
    commit: CommitResult
    pull_request: PullRequestRef | None = None
    note: str | None = None


@tool(toolset=TOOLSET, write=True, target="branch", ref_arg="base")
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
    github = call.rt.github
    # The open-PR pre-check goes out with the head reads: one round trip fewer.
    head_or_error, base_head, open_pr = await asyncio.gather(
        read_head(github, full_name, branch),
        read_head(github, full_name, base),
        find_open_pr(github, full_name, branch, base),
        return_exceptions=True,
    )
    if isinstance(base_head, BaseException):
        raise base_head
    if isinstance(head_or_error, GitHubMCPError) and head_or_error.code == ErrorCode.NOT_FOUND:
        head = Head(
            branch=branch,
            commit_sha=base_head.commit_sha,
            tree_sha=base_head.tree_sha,
            exists=False,
        )
    elif isinstance(head_or_error, BaseException):
        raise head_or_error
    else:
        head = head_or_error
    commit = await _commit(call, full_name, branch, message, _changes(files), head=head)
    if not commit.verification.verified:
        return CommitAndPr(commit=commit, note="Commit did not verify; no PR was opened.")
    if commit.status == "no_change" and commit.commit_sha == base_head.commit_sha:
        return CommitAndPr(
            commit=commit, note=f"{branch} already matches {base}; there is nothing to propose."
        )
    try:
        pr, existed = await open_pull_request(
            github,
            full_name,
            head=branch,
            base=base,
            title=title,
            body=body,
            draft=draft,
            known_absent=open_pr is None,  # found or failed: check again, for fresh PR data
        )
    except GitHubMCPError as exc:
        raise _pr_not_opened(exc, commit, base) from None
    return CommitAndPr(
        commit=commit, pull_request=PullRequestRef(**compact_pr(pr), already_existed=existed)
    )


def _pr_not_opened(exc: GitHubMCPError, commit: CommitResult, base: str) -> GitHubMCPError:
    """The PR failed after the commit landed: say exactly what exists, so that a retry
    (which finds the content already there and only opens the PR) is the obvious move."""
    done = (
        f"{commit.branch} already held these changes at {commit.commit_sha[:12]}"
        if commit.status == "no_change"
        else f"Committed {commit.commit_sha[:12]} to {commit.branch}"
    )
    return GitHubMCPError(
        exc.code,
        f"{done}, but the pull request into {base} was not opened: {exc.message}",
        hint="Retry with the same arguments: the commit is not repeated and the pull "
        "request is opened on it (or call create_pull_request).",
        retryable=exc.retryable,
        branch=commit.branch,
        commit_sha=commit.commit_sha,
        committed=commit.status == "committed",
        created_branch=bool(commit.created_branch),
        pr_error=exc.code.value,
    )


def pr_ref_model(pr: dict[str, Any], existed: bool = False) -> PullRequestRef:
    return PullRequestRef(**compact_pr(pr), already_existed=existed)


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
    here do: the entry point for tools declared elsewhere (extra_tools.py)."""
    return await _commit(call, full_name, branch, message, changes, head=head)
