"""GitHub Actions: runs, jobs, job logs, branch status, dispatch, re-runs, and a bounded
wait for a run (a commit's checks are in _checks.py, the polling loop in _poll.py).

GitHub's JSON in, typed models out (_models.py). A job log download answers 302 with a
short-lived storage URL; it is fetched without our credentials (the URL is signed) and
capped, keeping the tail, where a failing step's error is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import httpx2 as httpx

from github_mcp.github.client import (
    GitHubClient,
    Page,
    encode_path,
)
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.actions._models import (
    Dispatched,
    JobSummary,
    OpenPull,
    RunSummary,
    StepRef,
)
from github_mcp.services.actions._poll import poll
from github_mcp.services.shared.github_json import Branch, Job, PullRequest, WorkflowRun
from github_mcp.services.shared.repo_facts import (
    repo_path,
)

FAILED_CONCLUSIONS = frozenset(
    {"failure", "timed_out", "cancelled", "action_required", "startup_failure"}
)
PASSED_CONCLUSIONS = frozenset({"success", "neutral", "skipped"})
MAX_LOG_BYTES = 8 * 1024 * 1024

ProgressFn = Callable[[float, float | None, str], Awaitable[None]]


# --- shapes -----------------------------------------------------------------------------------


def _params(**given: str | None) -> dict[str, str]:
    return {k: v for k, v in given.items() if v is not None}


def compact_run(run: WorkflowRun) -> RunSummary:
    return RunSummary(
        id=run["id"],
        workflow=run.get("name"),
        title=run.get("display_title"),
        number=run.get("run_number"),
        attempt=run.get("run_attempt"),
        event=run.get("event"),
        status=run.get("status"),
        conclusion=run.get("conclusion"),
        branch=run.get("head_branch"),
        head_sha=run.get("head_sha"),
        created_at=run.get("created_at"),
    )


def failed_steps(job: Job) -> list[StepRef]:
    return [
        StepRef(number=s.get("number"), name=s.get("name"), conclusion=s.get("conclusion"))
        for s in job.get("steps") or []
        if s.get("conclusion") in FAILED_CONCLUSIONS
    ]


def _seconds(start: str | None, end: str | None) -> int | None:
    if not start or not end:
        return None
    try:
        a = datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0, int((b - a).total_seconds()))


def compact_job(job: Job) -> JobSummary:
    steps = job.get("steps") or []
    current = next((s for s in steps if s.get("status") == "in_progress"), None)
    return JobSummary(
        id=job["id"],
        name=job.get("name"),
        status=job.get("status"),
        conclusion=job.get("conclusion"),
        duration_s=_seconds(job.get("started_at"), job.get("completed_at")),
        current_step=current.get("name") if current else None,
        failed_steps=failed_steps(job) or None,
    )


# --- runs and jobs ------------------------------------------------------------------------------


async def list_runs(
    github: GitHubClient,
    full_name: str,
    *,
    workflow: str | None = None,
    branch: str | None = None,
    status: str | None = None,
    head_sha: str | None = None,
    event: str | None = None,
    limit: int = 30,
    cursor: str | None = None,
) -> Page:
    base = f"{repo_path(full_name)}/actions"
    path = f"{base}/workflows/{encode_path(workflow)}/runs" if workflow else f"{base}/runs"
    params = _params(branch=branch, status=status, head_sha=head_sha, event=event)
    return await github.paginate(
        path, params=params, limit=limit, cursor=cursor, items_key="workflow_runs"
    )


async def get_run(github: GitHubClient, full_name: str, run_id: int) -> WorkflowRun:
    run: WorkflowRun = await github.request_json(
        "GET", f"{repo_path(full_name)}/actions/runs/{run_id}"
    )
    return run


async def run_jobs(github: GitHubClient, full_name: str, run_id: int) -> list[Job]:
    """The jobs of the run's latest attempt."""
    jobs: list[Job] = await github.collect(
        f"{repo_path(full_name)}/actions/runs/{run_id}/jobs", items_key="jobs", max_items=500
    )
    return jobs


async def failed_jobs(github: GitHubClient, full_name: str, run_id: int) -> list[JobSummary]:
    """The run's jobs that failed, in short."""
    jobs = [compact_job(j) for j in await run_jobs(github, full_name, run_id)]
    return [j for j in jobs if j.conclusion in FAILED_CONCLUSIONS]


async def get_job(github: GitHubClient, full_name: str, job_id: int) -> Job:
    job: Job = await github.request_json("GET", f"{repo_path(full_name)}/actions/jobs/{job_id}")
    return job


# --- logs ---------------------------------------------------------------------------------------


@dataclass
class JobLog:
    text: str
    bytes: int
    head_cut: bool  # the log was longer than the cap; its beginning was dropped


def _header(headers: dict[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


async def fetch_job_log(
    github: GitHubClient, full_name: str, job_id: int, *, max_bytes: int = MAX_LOG_BYTES
) -> JobLog:
    """A job's log text (its last max_bytes). GitHub answers 302 to signed storage."""
    path = f"{repo_path(full_name)}/actions/jobs/{job_id}/logs"
    try:
        text, headers = await github.request_text(
            "GET", path, accept="application/vnd.github+json", follow_redirects=False
        )
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:
            raise GitHubMCPError(
                ErrorCode.NOT_FOUND,
                f"No log for job {job_id}: it does not exist, is still running, or expired.",
                hint="get_workflow_run_overview shows the job's status.",
            ) from None
        raise
    location = _header(headers, "location")
    if not location:
        data = text.encode("utf-8", "replace")
        cut = len(data) > max_bytes
        return JobLog(data[-max_bytes:].decode("utf-8", "replace"), len(data), cut)
    # Plain http only when the API itself is plain http (a local sandbox forge).
    allowed = ("https", "http") if github.base_url.startswith("http://") else ("https",)
    if urlsplit(location).scheme not in allowed:
        raise GitHubMCPError(
            ErrorCode.UPSTREAM_ERROR,
            "GitHub gave an unusable log location.",
            hint="Retry; if it persists, download the log from the run's page on GitHub.",
        )
    return await _download_tail(github, location, max_bytes)


async def _download_tail(github: GitHubClient, url: str, max_bytes: int) -> JobLog:
    buf = bytearray()
    total = 0
    try:
        # Signed storage URL: no Authorization header goes with it.
        async with github.http.stream("GET", url, follow_redirects=True) as resp:
            if resp.status_code >= 400:
                raise GitHubMCPError(
                    ErrorCode.UPSTREAM_ERROR,
                    f"Log storage answered {resp.status_code}.",
                    hint="Retry: the log link may have expired.",
                )
            async for chunk in resp.aiter_bytes():
                total += len(chunk)
                buf.extend(chunk)
                if len(buf) > 2 * max_bytes:
                    del buf[: len(buf) - max_bytes]
    except httpx.TimeoutException:
        raise GitHubMCPError(
            ErrorCode.TIMEOUT,
            "Downloading the job log timed out.",
            hint="Retry, or ask for less with a smaller max_bytes or tail_lines.",
        ) from None
    except httpx.TransportError:
        raise GitHubMCPError(
            ErrorCode.UPSTREAM_ERROR,
            "Network error downloading the job log.",
            hint="A retry after a short wait usually helps.",
        ) from None
    cut = total > max_bytes
    data = bytes(buf[-max_bytes:]) if cut else bytes(buf)
    text = data.decode("utf-8", "replace")
    if cut:  # start on a whole line
        text = text.split("\n", 1)[1] if "\n" in text else text
    return JobLog(text, total, cut)


async def branch_head(github: GitHubClient, full_name: str, branch: str) -> Branch:
    data: Branch = await github.request_json(
        "GET", f"{repo_path(full_name)}/branches/{encode_path(branch)}"
    )
    return data


async def open_pull_for_branch(
    github: GitHubClient, full_name: str, branch: str
) -> OpenPull | None:
    owner = full_name.split("/", 1)[0]
    items: list[PullRequest] = await github.request_json(
        "GET",
        f"{repo_path(full_name)}/pulls",
        params={"state": "open", "head": f"{owner}:{branch}", "per_page": 5},
    )
    if not items:
        return None
    pull = items[0]
    return OpenPull(
        number=pull["number"], title=pull.get("title") or "", draft=pull.get("draft") or None
    )


# --- writes -------------------------------------------------------------------------------------


async def dispatch_workflow(
    github: GitHubClient,
    full_name: str,
    workflow: str,
    ref: str,
    inputs: dict[str, Any] | None,
) -> Dispatched:
    """workflow_dispatch on ref, and its run: GitHub returns the run's id when asked
    (return_run_details); older servers do not, and the newest dispatch run on the branch is
    looked up instead."""
    path = f"{repo_path(full_name)}/actions/workflows/{encode_path(workflow)}/dispatches"
    body: dict[str, Any] = {"ref": ref, "return_run_details": True}
    if inputs:
        body["inputs"] = inputs
    try:
        answer = await github.request_json("POST", path, json_body=body)
    except GitHubMCPError as exc:
        if exc.code != ErrorCode.UNPROCESSABLE or "return_run_details" not in exc.message:
            raise
        body.pop("return_run_details")
        answer = await github.request_json("POST", path, json_body=body)
    run_id = (answer or {}).get("workflow_run_id")
    if run_id:
        return Dispatched(run_id=int(run_id), run_id_source="github")
    page = await list_runs(
        github, full_name, workflow=workflow, branch=ref, event="workflow_dispatch", limit=1
    )
    if page.items:
        return Dispatched(run_id=page.items[0]["id"], run_id_source="newest_dispatch_run")
    return Dispatched()


async def rerun_failed_jobs(github: GitHubClient, full_name: str, run_id: int) -> WorkflowRun:
    try:
        await github.request_json(
            "POST", f"{repo_path(full_name)}/actions/runs/{run_id}/rerun-failed-jobs"
        )
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.PERMISSION_DENIED and "not completed" in exc.message:
            raise GitHubMCPError(
                ErrorCode.UNPROCESSABLE,
                f"Run {run_id} is still running; only a completed run can be re-run.",
                hint="wait_for_workflow_run, then re-run its failed jobs.",
            ) from None
        raise
    return await get_run(github, full_name, run_id)


# --- waiting for a run ----------------------------------------------------------------------


@dataclass
class RunWait:
    """A run once completed (or as it stood at the deadline), with its failed jobs."""

    run: WorkflowRun
    done: bool
    polls: int
    elapsed_s: float
    failed_jobs: list[JobSummary] = field(default_factory=list)


async def wait_for_run(
    github: GitHubClient,
    full_name: str,
    run_id: int,
    *,
    timeout_s: float,
    interval_s: float,
    on_progress: Callable[[float, float | None, str], Awaitable[None]] | None = None,
) -> RunWait:
    """Wait (bounded, with backoff and progress) for a workflow run to complete."""

    async def report(run: WorkflowRun, polls: int, elapsed: float) -> None:
        if on_progress is not None:
            message = f"run {run_id}: {run.get('status')} (poll {polls})"
            await on_progress(round(elapsed, 2), timeout_s, message)

    polled = await poll(
        lambda: get_run(github, full_name, run_id),
        lambda run: run.get("status") == "completed",
        timeout_s=timeout_s,
        interval_s=interval_s,
        on_poll=report,
    )
    failed: list[JobSummary] = []
    if polled.done and polled.value.get("conclusion") in FAILED_CONCLUSIONS:
        failed = await failed_jobs(github, full_name, run_id)
    return RunWait(polled.value, polled.done, polled.polls, polled.elapsed_s, failed)
