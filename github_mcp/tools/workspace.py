"""Workspace tools: a persistent clone per (repo, ref) where commands and tests run.

Cloning (or fetching) any ref is a read. Running commands and tests are gated writes on
the workspace ref: running code on a clone of a protected branch needs approval, a feature
branch does not. Pushing is the write that reaches GitHub, gated by the branch pushed to.
Commands run in the bubblewrap sandbox: they never see a credential.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from github_mcp.kernel.params import CommitMessage, FullName, Ref
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services.shared.approved_state import FileCount, RemoteState
from github_mcp.services.workspace import (
    ChangesSummary,
    CloneState,
    CommandResult,
    RemovedClone,
    TestRunResult,
    WorkspaceCommit,
)
from github_mcp.services.workspace.signed_push import pusher_for

if TYPE_CHECKING:
    from github_mcp.services.workspace import WorkspaceManager

TOOLSET = "workspace"
MAX_LISTED_FILES = 200
Timeout = Annotated[int, Field(ge=1, le=3600, description="kill after (s)")]


def manager(call: Call) -> WorkspaceManager:
    return call.rt.workspaces


def _progress(call: Call) -> Callable[[float, str], Awaitable[None]]:
    async def report(value: float, message: str) -> None:
        await call.progress(value, None, message)

    return report


@tool(toolset=TOOLSET, ref_arg="ref", tasks=True)
async def ensure_workspace_clone(
    call: Call, full_name: FullName, ref: Ref | None = None, reset: bool = False
) -> CloneState:
    """Clone (blobless) or fetch the workspace for a ref; reset=true discards local changes.

    A reused clone of a branch is fast-forwarded to the branch's current head; with local
    changes or commits in the way it is left as it is and reported stale (`refresh`,
    `stale_reason`). A read for every ref. reset=true always recovers the clone (stale git
    locks removed, re-cloned as the last resort)."""
    assert ref is not None
    return await manager(call).ensure_clone(
        full_name, ref, reset=reset, on_progress=_progress(call)
    )


@tool(
    toolset=TOOLSET,
    write=True,
    target="ref",
    ref_arg="ref",
    binds=ArgumentsOnly(
        "it runs the given command in the local clone of the ref; no credential reaches "
        "the command and nothing on GitHub changes"
    ),
    tasks=True,
)
async def terminal_command(
    call: Call,
    full_name: FullName,
    command: Annotated[str, Field(min_length=1, max_length=32768)],
    ref: Ref | None = None,
    timeout_seconds: Timeout | None = None,
    workdir: Annotated[str, Field(max_length=4096)] | None = None,
    use_venv: bool = False,
    installing_dependencies: bool = False,
) -> CommandResult:
    """Run a bash command in the workspace clone (scrubbed env, limits, capped output)."""
    assert ref is not None
    return await manager(call).run(
        full_name,
        ref,
        command,
        timeout_s=timeout_seconds,
        workdir=workdir,
        use_venv=use_venv,
        installing_dependencies=installing_dependencies,
        on_progress=_progress(call),
    )


@tool(
    toolset=TOOLSET,
    write=True,
    target="ref",
    ref_arg="ref",
    binds=ArgumentsOnly(
        "it runs the given test command in the local clone of the ref; no credential "
        "reaches it and nothing on GitHub changes"
    ),
    tasks=True,
)
async def run_tests(
    call: Call,
    full_name: FullName,
    ref: Ref | None = None,
    test_command: Annotated[str, Field(min_length=1, max_length=4096)] = "pytest",
    timeout_seconds: Timeout | None = None,
    workdir: Annotated[str, Field(max_length=4096)] | None = None,
    use_venv: bool = True,
) -> TestRunResult:
    """Run the tests in the workspace and return counts and the failing tests."""
    assert ref is not None
    return await manager(call).run_tests(
        full_name,
        ref,
        test_command,
        timeout_s=timeout_seconds,
        workdir=workdir,
        use_venv=use_venv,
        on_progress=_progress(call),
    )


@tool(toolset=TOOLSET, ref_arg="ref")
async def get_workspace_changes_summary(
    call: Call, full_name: FullName, ref: Ref | None = None
) -> ChangesSummary:
    """Status, diffstat and ahead/behind of the workspace clone."""
    assert ref is not None
    return await manager(call).changes_summary(full_name, ref)


async def workspace_commit_state(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """What a gated workspace commit is approved for: the tree it will commit and its
    parent, with every file's line counts and diff."""
    pending = await manager(call).pending_commit(
        kwargs["full_name"], kwargs["ref"], kwargs.get("paths")
    )
    files = tuple(
        FileCount(f.path, "changed", f.additions, f.deletions, f.patch) for f in pending.files
    )
    facts = (("tree", pending.tree), ("parent", pending.parent))
    return RemoteState(facts, files=files)


@tool(
    toolset=TOOLSET, write=True, target="ref", ref_arg="ref", binds=workspace_commit_state,
    tasks=True,
)  # fmt: skip
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
    done = await manager(call).commit(
        full_name, ref, message, paths=paths, push=push, force=force, approved=approved,
        pusher=pusher,
    )  # fmt: skip
    return done.model_copy(update={"files": done.files[:MAX_LISTED_FILES]})


@tool(toolset=TOOLSET, ref_arg="ref", destructive=True, read_only_hint=False)
async def remove_workspace_clone(
    call: Call, full_name: FullName, ref: Ref | None = None
) -> RemovedClone:
    """Delete the workspace clone of a ref with its uncommitted work, venv and caches.

    Frees a clone slot and disk within your workspace quotas. Nothing on GitHub changes:
    commit and push first what should be kept."""
    assert ref is not None
    return await manager(call).remove(full_name, ref)
