"""`commit_workspace`'s push when the branch requires signed commits: a git push cannot be
signed by GitHub, so the workspace's commit is replayed through createCommitOnBranch.

The files the local commit changed relative to the remote head (`git diff --raw`) are sent
as one signed commit whose parent is that head; the new commit's tree must equal the local
commit's tree (git trees are content-addressed, so equal ids mean equal content and
modes), and the clone is then moved onto the signed commit (`reset --soft`: the files on
disk and the index do not change). Several local commits become one signed commit.

Not replayable: a change of file mode, a symlink, a submodule or a type change (what the
mutation cannot express), a file that is not valid UTF-8 text (the server's git reads
text only) or over 2 MiB, and rewritten history (a signed commit cannot force). When
signatures are required such a push is refused with nothing pushed; otherwise (`always`
without a rule) it is pushed with git as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, conflict
from github_mcp.services.shared.commit_checks import read_head, signatures_required
from github_mcp.services.shared.commit_types import TEXT_MODE, Change
from github_mcp.services.shared.content import git_blob_sha
from github_mcp.services.shared.repo_facts import repo_path
from github_mcp.services.shared.signed_commits import commit_signed
from github_mcp.services.workspace import Pushed, RepoOps, Workspace, push_commit

Pusher = Callable[[RepoOps, Workspace, str], Awaitable[Pushed]]
MAX_REPLAY_BYTES = 2 * 1024 * 1024
_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}
_ABSENT = "000000"


async def pusher_for(
    github: GitHubClient, full_name: str, branch: str, message: str, *, force: bool
) -> Pusher | None:
    """The push to use instead of git's, or None for a plain git push."""
    mode = github.settings.signed_commits
    if mode == "never":
        return None
    try:
        head = await read_head(github, full_name, branch)
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:
            return None  # no such branch to sign onto: the push reports it
        raise
    required = await signatures_required(github, full_name, head)
    if not required and mode == "auto":
        return None
    if force:
        if not required:
            return None
        raise GitHubMCPError(
            ErrorCode.UNPROCESSABLE,
            f"{branch} requires signed commits; a force push cannot be signed, so nothing "
            "was pushed.",
            hint="Rebase the workspace onto the remote branch and push without force.",
        )

    async def push(ops: RepoOps, ws: Workspace, sha: str) -> Pushed:
        return await replay(github, full_name, ops, ws, sha, message, required)

    return push


def _refuse(reasons: list[str], branch: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.UNPROCESSABLE,
        f"{branch} requires signed commits, and this commit cannot be replayed through "
        "createCommitOnBranch (the only commit GitHub signs). Nothing was pushed; the local "
        "commit stays in the workspace.",
        hint="Leave these paths out (commit_workspace with `paths`), or push them with a "
        "commit signed by your own key outside this server.",
        files=reasons[:20],
    )


async def _diff(
    ops: RepoOps, ws: Workspace, base: str, sha: str
) -> list[tuple[str, str, str, str, str]]:
    """(old mode, new mode, new blob, status, path) of each path base..sha changed."""
    raw = await ops.out(
        ws, ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", base, sha], "diff"
    )
    parts = [p for p in raw.split("\0") if p]
    rows = []
    for meta, path in zip(parts[0::2], parts[1::2], strict=False):
        old_mode, new_mode, _old, new, status = meta.lstrip(":").split(" ")[:5]
        rows.append((old_mode, new_mode, new, status[:1], path))
    return rows


async def _changes(
    ops: RepoOps, ws: Workspace, base: str, sha: str
) -> tuple[list[Change], list[str]]:
    """The changes to replay, and why the rest cannot be (empty when all can)."""
    changes, reasons = [], []
    for old_mode, new_mode, blob, status, path in await _diff(ops, ws, base, sha):
        modes = {old_mode, new_mode} - {_ABSENT}
        if status == "T" or modes != {TEXT_MODE}:
            reasons.append(f"{path}: mode {old_mode} -> {new_mode}")
        elif status == "D":
            changes.append(Change(path, None))
        elif (data := await _blob(ops, ws, blob)) is None:
            reasons.append(f"{path}: binary or over 2 MiB")
        else:
            changes.append(Change(path, data))
    return changes, reasons


async def _blob(ops: RepoOps, ws: Workspace, blob: str) -> bytes | None:
    """The blob's bytes when they are UTF-8 text of at most 2 MiB (checked by its hash)."""
    size = int((await ops.out(ws, ["cat-file", "-s", blob], "cat-file")).strip() or 0)
    if size > MAX_REPLAY_BYTES:
        return None
    data = (await ops.out(ws, ["cat-file", "blob", blob], "cat-file")).encode()
    return data if git_blob_sha(data) == blob else None


async def replay(
    github: GitHubClient,
    full_name: str,
    ops: RepoOps,
    ws: Workspace,
    sha: str,
    message: str,
    required: bool,
) -> Pushed:
    """Push `sha` as a signed commit onto the remote head the workspace last fetched."""
    tracking = f"refs/remotes/origin/{ws.ref}"
    found = await ops.run(ws, ["rev-parse", "--verify", "--quiet", tracking])
    base = found.stdout.strip() if found.rc == 0 else ""
    if not base or (await ops.run(ws, ["merge-base", "--is-ancestor", base, sha])).rc != 0:
        raise conflict(
            f"the workspace's history no longer contains the head of {ws.ref}; a signed "
            "commit cannot replace history, so nothing was pushed",
            hint="rebase onto the remote branch and commit_workspace again",
            commit_sha=sha,
        )
    changes, reasons = await _changes(ops, ws, base, sha)
    if reasons and not required:
        return Pushed(forced=await push_commit(ops, ws, sha))
    if reasons or not changes:
        raise _refuse(reasons or ["the commit changes nothing against the remote head"], ws.ref)
    head = await read_head(github, full_name, ws.ref)
    if head.commit_sha != base:
        raise conflict(
            f"{ws.ref} moved upstream since the workspace last fetched; nothing was pushed",
            hint="ensure_workspace_clone(reset=false) to fetch, then rebase or merge and "
            "commit_workspace again",
            commit_sha=sha,
            expected_remote_sha=base,
        )
    outcome = await commit_signed(github, full_name, head, message, changes, expected_head_sha=base)
    await _same_tree(github, full_name, ops, ws, sha, outcome.commit_sha)
    await ops.fetch(ws, None)
    await ops.out(ws, ["reset", "-q", "--soft", outcome.commit_sha], "reset")
    return Pushed(
        forced=False, commit_sha=outcome.commit_sha, replayed_from=sha, signature=outcome.signature
    )


async def _same_tree(
    github: GitHubClient, full_name: str, ops: RepoOps, ws: Workspace, local: str, remote: str
) -> None:
    local_tree = (await ops.out(ws, ["rev-parse", f"{local}^{{tree}}"], "rev-parse")).strip()
    commit = await github.get_json(
        f"{repo_path(full_name)}/git/commits/{remote}", immutable=True, repo=full_name
    )
    if commit["tree"]["sha"] != local_tree:
        raise GitHubMCPError(
            ErrorCode.UPSTREAM_ERROR,
            f"The signed commit {remote[:12]} on {ws.ref} does not hold the workspace's tree; "
            "the workspace keeps its own commit.",
            hint="Compare the two commits, and commit again what is missing.",
            commit_sha=remote,
            local_commit_sha=local,
        )
