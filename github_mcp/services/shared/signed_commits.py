"""Commits that GitHub signs: GraphQL `createCommitOnBranch` instead of the Git data API.

GitHub signs a commit made through `createCommitOnBranch` with its web-flow key and marks
it verified, with no key on our side; a branch whose rules require signed commits accepts
it. `GITHUB_MCP_SIGNED_COMMITS` chooses: `never` (the Git data API, unsigned), `always`,
or `auto` (the default: signed when the branch's rules require signatures).

What the mutation cannot do: it takes a path and its contents, nothing else. It cannot
set or keep a file mode (executable bit), write a symlink or a submodule, or change a
path that is one. Such a commit falls back to the Git data API when signatures are not
required, and is refused (nothing written) when they are.

The guarantees of the Git data path hold: one atomic commit; `expectedHeadOid` is the
lost-update precondition (a moved branch is re-read, and the change re-applied when the
other commits touched other files); a commit the branch already holds writes nothing.
The blob check runs after the ref moved (the mutation creates and publishes at once):
the new commit's tree is read back and every path's blob hash and mode compared with
what was sent. A mismatch cannot be undone atomically: the commit stays on the branch and
the answer says `verification.verified: false`, naming the files that differ.
"""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass
from typing import TypedDict

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.github.retries import graphql_error
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, conflict
from github_mcp.services.shared.commit_checks import (
    RulesRead,
    changed_between,
    read_head,
    signatures_required,
    tree_listing,
    unchanged_outcome,
    verify_commit,
)
from github_mcp.services.shared.commit_types import (
    MAX_REBASES,
    TEXT_MODE,
    Change,
    CommitOutcome,
    CommitSignature,
    Head,
)
from github_mcp.services.shared.content import git_blob_sha
from github_mcp.services.shared.github_json import GitTreeItem
from github_mcp.services.shared.repo_facts import repo_path

# What createCommitOnBranch cannot express, by the mode of the path it would change.
_MODE_NAMES = {"100755": "an executable file", "120000": "a symlink", "160000": "a submodule"}

MUTATION = """
mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) {
    commit { oid tree { oid } }
    ref { target { oid } }
  }
}
"""


@dataclass(frozen=True)
class Plan:
    """How one commit is made: `signed` through createCommitOnBranch, and whether the
    branch's rules require signatures."""

    signed: bool
    required: bool = False


async def current_entries(
    github: GitHubClient, full_name: str, tree_sha: str, paths: set[str]
) -> dict[str, GitTreeItem]:
    """The tree entries (mode, type, sha) at `paths` in a tree; absent paths left out."""
    return await tree_listing(github, full_name, tree_sha, paths)


def cannot_express(changes: list[Change], current: dict[str, GitTreeItem]) -> list[str]:
    """Why createCommitOnBranch cannot make these changes (empty when it can)."""
    reasons = []
    for change in changes:
        entry = current.get(change.path)
        if change.mode != TEXT_MODE:
            reasons.append(f"{change.path}: sets file mode {change.mode}")
        elif entry is not None and entry.get("mode") != TEXT_MODE:
            kind = _MODE_NAMES.get(entry.get("mode", ""), f"mode {entry.get('mode')}")
            reasons.append(f"{change.path}: is {kind}")
    return reasons


def reads_rules(github: GitHubClient) -> bool:
    """Whether a commit reads the branch's rules (GITHUB_MCP_SIGNED_COMMITS is not never)."""
    return github.settings.signed_commits != "never"


async def plan_commit(
    github: GitHubClient,
    full_name: str,
    head: Head,
    changes: list[Change],
    rulesets: RulesRead | None = None,
) -> Plan:
    """Choose the path for one commit by GITHUB_MCP_SIGNED_COMMITS and the branch's rules
    (`rulesets` when read ahead). Raises (nothing written) when signatures are required
    and the change cannot be signed."""
    mode = github.settings.signed_commits
    if mode == "never":
        return Plan(signed=False)
    required = await signatures_required(github, full_name, head, rulesets)
    if mode == "auto" and not required:
        return Plan(signed=False)
    current = await current_entries(github, full_name, head.tree_sha, {c.path for c in changes})
    reasons = cannot_express(changes, current)
    if not reasons:
        return Plan(signed=True, required=required)
    if not required:
        return Plan(signed=False)  # `always`, but unsignable: the Git data API, unsigned
    raise GitHubMCPError(
        ErrorCode.UNPROCESSABLE,
        f"{head.branch} requires signed commits, and GitHub signs only commits made "
        "through createCommitOnBranch, which cannot set or keep file modes, symlinks or "
        "submodules. Nothing was written.",
        hint="Leave these paths out of this commit, or change them outside this server "
        "with a commit signed by your own key.",
        files=reasons[:20],
    )


def _message(text: str) -> dict[str, str]:
    headline, _, body = text.strip().partition("\n")
    message = {"headline": headline.strip()}
    if body.strip():
        message["body"] = body.strip("\n")
    return message


class _FileChanges(TypedDict):
    additions: list[dict[str, str]]  # {path, contents (base64)}
    deletions: list[dict[str, str]]  # {path}


class _CommitInput(TypedDict):  # GraphQL's CreateCommitOnBranchInput, as sent
    branch: dict[str, str]
    message: dict[str, str]
    expectedHeadOid: str
    fileChanges: _FileChanges


def _input(full_name: str, head: Head, message: str, changes: list[Change]) -> _CommitInput:
    additions: list[dict[str, str]] = []
    deletions: list[dict[str, str]] = []
    for change in changes:
        data = change.data
        if data is None:
            deletions.append({"path": change.path})
        else:
            additions.append({"path": change.path, "contents": base64.b64encode(data).decode()})
    return _CommitInput(
        branch={"repositoryNameWithOwner": full_name, "branchName": head.branch},
        message=_message(message),
        expectedHeadOid=head.commit_sha,
        fileChanges=_FileChanges(additions=additions, deletions=deletions),
    )


@dataclass(frozen=True)
class Made:
    """What the mutation answered: the commit, its tree, and where the branch now points."""

    oid: str
    tree: str
    branch_sha: str | None


async def _mutate(github: GitHubClient, variables: dict[str, _CommitInput]) -> Made | None:
    """Run the mutation: the commit it made, or None when the branch moved (STALE_DATA)."""
    body = await github.request_json(
        "POST",
        github.settings.graphql_url,
        json_body={"query": MUTATION, "variables": variables},
        idempotent=False,  # a repeat would find the branch moved and be refused anyway
    )
    errors = body.get("errors") if isinstance(body, dict) else None
    if errors:
        first = errors[0] if isinstance(errors[0], dict) else {}
        if first.get("type") == "STALE_DATA":
            return None
        raise graphql_error(first)  # rule refusals become rule_violation; nothing was written
    payload = ((body or {}).get("data") or {}).get("createCommitOnBranch") or {}
    commit = payload.get("commit") or {}
    oid, tree = commit.get("oid"), (commit.get("tree") or {}).get("oid")
    if not isinstance(oid, str) or not isinstance(tree, str):
        raise GitHubMCPError(
            ErrorCode.UPSTREAM_ERROR,
            "createCommitOnBranch answered no commit.",
            hint=(
                "Nothing may have been committed; check the branch head with "
                "list_commits before calling again."
            ),
        )
    target = ((payload.get("ref") or {}).get("target") or {}).get("oid")
    return Made(oid, tree, target if isinstance(target, str) else None)


async def _refs_create(github: GitHubClient, full_name: str, head: Head) -> Head:
    """A new branch at its base first: the mutation commits only onto an existing branch."""
    await github.request_json(
        "POST",
        f"{repo_path(full_name)}/git/refs",
        idempotent=False,
        json_body={"ref": f"refs/heads/{head.branch}", "sha": head.commit_sha},
    )
    return Head(head.branch, head.commit_sha, head.tree_sha, exists=True, protected=head.protected)


async def _drop_branch(github: GitHubClient, full_name: str, branch: str) -> None:
    """Undo the branch this call created when its commit failed (best effort)."""
    try:
        await github.request_json(
            "DELETE", f"{repo_path(full_name)}/git/refs/heads/{encode_path(branch)}"
        )
    except GitHubMCPError:
        pass


def _holds(changes: list[Change], current: dict[str, GitTreeItem]) -> bool:
    """Whether the tree already holds every change (a retry whose answer was lost)."""
    for change in changes:
        data, entry = change.data, current.get(change.path)
        if (data is None) != (entry is None):
            return False
        if data is not None and entry is not None and entry.get("sha") != git_blob_sha(data):
            return False
    return True


async def commit_signed(
    github: GitHubClient,
    full_name: str,
    head: Head,
    message: str,
    changes: list[Change],
    *,
    expected_head_sha: str | None = None,
) -> CommitOutcome:
    """One commit of `changes` through createCommitOnBranch, verified after it landed."""
    created = not head.exists
    if created:
        head = await _refs_create(github, full_name, head)
    try:
        return await _commit_loop(
            github, full_name, head, message, changes, expected_head_sha, created
        )
    except BaseException:
        if created:
            await _drop_branch(github, full_name, head.branch)
        raise


async def _commit_loop(
    github: GitHubClient,
    full_name: str,
    head: Head,
    message: str,
    changes: list[Change],
    expected_head_sha: str | None,
    created: bool,
) -> CommitOutcome:
    paths = {c.path for c in changes}
    first_parent = head.commit_sha
    rebased: list[str] = []
    for _ in range(MAX_REBASES + 1):
        current = await current_entries(github, full_name, head.tree_sha, paths)
        if _holds(changes, current):
            return await unchanged_outcome(github, full_name, head, first_parent, rebased, changes)
        if reasons := cannot_express(changes, current):
            raise GitHubMCPError(
                ErrorCode.CONFLICT,
                f"{head.branch} moved and now has paths createCommitOnBranch cannot change.",
                hint="Re-read the branch and redo the change.",
                files=reasons[:20],
            )
        try:
            made = await _mutate(github, {"input": _input(full_name, head, message, changes)})
        except GitHubMCPError as exc:
            if not exc.retryable:
                raise
            made = await _landed(github, full_name, head, changes, exc)
        if made is not None:
            return await _outcome(
                github, full_name, head, made, changes, first_parent, rebased, created
            )
        moved_to = await read_head(github, full_name, head.branch)
        if expected_head_sha:
            raise conflict(
                f"{head.branch} is at {moved_to.commit_sha[:12]}, not {expected_head_sha[:12]}.",
                hint="Re-read the branch and redo the change on its current head.",
                head_sha=moved_to.commit_sha,
            )
        touched, _ = await changed_between(
            github, full_name, head.commit_sha, moved_to.commit_sha, ""
        )
        if overlap := sorted(touched & paths):
            raise conflict(
                f"{head.branch} moved to {moved_to.commit_sha[:12]} with changes to the same "
                "files.",
                hint="Re-read those files on the new head and redo the change.",
                files=overlap,
                head_sha=moved_to.commit_sha,
            )
        head = moved_to
        rebased.append(moved_to.commit_sha)
    raise conflict(f"{head.branch} kept moving; gave up after {MAX_REBASES} re-applications.")


async def _landed(
    github: GitHubClient, full_name: str, head: Head, changes: list[Change], lost: GitHubMCPError
) -> Made:
    """The mutation's answer was lost (a 5xx or a dropped connection): if the branch moved
    to a commit holding exactly these changes, that is ours (its parent is checked when it
    is read back); otherwise nothing was written and the error stands."""
    moved_to = await read_head(github, full_name, head.branch)
    if moved_to.commit_sha != head.commit_sha:
        paths = {c.path for c in changes}
        if _holds(changes, await current_entries(github, full_name, moved_to.tree_sha, paths)):
            return Made(moved_to.commit_sha, moved_to.tree_sha, moved_to.commit_sha)
    raise lost


async def _outcome(
    github: GitHubClient,
    full_name: str,
    head: Head,
    made: Made,
    changes: list[Change],
    first_parent: str,
    rebased: list[str],
    created: bool,
) -> CommitOutcome:
    """Read the new commit back (one round trip): its parent and GitHub's verification of
    its signature, and every path's blob hash and mode in its tree."""
    oid = made.oid
    commit, entries = await asyncio.gather(
        github.get_json(
            f"{repo_path(full_name)}/git/commits/{oid}", immutable=True, repo=full_name
        ),
        current_entries(github, full_name, made.tree, {c.path for c in changes}),
    )
    blobs = {p: e["sha"] for p, e in entries.items() if e.get("type") == "blob"}
    verification, files = await verify_commit(
        github, full_name, head.branch, oid, made.branch_sha, blobs, changes
    )
    for entry in files:
        found = entries.get(entry.path)
        if entry.status == "written" and (found is None or found["mode"] != TEXT_MODE):
            entry.ok = verification.verified = False
    parents = [p.get("sha") for p in commit.get("parents", [])]
    if parents != [head.commit_sha] or commit["tree"]["sha"] != made.tree:
        verification.verified = False
    signed = commit.get("verification") or {}
    return CommitOutcome(
        commit_sha=oid,
        branch=head.branch,
        parent_sha=first_parent,
        rebased_onto=rebased,
        verification=verification,
        files=files,
        created_branch=created,
        signature=CommitSignature.of(signed, "createCommitOnBranch"),
    )
