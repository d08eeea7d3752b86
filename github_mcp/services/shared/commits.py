"""Atomic, verified commits through the Git Data API.

One commit for any set of changes: a tree on the head that was read, a commit,
then a ref update with force=false. When the head moved meanwhile, the change
is re-applied on the new head if the other commits touched different files,
and fails with `conflict` if they touched the same ones. Verification: the new
tree's blob SHAs (read while the commit is created, before the ref moves) must equal
the locally computed git hashes, and the branch SHA from the ref update's answer must
be the new commit or contain it (reading trees and those checks: `commit_checks`).

A branch whose rules require signed commits (GITHUB_MCP_SIGNED_COMMITS) gets its commit
through GraphQL createCommitOnBranch instead: `signed_commits`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, conflict
from github_mcp.services.shared import signed_commits
from github_mcp.services.shared.commit_checks import (
    RulesRead,
    blob_shas,
    changed_between,
    current_ref,
    read_head,
    require_head,
    ruleset_requires_signatures,
    unchanged_outcome,
    verify_commit,
)
from github_mcp.services.shared.commit_types import (
    MAX_REBASES,
    Change,
    CommitOutcome,
    CommitSignature,
    Head,
)
from github_mcp.services.shared.github_json import GitTree
from github_mcp.services.shared.repo_facts import repo_path


class _NewEntry(TypedDict):
    """An entry of POST /repos/{owner}/{repo}/git/trees: `sha` None deletes the path."""

    path: str
    mode: str
    type: str
    sha: NotRequired[str | None]
    content: NotRequired[str]


async def _tree_entries(
    github: GitHubClient, full_name: str, changes: list[Change]
) -> list[_NewEntry]:
    base = repo_path(full_name)

    async def entry(change: Change) -> _NewEntry:
        item = _NewEntry(path=change.path, mode=change.mode, type="blob")
        data = change.data
        if data is None:
            item["sha"] = None
            return item
        try:
            item["content"] = data.decode("utf-8")
        except UnicodeDecodeError:
            blob = await github.request_json(
                "POST",
                f"{base}/git/blobs",
                idempotent=True,
                json_body={"content": base64.b64encode(data).decode(), "encoding": "base64"},
            )
            item["sha"] = blob["sha"]
        return item

    return list(await asyncio.gather(*(entry(c) for c in changes)))


async def _build_tree(
    github: GitHubClient, full_name: str, head: Head, entries: list[_NewEntry]
) -> str:
    # Trees are content-addressed: creating one twice yields the same object, so a
    # 5xx or a dropped connection is retried like a read.
    tree: GitTree = await github.request_json(
        "POST",
        f"{repo_path(full_name)}/git/trees",
        idempotent=True,
        json_body={"base_tree": head.tree_sha, "tree": entries},
    )
    return tree["sha"]


async def _build_commit(
    github: GitHubClient,
    full_name: str,
    head: Head,
    message: str,
    tree_sha: str,
    paths: set[str],
) -> tuple[str, dict[str, str], CommitSignature]:
    """Create the commit of `tree_sha` on the head; returns (commit_sha, blob shas of
    `paths` in the tree, GitHub's verdict on its signature). The blob check runs
    alongside the commit creation, so verification costs no round trip of its own."""
    commit, blobs = await asyncio.gather(
        # A repeated creation at worst leaves an unreferenced commit object behind:
        # only the ref update publishes one, so this is safe to retry too.
        github.request_json(
            "POST",
            f"{repo_path(full_name)}/git/commits",
            idempotent=True,
            json_body={"message": message, "tree": tree_sha, "parents": [head.commit_sha]},
        ),
        blob_shas(github, full_name, tree_sha, paths),
    )
    return commit["sha"], blobs, CommitSignature.of(commit.get("verification") or {}, "git_data")


def _ref_sha(answer: Any) -> str | None:
    sha = answer.get("object", {}).get("sha") if isinstance(answer, dict) else None
    return sha if isinstance(sha, str) else None


async def _move_ref(
    github: GitHubClient, full_name: str, head: Head, new_sha: str
) -> tuple[str, str | None]:
    """Point the branch at new_sha without force. Returns ('ok', the sha GitHub says the
    branch now points at, if it said) or ('moved', None)."""
    base = repo_path(full_name)
    ref_path = f"{base}/git/refs/heads/{encode_path(head.branch)}"
    try:
        if head.exists:
            # Idempotent: repeating a fast-forward to the same commit is a no-op.
            answer = await github.request_json(
                "PATCH", ref_path, idempotent=True, json_body={"sha": new_sha, "force": False}
            )
        else:
            answer = await github.request_json(
                "POST",
                f"{base}/git/refs",
                idempotent=False,
                json_body={"ref": f"refs/heads/{head.branch}", "sha": new_sha},
            )
        return "ok", _ref_sha(answer)
    except GitHubMCPError as exc:
        current = await current_ref(github, full_name, head.branch)
        if current == new_sha:
            return "ok", current  # the update landed; only the answer was lost
        if exc.code in (ErrorCode.UNPROCESSABLE, ErrorCode.CONFLICT) and current == (
            head.commit_sha if head.exists else None
        ):
            raise  # not a race: the branch never moved, GitHub refused the update itself
        if exc.code in (ErrorCode.UNPROCESSABLE, ErrorCode.CONFLICT) or (
            current is not None and current != head.commit_sha
        ):
            return "moved", None
        raise


async def commit_changes(
    github: GitHubClient,
    full_name: str,
    branch: str,
    message: str,
    changes: list[Change],
    *,
    expected_head_sha: str | None = None,
    head: Head | None = None,
    rulesets: RulesRead | None = None,
) -> CommitOutcome:
    """Make one atomic commit of `changes` on `branch` and verify it. `head` and
    `rulesets` (the branch's rules on signatures) when the caller read them already."""
    paths = _distinct_paths(changes)
    if head is None:
        head, rulesets = await read_head_and_rules(github, full_name, branch)
    await _check_preconditions(github, full_name, branch, head, changes, expected_head_sha)
    plan = await signed_commits.plan_commit(github, full_name, head, changes, rulesets)
    if plan.signed:
        return await signed_commits.commit_signed(
            github, full_name, head, message, changes, expected_head_sha=expected_head_sha
        )
    entries = await _tree_entries(github, full_name, changes)
    first_parent = head.commit_sha
    rebased: list[str] = []
    landed = await _land(github, full_name, branch, head, message, entries, paths, changes, rebased)
    if isinstance(landed, CommitOutcome):
        return landed  # the branch already held this content
    verification, files = await verify_commit(
        github, full_name, branch, landed.commit_sha, landed.branch_sha, landed.blobs, changes
    )
    return CommitOutcome(
        commit_sha=landed.commit_sha,
        branch=branch,
        parent_sha=first_parent,
        rebased_onto=rebased,
        verification=verification,
        files=files,
        created_branch=not landed.head.exists,
        signature=landed.signed,
    )


async def rules_ahead(github: GitHubClient, full_name: str, branch: str) -> RulesRead | None:
    """Whether the branch's rulesets require signatures, read ahead of the commit (it needs
    only the name); None when commits do not ask (GITHUB_MCP_SIGNED_COMMITS=never)."""
    if not signed_commits.reads_rules(github):
        return None
    return await ruleset_requires_signatures(github, full_name, branch)


async def read_head_and_rules(
    github: GitHubClient, full_name: str, branch: str
) -> tuple[Head, RulesRead | None]:
    """The branch's head and its rules on signatures, in one round trip."""
    head, rulesets = await asyncio.gather(
        read_head(github, full_name, branch),
        rules_ahead(github, full_name, branch),
        return_exceptions=True,
    )
    if isinstance(head, BaseException):
        raise head
    return head, rulesets


@dataclass
class _Landed:
    """A commit the branch now carries, and the head it was finally built on."""

    head: Head
    commit_sha: str
    branch_sha: str | None
    blobs: dict[str, str]
    signed: CommitSignature


async def _land(
    github: GitHubClient,
    full_name: str,
    branch: str,
    head: Head,
    message: str,
    entries: list[_NewEntry],
    paths: list[str],
    changes: list[Change],
    rebased: list[str],
) -> _Landed | CommitOutcome:
    """Build the commit on the head and move the branch to it; when the branch moved
    meanwhile, re-apply on its new head (bounded), noting each new head in `rebased`."""
    first_parent = head.commit_sha
    # Replicas: one writer per branch at a time, so re-applications are rare.
    async with _branch_lock(github, full_name, branch) as fence:
        for attempt in range(MAX_REBASES + 1):
            if attempt:
                # Spread re-applications out so writers racing on one branch interleave.
                await asyncio.sleep(random.uniform(0, 0.03 * attempt))
            tree_sha = await _build_tree(github, full_name, head, entries)
            if head.exists and tree_sha == head.tree_sha:
                # The branch already holds exactly this content (often: a retry of a write
                # whose answer was lost). An empty commit would only duplicate history.
                return await unchanged_outcome(
                    github, full_name, head, first_parent, rebased, changes
                )
            commit_sha, blobs, signed = await _build_commit(
                github, full_name, head, message, tree_sha, set(paths)
            )
            await fence.check()  # our lease still holds: no other replica moves the branch now
            moved, branch_sha = await _move_ref(github, full_name, head, commit_sha)
            if moved == "ok":
                return _Landed(head, commit_sha, branch_sha, blobs, signed)
            moved_to, landed_at = await _after_refused_move(
                github, full_name, branch, head, commit_sha, paths
            )
            if landed_at is not None:
                return _Landed(head, commit_sha, landed_at, blobs, signed)
            head = moved_to
            rebased.append(moved_to.commit_sha)
        raise conflict(
            f"{branch} kept moving; gave up after {MAX_REBASES} re-applications.",
            hint="The branch is busy; wait for other pushes to finish and call again.",
        )


def _distinct_paths(changes: list[Change]) -> list[str]:
    if not changes:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "There are no changes to commit.",
            hint="Give at least one file change (content, or delete=true).",
        )
    paths = [c.path for c in changes]
    if len(set(paths)) != len(paths):
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "A path appears twice in one commit.",
            hint="List each path once; merge the edits to one file into one change.",
        )
    return paths


async def _check_preconditions(
    github: GitHubClient,
    full_name: str,
    branch: str,
    head: Head,
    changes: list[Change],
    expected_head_sha: str | None,
) -> None:
    """The branch head, each file's expected blob and each deleted path are as the caller says."""
    redo = "Re-read the branch and redo the change on its current head."
    require_head(branch, head, expected_head_sha, redo)
    expected = {c.path: c.expected_sha for c in changes if c.expected_sha}
    if expected:
        current = await blob_shas(github, full_name, head.tree_sha, set(expected))
        stale = {p: current.get(p) for p, sha in expected.items() if current.get(p) != sha}
        if stale:
            raise conflict(
                "A file changed since it was read (expected_sha mismatch).",
                hint="Re-read the file and redo the change.",
                current_shas=stale,
            )
    deleted = {c.path for c in changes if c.content is None}
    if deleted:
        # Deleting a path that is not there would make an empty commit that "verifies".
        missing = sorted(deleted - set(await blob_shas(github, full_name, head.tree_sha, deleted)))
        if missing:
            raise GitHubMCPError(
                ErrorCode.NOT_FOUND,
                f"Cannot delete {', '.join(missing[:5])}: not on {branch}.",
                hint="list_repository_tree shows the files on the branch.",
                files=missing,
            )


async def _after_refused_move(
    github: GitHubClient, full_name: str, branch: str, head: Head, commit_sha: str, paths: list[str]
) -> tuple[Head, str | None]:
    """After the branch refused our update: its new head, and that head when our commit is
    on it already (else None: re-apply on the new head). Overlapping changes conflict."""
    moved_to = await read_head(github, full_name, branch)
    touched, landed = await changed_between(
        github, full_name, head.commit_sha, moved_to.commit_sha, commit_sha
    )
    if landed:
        # Our update landed but its answer was lost, and another writer has built on
        # it since: the repeated update was refused, yet the commit is on the branch.
        return moved_to, moved_to.commit_sha
    overlap = sorted(touched & set(paths))
    if overlap:
        raise conflict(
            f"{branch} moved to {moved_to.commit_sha[:12]} with changes to the same files.",
            hint="Re-read those files on the new head and redo the change.",
            files=overlap,
            head_sha=moved_to.commit_sha,
        )
    return moved_to, None


@contextlib.asynccontextmanager
async def _branch_lock(github: GitHubClient, full_name: str, branch: str) -> AsyncIterator[Any]:
    """The per-(repository, branch) lock: shared when replicas share state, else in-process."""
    async with github.ref_locks.hold(full_name, branch) as fence:
        yield fence
