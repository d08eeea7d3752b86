"""PR automation, driving a pull request to merge: failing tests with rerun commands, merge
conflicts by file, merge readiness, and stacked PRs. Unresolved review threads, and the writes that
answer them, are in tools/reviews.py."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.effects import Target, Written
from github_mcp.kernel.params import Cursor, FullName, PollSeconds, PrRef, TimeoutSeconds
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services.pulls import (
    CheckCountsOut,
    FailedJob,
    FailingTestsPage,
    MergeConflicts,
    StackRun,
    check_readiness,
    detect_conflicts,
    failing_tests,
    get_pull,
    manage_stack,
    stack_refs,
    stack_state,
)
from github_mcp.services.shared.approved_state import RemoteState
from github_mcp.services.shared.github_json import PullRequest
from github_mcp.services.shared.paging import cursor_for_offset as _cursor
from github_mcp.services.shared.paging import offset_from_cursor as _offset

TOOLSET = "automation"
Number = Annotated[int, Field(ge=1)]


# --- get_failing_tests -----


class FailingTest(BaseModel):
    test: str
    file: str | None = None
    line: int | None = None
    message: str
    job: str
    runner: str
    rerun: str | None = None


class OtherFailure(BaseModel):
    check: str
    kind: str
    detail: str | None = None
    url: str | None = None


class FailingTests(BaseModel):
    pr: int
    head_sha: str
    status: Literal["failed", "pending", "passed", "no_checks"]
    checks: CheckCountsOut
    failures: list[FailingTest]
    total_failures: int
    failed_jobs: list[FailedJob] | None = None
    other_failures: list[OtherFailure] | None = None
    pending: list[str] | None = None
    waited_s: float | None = None
    next_cursor: str | None = None
    next: list[str] | None = None


def _failing_tests(found: FailingTestsPage) -> FailingTests:
    counts = found.counts
    return FailingTests(
        pr=found.number,
        head_sha=found.head_sha,
        status=found.status,
        checks=counts.out(),
        failures=[
            FailingTest(
                test=t.test,
                file=None if t.file and t.test.startswith(t.file) else t.file,
                line=t.line,
                message=t.message,
                job=t.job,
                runner=t.runner,
                rerun=t.rerun,
            )
            for t in found.tests
        ],
        total_failures=found.total,
        failed_jobs=found.jobs or None,
        other_failures=[
            OtherFailure(check=c.name, kind=c.kind, detail=c.detail, url=c.url)
            for c in found.other_failures
        ]
        or None,
        pending=counts.waiting[:20] or None,
        waited_s=found.waited_s,
        next_cursor=_cursor(found.next_offset),
        next=found.next_calls or None,
    )


@tool(toolset=TOOLSET, tasks=True)
async def get_failing_tests(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    wait: bool = False,
    bail_on_first: bool = True,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    cursor: Cursor | None = None,
    timeout_seconds: TimeoutSeconds = 300,
    poll_interval_seconds: PollSeconds = 5,
) -> FailingTests:
    """Failing tests of the PR's head from its CI logs, each with its rerun command.

    wait=true waits (bounded) for CI, returning at the first failure under bail_on_first."""
    assert full_name and number
    found = await failing_tests(
        call.rt.github, full_name, number, wait=wait, bail_on_first=bail_on_first,
        timeout_s=timeout_seconds, interval_s=poll_interval_seconds, on_progress=call.progress,
        offset=_offset(cursor), limit=limit,
    )  # fmt: skip
    return _failing_tests(found)


# --- detect_merge_conflicts -----


@tool(toolset=TOOLSET)
async def detect_merge_conflicts(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    timeout_seconds: TimeoutSeconds = 30,
    poll_interval_seconds: PollSeconds = 0.1,
) -> MergeConflicts:
    """Whether the PR conflicts with its base, which files, and how to resolve them.

    Waits (bounded) for GitHub to compute it; the files come from a trial merge in a
    scratch clone."""
    assert full_name and number
    found: MergeConflicts = await detect_conflicts(
        call.rt.github, call.rt.workspaces.scratch(), full_name, number,
        timeout_s=timeout_seconds, interval_s=poll_interval_seconds, on_progress=call.progress,
    )  # fmt: skip
    return found


# --- check_merge_readiness -----


class Item(BaseModel):
    kind: str
    detail: str
    action: str


class Approvals(BaseModel):
    required: int | None = None
    approved_by: list[str]
    changes_requested_by: list[str] | None = None
    review_decision: str | None = None
    code_owners_required: bool | None = None


class MergeReadiness(BaseModel):
    verdict: Literal["ready", "pending", "blocked"]
    number: int
    head: str
    base: str
    head_sha: str
    state: str | None = None
    draft: bool | None = None
    mergeable: bool | None = None
    approvals: Approvals | None = None
    required_checks: dict[str, str] | None = None
    checks: dict[str, int] | None = None
    behind_by: int | None = None
    unresolved_threads: int | None = None
    protection: str | None = None
    blocking: list[Item]
    warnings: list[Item] | None = None


@tool(toolset=TOOLSET, tasks=True)
async def check_merge_readiness(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    timeout_seconds: TimeoutSeconds = 15,
    poll_interval_seconds: PollSeconds = 0.1,
) -> MergeReadiness:
    """Can the PR merge: ready, pending or blocked, each blocker with the action that clears it.

    Reads branch protection, latest reviews, required checks, behind-by, unresolved
    threads, draft and mergeability."""
    assert full_name and number
    found = await check_readiness(
        call.rt.github, full_name, number, timeout_s=timeout_seconds,
        interval_s=poll_interval_seconds, on_progress=call.progress,
    )  # fmt: skip
    facts = dict(found.facts)
    if facts.get("draft") is False:
        facts.pop("draft")
    return MergeReadiness(
        verdict=found.verdict,
        **facts,
        blocking=[Item(**b) for b in found.blocking],
        warnings=[Item(**w) for w in found.warnings] or None,
    )


# --- manage_stacked_prs -----


StackRef = Annotated[
    str,
    Field(
        min_length=1,
        max_length=400,
        description="owner/repo#N, PR URL, or N with full_name",
    ),
]


async def stack_target(call: Call, kwargs: dict[str, Any]) -> Target:
    """Gate target: the dependent PR's head branch, in the repository the PR references
    name (the allow-list applies before that repository is read)."""
    full_name, _, dependent_number = stack_refs(
        kwargs.get("full_name"), kwargs["base_pr"], kwargs["dependent_pr"]
    )
    call.rt.gate.check_repo_allowed(full_name)
    dependent = await get_pull(call.rt.github, full_name, dependent_number)
    return Target(dependent["head"]["ref"], repo=full_name)


class StackPr(BaseModel):
    number: int
    head: str
    base: str
    head_sha: str
    state: str


class Executed(BaseModel):
    status: Literal["rebased", "up_to_date", "conflict"]
    old_head_sha: str
    new_head_sha: str | None = None
    replayed: int | None = None
    pushed: bool
    retargeted_to: str | None = None
    conflicts: list[str] | None = None
    failed_commit: str | None = None
    workspace: str | None = None


class StackResult(BaseModel):
    stacked: bool
    status: str
    detail: str
    base_pr: StackPr
    dependent_pr: StackPr
    strategy: str
    commits_to_carry: int | None = None
    base_commits_missing: int | None = None
    commands: list[str] | None = None
    executed: Executed | None = None
    next: str | None = None

    def written(self, repo: str) -> Written | None:
        if self.executed is None:
            return None  # a plan writes nothing
        if not self.executed.pushed:
            return Written(repo)  # a retarget may still have changed the PR
        return Written(repo, self.dependent_pr.head, self.executed.new_head_sha)

    def clone_refreshed(self, state: str) -> None:
        if self.executed is not None and state != "no_clone":
            self.executed.workspace = state


def _stack_pr(data: PullRequest) -> StackPr:
    state = "merged" if data.get("merged_at") else data.get("state", "open")
    return StackPr(
        number=data["number"],
        head=data["head"]["ref"],
        base=data["base"]["ref"],
        head_sha=data["head"]["sha"],
        state=state,
    )


async def stack_binding(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """What a gated stack run is approved for: the plan and the PR heads it rests on."""
    full_name, base, dependent = stack_refs(
        kwargs.get("full_name"), kwargs["base_pr"], kwargs["dependent_pr"]
    )
    return await stack_state(call.rt.github, full_name, base, dependent)


@tool(
    toolset=TOOLSET, write=True, target=stack_target, destructive=True, binds=stack_binding,
    tasks=True,
)  # fmt: skip
async def manage_stacked_prs(
    call: Call,
    base_pr: StackRef,
    dependent_pr: StackRef,
    full_name: FullName | None = None,
    execute: bool = False,
) -> StackResult:
    """Check a PR stacked on another and give the rebase commands; execute=true rebases it.

    The commands carry the commits after a squash merge (rebase --onto); execute=true
    rebases in a scratch clone and pushes with --force-with-lease (on conflict: the files,
    branch untouched)."""
    full_name, base_number, dependent_number = stack_refs(full_name, base_pr, dependent_pr)
    run = await manage_stack(
        call.rt.github, lambda: call.rt.workspaces.scratch(), full_name, base_number,
        dependent_number, execute=execute, approved=call.bound,
    )  # fmt: skip
    return _stack_result(run)


def _stack_result(run: StackRun) -> StackResult:
    plan, outcome = run.plan, run.outcome
    executed = None
    if outcome is not None:
        executed = Executed(
            status=outcome.status,
            old_head_sha=outcome.old_sha,
            new_head_sha=outcome.new_sha,
            replayed=outcome.replayed,
            pushed=outcome.pushed,
            retargeted_to=plan.retarget_to if run.retargeted else None,
            conflicts=outcome.conflicts or None,
            failed_commit=outcome.failed_commit,
        )
    return StackResult(
        stacked=plan.stacked,
        status=plan.status,
        detail=plan.detail,
        base_pr=_stack_pr(plan.base),
        dependent_pr=_stack_pr(plan.dependent),
        strategy=plan.strategy,
        commits_to_carry=plan.commits_to_carry,
        base_commits_missing=plan.base_commits_missing,
        commands=plan.commands or None,
        executed=executed,
        next=run.next,
    )
