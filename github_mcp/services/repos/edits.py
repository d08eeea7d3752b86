"""Edits as verified commits: a unified diff, a file's whole text, line sections, and files
committed then proposed in a pull request.

Each edit reads what it changes at the branch head it then commits on (through the commit
engine in `commits`), so an edit never lands on content it did not see.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, invalid_input
from github_mcp.kernel.params import MAX_COMMIT_FILES, validate_path
from github_mcp.services.pulls import PullRequestRef as PullRequestRef  # the writes tools' face
from github_mcp.services.pulls import compact_pr as compact_pr
from github_mcp.services.pulls import find_open_pr, open_pull_request
from github_mcp.services.shared import files
from github_mcp.services.shared.commit_checks import read_head, require_head
from github_mcp.services.shared.commit_types import NO_CHANGE, Change, CommitOutcome, Head
from github_mcp.services.shared.commits import commit_changes, read_head_and_rules, rules_ahead
from github_mcp.services.shared.github_json import PullRequest
from github_mcp.services.shared.patches import (
    apply_file_patch,
    normalize_patch,
    parse_patch,
    unified_diff,
)

SHRINK_GUARD_BYTES = 2048


@dataclass
class Edit:
    """A verified commit, and the diff it made when one was asked for."""

    outcome: CommitOutcome
    diff: str | None = None


async def current_text(github: GitHubClient, full_name: str, path: str, head: Head) -> str | None:
    """The file's text at the head commit, or None when it does not exist."""
    try:
        read = await files.read_file(
            github, full_name, path, head.commit_sha, max_bytes=files.MAX_READ_BYTES
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


async def commit_text(
    github: GitHubClient,
    full_name: str,
    branch: str,
    path: str,
    text: str,
    message: str,
    *,
    expected_sha: str | None = None,
    allow_large_shrink: bool = False,
    with_diff: bool = False,
    expected_head_sha: str | None = None,
) -> Edit:
    """Replace one file's whole text; a cut to under half of a sizeable file is refused
    unless `allow_large_shrink` (a model that sends a fragment would otherwise truncate).
    `expected_head_sha`: the head the edit must be made on (an approval's)."""
    head, rulesets = await read_head_and_rules(github, full_name, branch)
    old = await current_text(github, full_name, path, head)
    old_size = len(old.encode()) if old is not None else 0
    new_size = len(text.encode())
    if old_size > SHRINK_GUARD_BYTES and new_size < old_size / 2 and not allow_large_shrink:
        raise invalid_input(
            f"This would shrink {path} from {old_size} to {new_size} bytes.",
            hint="If the cut is intended, pass allow_large_shrink=true; otherwise send the "
            "whole file or use apply_patch_and_commit.",
            old_bytes=old_size,
            new_bytes=new_size,
        )
    diff = unified_diff(old or "", text, path) if with_diff else None
    change = Change(path, text, expected_sha=expected_sha)
    outcome = await commit_changes(
        github, full_name, branch, message, [change], head=head,
        expected_head_sha=expected_head_sha, rulesets=rulesets,
    )  # fmt: skip
    return Edit(outcome, diff)


async def commit_patch(
    github: GitHubClient,
    full_name: str,
    branch: str,
    patch: str,
    message: str,
    *,
    expected_head_sha: str | None = None,
) -> CommitOutcome:
    """Apply a unified diff (one or more files) exactly, as one commit."""
    file_patches = parse_patch(normalize_patch(patch))
    if len(file_patches) > MAX_COMMIT_FILES:
        raise invalid_input(
            f"A patch may touch at most {MAX_COMMIT_FILES} files.",
            hint=(
                "Split the patch into several commits, or use the workspace tools for "
                "large changes."
            ),
        )
    head, rulesets = await read_head_and_rules(github, full_name, branch)
    require_head(branch, head, expected_head_sha, "Re-read the files and rebuild the patch.")

    async def text_at(path: str | None) -> str | None:
        return await current_text(github, full_name, path, head) if path is not None else None

    # A creation reads its target too, so it cannot silently overwrite an existing file.
    originals = await asyncio.gather(
        *(text_at(fp.old_path or fp.new_path or "") for fp in file_patches)
    )
    rename_targets = await asyncio.gather(
        *(text_at(fp.new_path if fp.is_rename and fp.new_path else None) for fp in file_patches)
    )
    changes: list[Change] = []
    for fp, original, target_text in zip(file_patches, originals, rename_targets, strict=True):
        if fp.old_path and original is None:
            raise GitHubMCPError(
                ErrorCode.PATCH_DOES_NOT_APPLY,
                f"{fp.old_path} does not exist on {branch}.",
                path=fp.old_path,
                hint=(
                    "Check the path with list_repository_tree on this branch, then "
                    "regenerate the patch."
                ),
            )
        if target_text is not None:
            raise GitHubMCPError(
                ErrorCode.PATCH_DOES_NOT_APPLY,
                f"{fp.new_path} already exists on {branch}; the patch renames "
                f"{fp.old_path} onto it.",
                path=fp.new_path,
                hint=("Rename onto a free path, or delete the existing file in the same patch."),
            )
        result = apply_file_patch(original, fp)
        target = fp.new_path or fp.old_path
        assert target is not None
        if fp.old_path and fp.new_path and fp.old_path != fp.new_path:
            changes.append(Change(validate_path(fp.old_path), None))
        changes.append(Change(validate_path(target), result))
    return await commit_changes(github, full_name, branch, message, changes,
                                head=head, rulesets=rulesets)  # fmt: skip


class LineRange(Protocol):
    """Lines start_line..end_line (1-based, inclusive; end = start - 1 inserts) become
    new_text."""

    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def new_text(self) -> str: ...


def apply_sections(text: str, sections: Sequence[LineRange]) -> str:
    """Replace sorted, non-overlapping line ranges, keeping the file's line endings."""
    lines = text.splitlines(keepends=True)
    previous_end = 0
    for s in sections:
        if s.end_line < s.start_line - 1:
            raise invalid_input(
                f"Section {s.start_line}-{s.end_line} has end before start.",
                hint=(
                    "Give end_line at least start_line - 1 (start_line - 1 inserts without "
                    "replacing)."
                ),
            )
        if s.start_line <= previous_end:
            raise invalid_input(
                "Sections must be sorted and must not overlap.",
                hint="Sort the sections by start_line and merge the ones that overlap.",
            )
        if s.end_line > len(lines) or s.start_line > len(lines) + 1:
            raise invalid_input(
                f"Section {s.start_line}-{s.end_line} is beyond the file's {len(lines)} lines.",
                hint=(
                    "Read the file again with get_file_contents and give line numbers within it."
                ),
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


async def commit_sections(
    github: GitHubClient,
    full_name: str,
    branch: str,
    path: str,
    sections: Sequence[LineRange],
    message: str,
    *,
    expected_sha: str | None = None,
    with_diff: bool = False,
    expected_head_sha: str | None = None,
) -> Edit:
    """Replace line ranges of one existing file, as one commit. With `expected_head_sha`
    (the head a human approved the edit at) line numbers mean what they meant then."""
    head, rulesets = await read_head_and_rules(github, full_name, branch)
    require_head(
        branch,
        head,
        expected_head_sha,
        "Re-read the file and call again; a fresh approval is needed.",
        why=" (the approved head): line numbers may now name other lines",
    )
    old = await current_text(github, full_name, path, head)
    if old is None:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"{path} does not exist on {branch}.",
            hint=(
                "Check the path with list_repository_tree, or create the file with commit_files."
            ),
        )
    new = apply_sections(old, sections)
    diff = unified_diff(old, new, path) if with_diff else None
    change = Change(path, new, expected_sha=expected_sha)
    outcome = await commit_changes(
        github, full_name, branch, message, [change], head=head, rulesets=rulesets
    )
    return Edit(outcome, diff)


@dataclass
class Proposal:
    """Files committed to a branch, and the pull request that proposes them (None, with a
    note saying why, when there was nothing to propose)."""

    outcome: CommitOutcome
    pull: PullRequest | None = None
    already_existed: bool = False
    note: str | None = None


async def commit_and_open_pr(
    github: GitHubClient,
    full_name: str,
    branch: str,
    base: str,
    changes: list[Change],
    message: str,
    *,
    title: str,
    body: str = "",
    draft: bool = False,
    expected_head_sha: str | None = None,
) -> Proposal:
    """Commit to `branch` (created from `base` when it does not exist) and open a PR into
    `base` once the commit verified; on `expected_head_sha` when given (an approval's)."""
    # The open-PR pre-check and the branch's rules go out with the head reads: every read
    # the commit needs before its first write is one round trip.
    head_or_error, base_head, open_pr, rulesets = await asyncio.gather(
        read_head(github, full_name, branch),
        read_head(github, full_name, base),
        find_open_pr(github, full_name, branch, base),
        rules_ahead(github, full_name, branch),
        return_exceptions=True,
    )
    if isinstance(base_head, BaseException):
        raise base_head
    if isinstance(head_or_error, GitHubMCPError) and head_or_error.code == ErrorCode.NOT_FOUND:
        head = Head(branch, base_head.commit_sha, base_head.tree_sha, exists=False)
    elif isinstance(head_or_error, BaseException):
        raise head_or_error
    else:
        head = head_or_error
    outcome = await commit_changes(
        github, full_name, branch, message, changes, head=head,
        expected_head_sha=expected_head_sha if head.exists else None, rulesets=rulesets,
    )  # fmt: skip
    if not outcome.verification.verified:
        return Proposal(outcome, note="Commit did not verify; no PR was opened.")
    if outcome.status == NO_CHANGE and outcome.commit_sha == base_head.commit_sha:
        return Proposal(
            outcome, note=f"{branch} already matches {base}; there is nothing to propose."
        )
    try:
        pull, existed = await open_pull_request(
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
        raise _pr_not_opened(exc, outcome, base) from None
    return Proposal(outcome, pull, existed)


def _pr_not_opened(exc: GitHubMCPError, outcome: CommitOutcome, base: str) -> GitHubMCPError:
    """The PR failed after the commit landed: say exactly what exists, so that a retry
    (which finds the content already there and only opens the PR) is the obvious move."""
    unchanged = outcome.status == NO_CHANGE
    done = (
        f"{outcome.branch} already held these changes at {outcome.commit_sha[:12]}"
        if unchanged
        else f"Committed {outcome.commit_sha[:12]} to {outcome.branch}"
    )
    return GitHubMCPError(
        exc.code,
        f"{done}, but the pull request into {base} was not opened: {exc.message}",
        hint="Retry with the same arguments: the commit is not repeated and the pull "
        "request is opened on it (or call create_pull_request).",
        retryable=exc.retryable,
        branch=outcome.branch,
        commit_sha=outcome.commit_sha,
        committed=not unchanged,
        created_branch=bool(outcome.created_branch),
        pr_error=exc.code.value,
    )
