"""GitHub Actions: runs, jobs and their logs, branch status, dispatch, re-runs, and a bounded
wait for a run to finish (with progress notifications)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.effects import Target
from github_mcp.kernel.params import Cursor, FullName, Limit, PollSeconds, Ref, TimeoutSeconds
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services import actions as ci
from github_mcp.services.actions import (
    DEFAULT_MAX_BYTES,
    MIN_MAX_BYTES,
    CheckCountsOut,
    JobSummary,
    OpenPull,
    RunSummary,
)
from github_mcp.services.shared import approved_state
from github_mcp.services.shared.suggested_calls import call_text

TOOLSET = "actions"
RunId = Annotated[int, Field(ge=1)]
JobId = Annotated[int, Field(ge=1, description="from get_workflow_run_overview")]
Sha = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]
Workflow = Annotated[
    str,
    Field(
        min_length=1,
        max_length=255,
        pattern=r"^[A-Za-z0-9_.-]+$",
        description="file name (ci.yml) or id",
    ),
]
RunStatus = Literal[
    "completed", "in_progress", "queued", "requested", "waiting", "pending", "action_required",
    "cancelled", "failure", "neutral", "skipped", "stale", "success", "timed_out",
]  # fmt: skip


class RunList(BaseModel):
    runs: list[RunSummary]
    total: int | None = None
    next_cursor: str | None = None


@tool(toolset=TOOLSET)
async def list_workflow_runs(
    call: Call,
    full_name: FullName,
    workflow: Workflow | None = None,
    branch: Ref | None = None,
    status: RunStatus | None = None,
    head_sha: Sha | None = None,
    event: Annotated[str, Field(max_length=64, pattern=r"^[a-z_]+$")] | None = None,
    limit: Limit = 20,
    cursor: Cursor | None = None,
) -> RunList:
    """Workflow runs, newest first, filtered by workflow, branch, status, head SHA or event."""
    page = await ci.list_runs(
        call.rt.github, full_name, workflow=workflow, branch=branch, status=status,
        head_sha=head_sha, event=event, limit=limit, cursor=cursor,
    )  # fmt: skip
    return RunList(
        runs=[ci.compact_run(r) for r in page.items],
        total=page.total,
        next_cursor=page.next_cursor,
    )


class RunOverview(BaseModel):
    run: RunSummary
    jobs: list[JobSummary]
    next: list[str] | None = None


@tool(toolset=TOOLSET)
async def get_workflow_run_overview(call: Call, full_name: FullName, run_id: RunId) -> RunOverview:
    """A run, its jobs, and each failed job's failed steps with their numbers."""
    github = call.rt.github
    run = await ci.get_run(github, full_name, run_id)
    jobs = [ci.compact_job(j) for j in await ci.run_jobs(github, full_name, run_id)]
    failed = [j for j in jobs if j.conclusion in ci.FAILED_CONCLUSIONS]
    nxt = [
        call_text("get_job_logs", full_name=full_name, job_id=j.id, failed_steps_only=True)
        for j in failed[:5]
    ]
    if failed and run.get("status") == "completed":
        nxt.append(call_text("rerun_failed_jobs", full_name=full_name, run_id=run_id))
    elif run.get("status") != "completed":
        nxt.append(call_text("wait_for_workflow_run", full_name=full_name, run_id=run_id))
    return RunOverview(run=ci.compact_run(run), jobs=jobs, next=nxt or None)


@tool(toolset=TOOLSET)
async def get_job_logs(
    call: Call,
    full_name: FullName,
    job_id: JobId,
    tail_lines: Annotated[int, Field(ge=1, le=20_000)] | None = None,
    failed_steps_only: bool = False,
    grep: Annotated[str, Field(min_length=1, max_length=256)] | None = None,
    max_bytes: Annotated[int, Field(ge=MIN_MAX_BYTES, le=200_000)] = DEFAULT_MAX_BYTES,
) -> ci.JobLogs:
    """A job's log, narrowed to failed steps, a grep and/or the last lines; says what was cut.

    Timestamps and group markers are dropped (errors kept), within max_bytes."""
    narrowing = ci.Narrowing(
        failed_steps_only=failed_steps_only, tail_lines=tail_lines, grep=grep, max_bytes=max_bytes
    )
    return await ci.job_logs(call.rt.github, full_name, job_id, narrowing)


class CheckBrief(BaseModel):
    name: str
    kind: str
    conclusion: str | None = None
    detail: str | None = None
    url: str | None = None


class BranchStatus(BaseModel):
    branch: str
    head_sha: str
    state: Literal["success", "failure", "pending", "none"]
    checks: CheckCountsOut
    failing: list[CheckBrief] | None = None
    pending: list[str] | None = None
    pull_request: OpenPull | None = None
    next: str | None = None


def brief(check: ci.Check) -> CheckBrief:
    return CheckBrief(
        name=check.name,
        kind=check.kind,
        conclusion=check.conclusion,
        detail=(check.detail or "")[:160] or None,
        url=check.url if check.kind == "status" else None,
    )


@tool(toolset=TOOLSET, ref_arg="branch")
async def get_latest_branch_status(
    call: Call, full_name: FullName, branch: Ref | None = None
) -> BranchStatus:
    """A branch's head SHA, combined check state, failing and pending checks, and its open PR."""
    assert branch is not None
    github = call.rt.github
    head = await ci.branch_head(github, full_name, branch)
    sha = head["commit"]["sha"]
    checks, pull = await asyncio.gather(
        ci.commit_checks(github, full_name, sha), ci.open_pull_for_branch(github, full_name, branch)
    )
    counts = ci.count_checks(checks)
    failing = [brief(c) for c in checks if c.state == "failed"]
    nxt = None
    if pull and counts.failed:
        nxt = call_text("get_failing_tests", pr=f"{full_name}#{pull.number}")
    elif counts.failed:
        nxt = call_text("list_workflow_runs", full_name=full_name, head_sha=sha, status="failure")
    return BranchStatus(
        branch=branch,
        head_sha=sha,
        state=counts.state,
        checks=counts.out(),
        failing=failing[:20] or None,
        pending=counts.waiting[:20] or None,
        pull_request=pull,
        next=nxt,
    )


class DispatchResult(BaseModel):
    workflow: str
    ref: str
    run_id: int | None = None
    run_id_source: str | None = None
    next: str


InputValue = str | int | float | bool


async def dispatch_state(call: Call, kwargs: dict[str, Any]) -> approved_state.RemoteState:
    """What a gated dispatch is approved for: the branch's head (the commit that runs)."""
    return await approved_state.branch_state(call.rt.github, kwargs["full_name"], kwargs["ref"])


@tool(toolset=TOOLSET, write=True, target="ref", ref_arg="ref", binds=dispatch_state)
async def trigger_workflow_dispatch(
    call: Call,
    full_name: FullName,
    workflow: Workflow,
    ref: Ref | None = None,
    inputs: Annotated[dict[str, InputValue], Field(max_length=25)] | None = None,
) -> DispatchResult:
    """Start a workflow_dispatch run of a workflow on a branch (gated by that branch)."""
    assert ref is not None
    if call.bound is not None:  # the dispatch names a branch, not a commit: re-read it
        await approved_state.require_branch_state(call.rt.github, full_name, ref, call.bound)
    found = await ci.dispatch_workflow(call.rt.github, full_name, workflow, ref, inputs)
    run_id = found.run_id
    nxt = (
        call_text("wait_for_workflow_run", full_name=full_name, run_id=run_id)
        if run_id
        else call_text(
            "list_workflow_runs", full_name=full_name, branch=ref, event="workflow_dispatch"
        )
    )
    return DispatchResult(
        workflow=workflow, ref=ref, run_id=run_id, run_id_source=found.run_id_source,
        next=nxt,
    )  # fmt: skip


async def run_branch(call: Call, kwargs: dict[str, Any]) -> Target:
    """Gate target of a re-run: the branch the run was for."""
    run = await ci.get_run(call.rt.github, kwargs["full_name"], kwargs["run_id"])
    return Target(run.get("head_branch"))


class RerunResult(BaseModel):
    run_id: int
    attempt: int | None = None
    status: str | None = None
    next: str


async def rerun_state(call: Call, kwargs: dict[str, Any]) -> approved_state.RemoteState:
    """What a gated re-run is approved for: the run's commit (a re-run runs it again)."""
    return await approved_state.run_state(call.rt.github, kwargs["full_name"], kwargs["run_id"])


@tool(toolset=TOOLSET, write=True, target=run_branch, binds=rerun_state)
async def rerun_failed_jobs(call: Call, full_name: FullName, run_id: RunId) -> RerunResult:
    """Re-run the failed jobs of a completed run, as a new attempt (gated by its branch)."""
    run = await ci.rerun_failed_jobs(call.rt.github, full_name, run_id)
    return RerunResult(
        run_id=run_id,
        attempt=run.get("run_attempt"),
        status=run.get("status"),
        next=call_text("wait_for_workflow_run", full_name=full_name, run_id=run_id),
    )


class WaitResult(BaseModel):
    status: Literal["completed", "pending"]
    conclusion: str | None = None
    run: RunSummary
    failed_jobs: list[JobSummary] | None = None
    polls: int
    waited_s: float
    next: str | None = None


@tool(toolset=TOOLSET, tasks=True)
async def wait_for_workflow_run(
    call: Call,
    full_name: FullName,
    run_id: RunId,
    timeout_seconds: TimeoutSeconds = 300,
    poll_interval_seconds: PollSeconds = 5,
) -> WaitResult:
    """Wait (bounded) for a run to complete; at the deadline it returns status 'pending'.

    Polls with backoff and sends progress notifications."""
    waited = await ci.wait_for_run(
        call.rt.github, full_name, run_id, timeout_s=timeout_seconds,
        interval_s=poll_interval_seconds, on_progress=call.progress,
    )  # fmt: skip
    run, failed = waited.run, waited.failed_jobs
    nxt = None
    if failed:
        nxt = call_text(
            "get_job_logs", full_name=full_name, job_id=failed[0].id, failed_steps_only=True
        )
    elif not waited.done:
        nxt = call_text("wait_for_workflow_run", full_name=full_name, run_id=run_id)
    return WaitResult(
        status="completed" if waited.done else "pending",
        conclusion=run.get("conclusion") if waited.done else None,
        run=ci.compact_run(run),
        failed_jobs=failed or None,
        polls=waited.polls,
        waited_s=waited.elapsed_s,
        next=nxt,
    )
