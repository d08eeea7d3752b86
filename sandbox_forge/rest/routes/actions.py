"""GitHub Actions endpoints: workflows, runs (with attempts), jobs with steps, logs,
re-runs, dispatch.

Records live in stores/actions.py, shapes in rest/shapes/actions.py, log text and signed
URLs in stores/actions_logs.py; their public names are re-exported here for existing callers. Log
downloads redirect (302) to a short-lived signed URL the forge serves itself (`serve_blob`),
like GitHub's blob storage links: no credentials needed, and no request-log entry.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, json_response, missing_field, not_found
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.collab_api import found_or_404, wrapped_page
from sandbox_forge.rest.shapes.actions import job_json, run_json, workflow_json
from sandbox_forge.rest.shapes.checks import check_run_json
from sandbox_forge.stores.actions import (
    DEFAULT_STEPS,
    FAILED,
    WORKFLOW_DIR,
    add_job,
    add_workflow_run,
    complete_workflow_run,
    dispatch,
    find_workflow,
    latest_jobs,
    register_workflow,
    rerun,
    workflows,
)
from sandbox_forge.stores.actions_logs import (
    LOG_PREFIX,
    LOG_URL_TTL,
    job_log,
    signature_ok,
    signed_url,
)
from sandbox_forge.stores.collab import Job, Run, Workflow, collab
from sandbox_forge.stores.lookups import actor_login
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

RUN_STATUS_FILTERS = {"completed", "in_progress", "queued", "requested", "waiting", "pending"}


async def serve_blob(request: Request) -> Response:
    """The target of a log redirect: checks the signature, then serves text or a zip."""
    state: ForgeState = request.app.state.forge
    path = request.url.path
    try:
        expires = int(request.query_params.get("expires", "0"))
    except ValueError:
        expires = 0
    given = request.query_params.get("sig", "")
    if not signature_ok(state, path, expires, given):
        return Response(
            '<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code>'
            "</Error>",
            status_code=403,
            media_type="application/xml",
        )
    repo_id, kind, ident = (request.path_params[k] for k in ("repo_id", "kind", "ident"))
    repo = next((r for r in state.repos.values() if r.id == repo_id), None)
    if repo is None:
        return Response(status_code=404)
    data = collab(repo)
    if kind == "jobs" and ident in data.jobs:
        return Response(data.jobs[ident].log.encode(), media_type="text/plain; charset=utf-8")
    if kind == "runs" and ident in data.runs:
        return Response(_run_zip(repo, data.runs[ident]), media_type="application/zip")
    return Response(status_code=404)


def _run_zip(repo: RepoRecord, run: Run) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index, job in enumerate(latest_jobs(repo, run), start=1):
            archive.writestr(f"{index}_{job.name}.txt", job.log)
    return buffer.getvalue()


# --- endpoints ------------------------------------------------------------------------------


def _run(repo: RepoRecord, run_id: int) -> Run:
    return found_or_404(collab(repo).runs, run_id)


@endpoint
def list_workflows(ctx: Ctx):
    repo = ctx.repo()
    return wrapped_page(
        ctx, "workflows", workflows(ctx.state, repo), lambda w: workflow_json(ctx.urls, repo, w)
    )


def _workflow_param(ctx: Ctx, repo: RepoRecord) -> Workflow:
    workflow = find_workflow(ctx.state, repo, ctx.params["workflow_id"])
    if workflow is None:
        raise not_found()
    return workflow


@endpoint
def get_workflow(ctx: Ctx):
    repo = ctx.repo()
    return json_response(workflow_json(ctx.urls, repo, _workflow_param(ctx, repo)))


def _filter_runs(ctx: Ctx, runs: list[Run]) -> list[Run]:
    q = ctx.query
    if q.get("branch"):
        runs = [r for r in runs if r.head_branch == q["branch"]]
    if q.get("event"):
        runs = [r for r in runs if r.event == q["event"]]
    if q.get("head_sha"):
        runs = [r for r in runs if r.head_sha == q["head_sha"]]
    if q.get("actor"):
        runs = [r for r in runs if r.actor.lower() == q["actor"].lower()]
    status = q.get("status")
    if status in RUN_STATUSES_AND_CONCLUSIONS:
        runs = [
            r
            for r in runs
            if (r.status if status in RUN_STATUS_FILTERS else r.conclusion) == status
        ]
    return sorted(runs, key=lambda r: r.id, reverse=True)


RUN_STATUSES_AND_CONCLUSIONS = RUN_STATUS_FILTERS | {
    "action_required",
    "cancelled",
    "failure",
    "neutral",
    "skipped",
    "stale",
    "success",
    "timed_out",
}


@endpoint
def list_runs(ctx: Ctx):
    repo = ctx.repo()
    workflows(ctx.state, repo)
    runs = _filter_runs(ctx, list(collab(repo).runs.values()))
    return wrapped_page(
        ctx, "workflow_runs", runs, lambda r: run_json(ctx.state, ctx.urls, repo, r)
    )


@endpoint
def list_workflow_runs(ctx: Ctx):
    repo = ctx.repo()
    workflow = _workflow_param(ctx, repo)
    runs = [r for r in collab(repo).runs.values() if r.workflow_id == workflow.id]
    runs = _filter_runs(ctx, runs)
    return wrapped_page(
        ctx, "workflow_runs", runs, lambda r: run_json(ctx.state, ctx.urls, repo, r)
    )


@endpoint
def get_run(ctx: Ctx):
    repo = ctx.repo()
    return json_response(run_json(ctx.state, ctx.urls, repo, _run(repo, ctx.params["run_id"])))


def _attempt(run: Run, number: int) -> dict[str, Any] | None:
    if number == run.run_attempt:
        return None
    found = next((a for a in run.previous_attempts if a["attempt"] == number), None)
    if found is None:
        raise not_found()
    return found


@endpoint
def get_run_attempt(ctx: Ctx):
    repo = ctx.repo()
    run = _run(repo, ctx.params["run_id"])
    attempt = _attempt(run, ctx.params["attempt"])
    return json_response(run_json(ctx.state, ctx.urls, repo, run, attempt))


@endpoint
def list_jobs(ctx: Ctx):
    repo = ctx.repo()
    run = _run(repo, ctx.params["run_id"])
    if ctx.query.get("filter") == "all":
        jobs = sorted((collab(repo).jobs[i] for i in run.job_ids), key=lambda j: j.id)
    else:
        jobs = latest_jobs(repo, run)
    return wrapped_page(ctx, "jobs", jobs, lambda j: job_json(ctx.urls, repo, j))


@endpoint
def list_attempt_jobs(ctx: Ctx):
    repo = ctx.repo()
    run = _run(repo, ctx.params["run_id"])
    number = ctx.params["attempt"]
    _attempt(run, number)
    jobs = sorted(
        (j for i in run.job_ids if (j := collab(repo).jobs[i]).run_attempt == number),
        key=lambda j: j.id,
    )
    return wrapped_page(ctx, "jobs", jobs, lambda j: job_json(ctx.urls, repo, j))


def _job(repo: RepoRecord, job_id: int) -> Job:
    return found_or_404(collab(repo).jobs, job_id)


@endpoint
def get_job(ctx: Ctx):
    repo = ctx.repo()
    return json_response(job_json(ctx.urls, repo, _job(repo, ctx.params["job_id"])))


def _redirect(location: str) -> Response:
    return Response(status_code=302, headers={"location": location})


@endpoint
def job_logs(ctx: Ctx):
    repo = ctx.repo()
    job = _job(repo, ctx.params["job_id"])
    return _redirect(signed_url(ctx.state, ctx.urls, f"{LOG_PREFIX}/{repo.id}/jobs/{job.id}"))


@endpoint
def run_logs(ctx: Ctx):
    repo = ctx.repo()
    run = _run(repo, ctx.params["run_id"])
    return _redirect(signed_url(ctx.state, ctx.urls, f"{LOG_PREFIX}/{repo.id}/runs/{run.id}"))


@endpoint
def rerun_failed(ctx: Ctx):
    repo = ctx.repo(write=True)
    rerun(ctx.state, repo, _run(repo, ctx.params["run_id"]), only_failed=True)
    return json_response({}, status=201)


@endpoint
def rerun_all(ctx: Ctx):
    repo = ctx.repo(write=True)
    rerun(ctx.state, repo, _run(repo, ctx.params["run_id"]), only_failed=False)
    return json_response({}, status=201)


@endpoint
def rerun_job(ctx: Ctx):
    repo = ctx.repo(write=True)
    job = _job(repo, ctx.params["job_id"])
    rerun(ctx.state, repo, _run(repo, job.run_id), only_failed=False, job_ids={job.id})
    return json_response({}, status=201)


@endpoint
def dispatch_endpoint(ctx: Ctx):
    repo = ctx.repo(write=True)
    workflow = _workflow_param(ctx, repo)
    body = ctx.json()
    ref = body.get("ref")
    if not isinstance(ref, str) or not ref:
        raise missing_field("ref")
    inputs = body.get("inputs")
    if inputs is not None and not isinstance(inputs, dict):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/inputs', is not an object.")
    dispatch(ctx.state, repo, workflow, ref, actor_login(ctx.principal))
    return Response(status_code=204)


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}/actions"
    run = f"{base}/runs/{{run_id:int}}"
    job = f"{base}/jobs/{{job_id:int}}"
    return [
        Route(f"{base}/workflows", list_workflows, methods=["GET"]),
        Route(f"{base}/workflows/{{workflow_id}}", get_workflow, methods=["GET"]),
        Route(f"{base}/workflows/{{workflow_id}}/runs", list_workflow_runs, methods=["GET"]),
        Route(f"{base}/workflows/{{workflow_id}}/dispatches", dispatch_endpoint, methods=["POST"]),
        Route(f"{base}/runs", list_runs, methods=["GET"]),
        Route(run, get_run, methods=["GET"]),
        Route(f"{run}/attempts/{{attempt:int}}", get_run_attempt, methods=["GET"]),
        Route(f"{run}/attempts/{{attempt:int}}/jobs", list_attempt_jobs, methods=["GET"]),
        Route(f"{run}/jobs", list_jobs, methods=["GET"]),
        Route(f"{run}/logs", run_logs, methods=["GET"]),
        Route(f"{run}/rerun", rerun_all, methods=["POST"]),
        Route(f"{run}/rerun-failed-jobs", rerun_failed, methods=["POST"]),
        Route(job, get_job, methods=["GET"]),
        Route(f"{job}/logs", job_logs, methods=["GET"]),
        Route(f"{job}/rerun", rerun_job, methods=["POST"]),
        Route(f"{LOG_PREFIX}/{{repo_id:int}}/{{kind}}/{{ident:int}}", serve_blob, methods=["GET"]),
    ]


__all__ = [
    "DEFAULT_STEPS",
    "FAILED",
    "LOG_PREFIX",
    "LOG_URL_TTL",
    "RUN_STATUSES_AND_CONCLUSIONS",
    "RUN_STATUS_FILTERS",
    "WORKFLOW_DIR",
    "add_job",
    "add_workflow_run",
    "check_run_json",
    "complete_workflow_run",
    "dispatch",
    "find_workflow",
    "job_json",
    "job_log",
    "register_workflow",
    "rerun",
    "routes",
    "run_json",
    "serve_blob",
    "signed_url",
    "workflow_json",
    "workflows",
]
