"""Workspace tools: a persistent clone per (repo, ref) where commands and tests run.

Cloning (or fetching) any ref is a read. Running commands and tests are gated writes on
the workspace ref: running code on a clone of a protected branch needs approval, a feature
branch does not. Pushing is the write that reaches GitHub, gated by the branch pushed to.
Commands run in the bubblewrap sandbox: they never see a credential.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.effects import Written
from github_mcp.kernel.params import CommitMessage, FullName, Ref
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services.approved_state import FileCount, RemoteState
from github_mcp.services.signed_push import pusher_for
from github_mcp.tools.writes import CommitSignature

if TYPE_CHECKING:
    from github_mcp.services.workspace import WorkspaceManager

TOOLSET = "workspace"
Timeout = Annotated[int, Field(ge=1, le=3600, description="kill after (s)")]


def manager(call: Call) -> WorkspaceManager:
    return call.rt.workspaces


def _progress(call: Call):
    async def report(value: float, message: str) -> None:
        await call.progress(value, None, message)

    return report


class CloneInfo(BaseModel):
    full_name: str
    ref: str
    kind: str
    path: str
    branch: str | None = None
    head_sha: str
    remote_sha: str | None = None
    ahead: int
    behind: int
    dirty: bool
    changed_files: list[str]
    changed_files_total: int
    created: bool
    reset: bool
    refresh: Literal[
        "cloned",
        "reset",
        "fast_forwarded",
        "up_to_date",
        "dirty_left_behind",
        "diverged_left_behind",
    ] = Field(description="What this call did to a reused clone; *_left_behind: still stale.")
    previous_head_sha: str | None = None
    new_commits: int = Field(0, description="Commits fast-forwarded (or still behind).")
    stale_reason: str | None = None


@tool(toolset=TOOLSET, ref_arg="ref")
async def ensure_workspace_clone(
    call: Call, full_name: FullName, ref: Ref | None = None, reset: bool = False
) -> CloneInfo:
    """Clone (blobless) or fetch the workspace for a ref; reset=true discards local changes.

    A reused clone of a branch is fast-forwarded to the branch's current head; with local
    changes or commits in the way it is left as it is and reported stale (`refresh`,
    `stale_reason`). A read for every ref. reset=true always recovers the clone (stale git
    locks removed, re-cloned as the last resort)."""
    assert ref is not None
    state = await manager(call).ensure_clone(
        full_name, ref, reset=reset, on_progress=_progress(call)
    )
    return CloneInfo(**state.to_dict())


class CommandOutput(BaseModel):
    exit_code: int | None = None
    timed_out: bool
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    duration_s: float
    killed_by: str | None = None

    def written(self, repo: str) -> Written | None:
        return None  # commands change the clone only: they hold no credential to push


@tool(toolset=TOOLSET, write=True, target="ref", ref_arg="ref")
async def terminal_command(
    call: Call,
    full_name: FullName,
    command: Annotated[str, Field(min_length=1, max_length=32768)],
    ref: Ref | None = None,
    timeout_seconds: Timeout | None = None,
    workdir: Annotated[str, Field(max_length=4096)] | None = None,
    use_venv: bool = False,
    installing_dependencies: bool = False,
) -> CommandOutput:
    """Run a bash command in the workspace clone (scrubbed env, limits, capped output)."""
    assert ref is not None
    result = await manager(call).run(
        full_name,
        ref,
        command,
        timeout_s=timeout_seconds,
        workdir=workdir,
        use_venv=use_venv,
        installing_dependencies=installing_dependencies,
        on_progress=_progress(call),
    )
    data = result.to_dict()
    data.pop("timeout_s", None)
    return CommandOutput(**data)


class FailingTest(BaseModel):
    name: str
    message: str
    file: str | None = None


class TestRun(BaseModel):
    passed: int
    failed: int
    errors: int
    skipped: int
    failing: list[FailingTest]
    duration_s: float
    exit_code: int | None = None
    timed_out: bool
    output_tail: str
    parsed_from: str | None = None

    def written(self, repo: str) -> Written | None:
        return None  # tests change the clone only


@tool(toolset=TOOLSET, write=True, target="ref", ref_arg="ref")
async def run_tests(
    call: Call,
    full_name: FullName,
    ref: Ref | None = None,
    test_command: Annotated[str, Field(min_length=1, max_length=4096)] = "pytest",
    timeout_seconds: Timeout | None = None,
    workdir: Annotated[str, Field(max_length=4096)] | None = None,
    use_venv: bool = True,
) -> TestRun:
    """Run the tests in the workspace and return counts and the failing tests."""
    assert ref is not None
    result = await manager(call).run_tests(
        full_name,
        ref,
        test_command,
        timeout_s=timeout_seconds,
        workdir=workdir,
        use_venv=use_venv,
        on_progress=_progress(call),
    )
    data = result.to_dict()
    failing = [
        FailingTest(
            name=f.get("name") or f.get("test", "?"),
            message=f.get("message", ""),
            file=f.get("file"),
        )
        for f in data.pop("failing")
    ]
    keep = {k: data[k] for k in TestRun.model_fields if k in data and k != "failing"}
    return TestRun(failing=failing, **keep)


class ChangesSummary(BaseModel):
    branch: str | None = None
    head_sha: str | None = None
    ahead: int = 0
    behind: int = 0
    dirty: bool
    status: list[dict[str, Any]]
    diffstat: dict[str, Any]


@tool(toolset=TOOLSET, ref_arg="ref")
async def get_workspace_changes_summary(
    call: Call, full_name: FullName, ref: Ref | None = None
) -> ChangesSummary:
    """Status, diffstat and ahead/behind of the workspace clone."""
    assert ref is not None
    data = await manager(call).changes_summary(full_name, ref)
    return ChangesSummary(**{k: v for k, v in data.items() if k in ChangesSummary.model_fields})


class CommittedPath(BaseModel):
    path: str
    status: str


class WorkspaceCommit(BaseModel):
    commit_sha: str
    pushed: bool
    forced: bool = Field(
        description="True only when force=true replaced history on the remote branch."
    )
    files: list[CommittedPath]
    signature: CommitSignature | None = Field(
        None,
        description="Set when the push was replayed through createCommitOnBranch because "
        "the branch requires signed commits: commit_sha is then the signed commit.",
    )
    replayed_from: str | None = Field(None, description="The local commit that was replayed.")


async def workspace_commit_state(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """What a gated workspace commit is approved for: the tree it will commit and its
    parent, with every file's line counts and diff."""
    pending = await manager(call).pending_commit(
        kwargs["full_name"], kwargs["ref"], kwargs.get("paths")
    )
    files = tuple(
        FileCount(f["path"], "changed", f["additions"], f["deletions"], f["patch"])
        for f in pending["files"]
    )
    facts = (("tree", pending["tree"]), ("parent", pending["parent"]))
    return RemoteState(facts, files=files)


@tool(toolset=TOOLSET, write=True, target="ref", ref_arg="ref", binds=workspace_commit_state)
async def commit_workspace(
    call: Call,
    full_name: FullName,
    message: CommitMessage,
    ref: Ref | None = None,
    paths: Annotated[list[Annotated[str, Field(max_length=4096)]], Field(max_length=100)]
    | None = None,
    push: bool = False,
    force: bool = False,
) -> WorkspaceCommit:
    """Commit the workspace's changes (never the venv or scratch files); push when asked.

    A push only fast-forwards the branch unless force=true (then leased on the remote head
    last fetched); the result's `forced` says whether history was replaced. A branch that
    requires signed commits gets the push replayed as one commit GitHub signs."""
    assert ref is not None
    approved = dict(call.bound.facts) if call.bound is not None else None
    # A branch that requires signed commits gets the push replayed as a commit GitHub signs.
    pusher = (
        await pusher_for(call.rt.github, full_name, ref, message, force=force) if push else None
    )
    data = await manager(call).commit(
        full_name, ref, message, paths=paths, push=push, force=force, approved=approved,
        pusher=pusher,
    )  # fmt: skip
    signature = data.get("signature")
    return WorkspaceCommit(
        commit_sha=data["commit_sha"],
        pushed=bool(data.get("pushed")),
        forced=bool(data.get("forced")),
        files=[CommittedPath(**f) for f in data.get("files", [])[:200]],
        signature=CommitSignature(**signature) if signature else None,
        replayed_from=data.get("replayed_from"),
    )


class RemovedClone(BaseModel):
    full_name: str
    ref: str
    freed_bytes: int = Field(description="Disk bytes the workspace used, now free.")


@tool(toolset=TOOLSET, ref_arg="ref", destructive=True, read_only_hint=False)
async def remove_workspace_clone(
    call: Call, full_name: FullName, ref: Ref | None = None
) -> RemovedClone:
    """Delete the workspace clone of a ref with its uncommitted work, venv and caches.

    Frees a clone slot and disk within your workspace quotas. Nothing on GitHub changes:
    commit and push first what should be kept."""
    assert ref is not None
    return RemovedClone(**await manager(call).remove(full_name, ref))
