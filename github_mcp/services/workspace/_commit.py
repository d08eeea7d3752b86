"""Committing and pushing from a workspace, and following commits made through the API."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from github_mcp.github.rule_violations import rule_violation, rules_in_push
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.workspace._approved import require_commit
from github_mcp.services.workspace._git import git_error
from github_mcp.services.workspace._repo import RepoOps
from github_mcp.services.workspace._results import (
    CommittedPath,
    Pushed,
    Refresh,
    WorkspaceCommit,
)
from github_mcp.services.workspace._status import VENV_DIR
from github_mcp.services.workspace._types import Workspace
from github_mcp.services.workspace._validate import validate_repo_path

MAX_MESSAGE_CHARS = 10000
MAX_COMMIT_PATHS = 100
_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}
# A replacement for git's push: (ops, workspace, commit sha) -> fields of the result.
Pusher = Callable[[RepoOps, Workspace, str], Awaitable[Pushed]]
_NAME_STATUS = {"A": "added", "M": "modified", "D": "deleted", "T": "type_changed"}


def validate_commit_args(message: object, paths: object) -> list[str] | None:
    if not isinstance(message, str) or not message.strip() or "\0" in message:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "a commit message is required",
            hint="Give a non-empty commit message without NUL characters.",
        )
    if len(message) > MAX_MESSAGE_CHARS:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"commit message over {MAX_MESSAGE_CHARS} characters",
            hint="Shorten the message; put the details in the pull request description.",
        )
    if paths is None:
        return None
    if not isinstance(paths, list) or not paths or len(paths) > MAX_COMMIT_PATHS:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"paths must list 1–{MAX_COMMIT_PATHS} paths",
            hint="List the paths to commit, or leave paths out to commit every change.",
        )
    checked = [validate_repo_path(p) for p in paths]
    if any(p == VENV_DIR or p.startswith(VENV_DIR + "/") for p in checked):
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"{VENV_DIR} is never committed",
            hint="Leave the virtualenv out of paths; it stays local to the clone.",
        )
    return checked


async def commit_changes(
    ops: RepoOps,
    ws: Workspace,
    message: str,
    paths: list[str] | None,
    push: bool,
    *,
    force: bool = False,
    approved: dict[str, str] | None = None,
    pusher: Pusher | None = None,
) -> WorkspaceCommit:
    """Stage (the paths, or everything but .venv-mcp), commit, and push on request. With
    `approved` (a gated commit: its tree and parent), the commit must be that one.
    `pusher` replaces git's push (a replay GitHub signs); its answer updates the result."""
    await _check_push(ops, ws, push, force)
    await _stage(ops, ws, paths)
    files = await _staged_files(ops, ws, paths)
    args = ["commit", "-q", "--no-verify", "-m", message]
    if paths is not None:
        args += ["--only", "--", *paths]
    await ops.out(ws, args, "commit", extra_env=_LITERAL)
    sha = await ops.head(ws)
    if approved is not None:
        await require_commit(ops, ws, sha, approved)
    result = WorkspaceCommit(
        commit_sha=sha, pushed=False, forced=False, files=files, branch=await ops.branch(ws)
    )
    if push and pusher is not None:
        pushed = await pusher(ops, ws, sha)
        result.pushed, result.forced, result.signature = True, pushed.forced, pushed.signature
        result.commit_sha, result.replayed_from = pushed.commit_sha or sha, pushed.replayed_from
    elif push:
        result.forced = await push_commit(ops, ws, sha, force=force)
        result.pushed = True
    return result


async def _check_push(ops: RepoOps, ws: Workspace, push: bool, force: bool) -> None:
    if force and not push:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "force only applies with push=true",
            hint="Set push=true to force-push, or leave force out.",
        )
    if push and await ops.kind(ws) != "branch":
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            f"cannot push: {ws.ref!r} is a {ws.kind}, not a branch",
            hint="clone a branch to commit and push",
        )


async def _stage(ops: RepoOps, ws: Workspace, paths: list[str] | None) -> None:
    """Stage the paths (each inside the clone), or everything; never the venv."""
    root = ws.repo.resolve()
    if paths is not None:
        for p in paths:
            parent = (root / p).parent.resolve()
            if parent != root and root not in parent.parents:
                raise GitHubMCPError(
                    ErrorCode.INVALID_INPUT,
                    f"path {p!r} resolves outside the clone",
                    hint=(
                        "Give paths inside the clone, relative to its root, not through "
                        "symlinks that leave it."
                    ),
                )
        add = await ops.run(ws, ["add", "-A", "--", *paths], extra_env=_LITERAL)
        if add.rc != 0:
            raise GitHubMCPError(
                ErrorCode.INVALID_INPUT,
                "some paths match nothing in the clone",
                hint="list changed files with get_workspace_changes_summary",
                git_stderr=add.stderr.strip()[-400:],
            )
    else:
        await ops.out(ws, ["add", "-A", "--", "."], "stage")
    # .git/info/exclude hides the venv, but a .gitignore negation or a user's `git add -f`
    # can still stage it: never commit it.
    staged_venv = await ops.out(
        ws, ["diff", "--cached", "--name-only", "-z", "--", VENV_DIR], "diff"
    )
    if staged_venv.strip("\0"):
        await ops.out(ws, ["reset", "-q", "--", VENV_DIR], "unstage")


async def _staged_files(
    ops: RepoOps, ws: Workspace, paths: list[str] | None
) -> list[CommittedPath]:
    """The staged files (in `paths` when given) with their status; none is an error."""
    scope = ["--", *paths] if paths is not None else []
    names = await ops.out(
        ws,
        ["diff", "--cached", "--name-status", "-z", "--no-renames", *scope],
        "diff",
        extra_env=_LITERAL,
    )
    parts = [x for x in names.split("\0") if x]
    files = [
        CommittedPath(path=parts[i + 1], status=_NAME_STATUS.get(parts[i][:1], "modified"))
        for i in range(0, len(parts) - 1, 2)
    ]
    if not files:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "nothing to commit",
            hint="change files first (terminal_command), or check `paths`; "
            f"{VENV_DIR} and the server's scratch files are never committed",
        )
    return files


async def push_commit(ops: RepoOps, ws: Workspace, sha: str, *, force: bool = False) -> bool:
    """Push `sha` to the branch; True when that replaced history (only with `force`).

    Without `force` this is a fast-forward or nothing: a local history that dropped the
    remote head is refused before any push. With `force` the push is leased on the remote
    SHA last fetched, so a branch that moved meanwhile is never overwritten blindly.
    """
    tracking = f"refs/remotes/origin/{ws.ref}"
    res = await ops.run(ws, ["rev-parse", "--verify", "--quiet", tracking])
    expected = res.stdout.strip() if res.rc == 0 else ""
    rewrites = False
    if expected:
        rewrites = (await ops.run(ws, ["merge-base", "--is-ancestor", expected, sha])).rc != 0
    if rewrites and not force:
        raise GitHubMCPError(
            ErrorCode.CONFLICT,
            f"the workspace's history no longer contains the head of {ws.ref}; "
            "pushing would rewrite it, so nothing was pushed",
            hint="rebase or merge onto the remote branch and commit again, or pass "
            "force=true to replace the remote branch",
            commit_sha=sha,
            expected_remote_sha=expected,
        )
    args = ["push", "--porcelain", "--no-verify"]
    if force:
        args.append(f"--force-with-lease=refs/heads/{ws.ref}:{expected}")
    auth = await ops.auth(ws)
    push = await ops.run(
        ws,
        [*args, "origin", f"{sha}:refs/heads/{ws.ref}"],
        auth_header=auth["auth_header"],
        url=auth["url"],
    )
    if push.rc == 0:
        await ops.run(ws, ["update-ref", tracking, sha])
        return rewrites
    text = (push.stdout + push.stderr).lower()
    if "stale info" in text or "fetch first" in text or "non-fast-forward" in text:
        raise GitHubMCPError(
            ErrorCode.CONFLICT,
            f"{ws.ref} moved upstream since the workspace last fetched; nothing was pushed",
            hint="ensure_workspace_clone(reset=false) to fetch, then rebase or merge "
            "and commit_workspace again",
            commit_sha=sha,
            expected_remote_sha=expected or None,
        )
    rules = rules_in_push(push.stderr)
    if rules is not None:
        raise rule_violation(f"the push to {ws.ref}", rules, commit_sha=sha)
    err = git_error(push, "push", network=True)
    err.details["commit_sha"] = sha
    raise err


@dataclass(frozen=True)
class CatchUp:
    """How a reused clone met its branch's fetched head: `state` is fast_forwarded,
    up_to_date, or a left-behind state with `reason` saying why it was left behind."""

    state: Refresh
    old_sha: str | None = None
    new_sha: str | None = None
    commits: int = 0  # commits the fast-forward brought in (or the clone is behind)
    reason: str | None = None


async def follow_remote(ops: RepoOps, ws: Workspace) -> str:
    """Fetch, then fast-forward a clean clone that is on the branch and has no own commits."""
    if await ops.kind(ws) != "branch":
        return "no_clone"
    await ops.fetch(ws, None)
    return (await catch_up(ops, ws)).state


async def catch_up(ops: RepoOps, ws: Workspace) -> CatchUp:
    """Fast-forward a fetched branch clone to the remote head when nothing local is in the
    way. Uncommitted changes, own commits or a HEAD moved off the branch are never
    touched: the clone is left behind, and the answer says why."""
    head, remote = await ops.head(ws), await ops.target(ws)
    if not remote or head == remote:
        return CatchUp("up_to_date", head, head)
    kind = await ops.kind(ws)
    if kind != "branch":  # a moved tag, or HEAD moved off: only reset=true goes there
        why = f"HEAD is not at the {kind} {ws.ref} ({remote[:12]}); reset=true checks it out"
        return CatchUp("diverged_left_behind", head, remote, reason=why)
    ahead, behind = await ops.ahead_behind(ws, remote)
    if behind == 0:
        return CatchUp("up_to_date", head, head)  # the remote head is in HEAD already
    stale = CatchUp("up_to_date", head, remote, behind)  # its state is set below
    if changes := await ops.status(ws):
        why = f"{len(changes)} uncommitted change(s) in the clone"
        return replace(stale, state="dirty_left_behind", reason=why)
    on_branch = await ops.branch(ws) == ws.ref
    if ahead or not on_branch:
        why = f"{ahead} local commit(s) not on {ws.ref}" if ahead else f"HEAD is not on {ws.ref}"
        return replace(stale, state="diverged_left_behind", reason=why)
    await ops.out(ws, ["merge", "--ff-only", "-q", remote], "fast-forward", **(await ops.auth(ws)))
    return replace(stale, state="fast_forwarded")
