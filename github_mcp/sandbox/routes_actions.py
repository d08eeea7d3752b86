"""GitHub Actions: workflows, runs (with attempts), jobs with steps, logs, re-runs, dispatch.

Workflows are the files under .github/workflows on the default branch, plus any the admin
API registers. A job is also a check run with the same id, as on GitHub. Log downloads
redirect (302) to a short-lived signed URL the forge serves itself, like GitHub's blob
storage links: no credentials needed, and no request-log entry.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import re
import time
import zipfile
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .api import Ctx, Urls, endpoint
from .collab_store import (
    Job,
    Run,
    Step,
    Workflow,
    actor_login,
    collab,
    iso_or_none,
    node_id,
    now,
    page_window,
    user_json,
)
from .errors import ApiError, json_response, missing_field, not_found
from .routes_checks import (
    add_check_run,
    add_check_suite,
    check_run_json,
    open_pulls_for,
    refresh_suite,
)
from .shapes import iso, minimal_repo
from .state import ForgeState, RepoRecord

WORKFLOW_DIR = ".github/workflows"
LOG_PREFIX = "/_sandbox/blobs/actions"
LOG_URL_TTL = 600
FAILED = ("failure", "cancelled", "timed_out", "startup_failure", "action_required")
RUN_STATUS_FILTERS = {"completed", "in_progress", "queued", "requested", "waiting", "pending"}


# --- workflows ------------------------------------------------------------------------------


def _workflow_name(text: str, path: str) -> str:
    match = re.search(r"^name:\s*['\"]?(.+?)['\"]?\s*$", text, re.M)
    return match[1] if match else path


def workflows(state: ForgeState, repo: RepoRecord) -> list[Workflow]:
    """Registered workflows, plus one per workflow file on the default branch."""
    data = collab(repo)
    head = repo.git.resolve_commit(repo.default_branch)
    if head is not None and repo.git.entry_at(head, WORKFLOW_DIR) is not None:
        known = {w.path for w in data.workflows.values()}
        for entry in repo.git.ls_tree(head, WORKFLOW_DIR + "/"):
            if entry.type != "blob" or not entry.path.endswith((".yml", ".yaml")):
                continue
            if entry.path not in known:
                text = repo.git.read_blob(entry.sha).decode("utf-8", "replace")
                register_workflow(state, repo, _workflow_name(text, entry.path), entry.path)
    return sorted(data.workflows.values(), key=lambda w: w.id)


def register_workflow(state: ForgeState, repo: RepoRecord, name: str, path: str) -> Workflow:
    with state.lock:
        data = collab(repo)
        for workflow in data.workflows.values():
            if workflow.path == path:
                return workflow
        stamp = now()
        workflow = Workflow(
            id=state.next_id(), name=name, path=path, created_at=stamp, updated_at=stamp
        )
        data.workflows[workflow.id] = workflow
        return workflow


def find_workflow(state: ForgeState, repo: RepoRecord, key: str | int) -> Workflow | None:
    """By id, file name (ci.yml), path or name."""
    for workflow in workflows(state, repo):
        if str(workflow.id) == str(key) or key in (
            workflow.path,
            workflow.path.rsplit("/", 1)[-1],
            workflow.name,
        ):
            return workflow
    return None


def workflow_json(urls: Urls, repo: RepoRecord, workflow: Workflow) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    html = urls.repo_html(repo.full_name)
    return {
        "id": workflow.id,
        "node_id": node_id("W", repo, workflow.id),
        "name": workflow.name,
        "path": workflow.path,
        "state": workflow.state,
        "created_at": iso(workflow.created_at),
        "updated_at": iso(workflow.updated_at),
        "url": f"{api}/actions/workflows/{workflow.id}",
        "html_url": f"{html}/blob/{repo.default_branch}/{workflow.path}",
        "badge_url": f"{html}/workflows/{quote(workflow.name)}/badge.svg",
    }


# --- logs -----------------------------------------------------------------------------------


def _stamp(ts: float) -> str:
    moment = datetime.fromtimestamp(ts, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond * 10:07d}Z"


def job_log(
    steps: list[tuple[str, str, str, int]], started: float | None = None, job_name: str = "build"
) -> str:
    """A job log in the runner's format from (title, command, output, exit code) steps:
    a timestamp on every line, ##[group] per step, ##[error] for a failing exit code."""
    clock = started if started is not None else now()
    out: list[str] = []

    def emit(text: str) -> None:
        nonlocal clock
        clock += 0.0013
        out.append(f"{_stamp(clock)} {text}")

    emit("Current runner version: '2.321.0'")
    emit("##[group]Runner Image")
    emit("Image: ubuntu-24.04")
    emit("##[endgroup]")
    emit(f"Complete job name: {job_name}")
    for title, command, output, code in steps:
        emit(f"##[group]{title}")
        for line in command.splitlines():
            emit(line)
        emit("##[endgroup]")
        for line in output.rstrip("\n").splitlines():
            emit(line)
        if code:
            emit(f"##[error]Process completed with exit code {code}.")
            break
    emit("Post job cleanup.")
    emit("Cleaning up orphan processes")
    return "\ufeff" + "\n".join(out) + "\n"


def _signature(state: ForgeState, path: str, expires: int) -> str:
    key = state.admin_token.encode()
    return hmac.new(key, f"{path}:{expires}".encode(), hashlib.sha256).hexdigest()


def signed_url(state: ForgeState, urls: Urls, path: str) -> str:
    expires = int(time.time()) + LOG_URL_TTL
    return f"{urls.web}{path}?expires={expires}&sig={_signature(state, path, expires)}"


async def serve_blob(request: Request) -> Response:
    """The target of a log redirect: checks the signature, then serves text or a zip."""
    state: ForgeState = request.app.state.forge
    path = request.url.path
    try:
        expires = int(request.query_params.get("expires", "0"))
    except ValueError:
        expires = 0
    given = request.query_params.get("sig", "")
    if expires < time.time() or not hmac.compare_digest(given, _signature(state, path, expires)):
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
        for index, job in enumerate(_latest_jobs(repo, run), start=1):
            archive.writestr(f"{index}_{job.name}.txt", job.log)
    return buffer.getvalue()


# --- runs and jobs --------------------------------------------------------------------------


def _latest_jobs(repo: RepoRecord, run: Run) -> list[Job]:
    latest: dict[str, Job] = {}
    for job_id in run.job_ids:
        job = collab(repo).jobs[job_id]
        if job.name not in latest or job.run_attempt >= latest[job.name].run_attempt:
            latest[job.name] = job
    return sorted(latest.values(), key=lambda j: j.id)


DEFAULT_STEPS = ["Set up job", "Run actions/checkout@v4", "Run tests", "Complete job"]


def _steps(spec: Any, status: str, conclusion: str | None, start: float) -> list[Step]:
    """Steps from names or {name, status, conclusion} dicts. In a failed job without an
    explicit failing step, the last "Run …" step failed; later steps were skipped, except
    the "Post …" and "Complete job" steps the runner always runs."""
    items = [{"name": s} if isinstance(s, str) else dict(s) for s in (spec or DEFAULT_STEPS)]
    if status == "completed" and conclusion in FAILED:
        if not any(item.get("conclusion") in FAILED for item in items):
            runs = [item for item in items if item["name"].startswith("Run ")]
            if runs:
                runs[-1]["conclusion"] = conclusion
    steps: list[Step] = []
    failed = False
    for number, item in enumerate(items, start=1):
        name = item["name"]
        if status != "completed":
            step_status, step_conclusion = item.get("status", "queued"), item.get("conclusion")
        else:
            step_status = "completed"
            always = name.startswith("Post ") or name == "Complete job"
            default = "skipped" if failed and not always else "success"
            step_conclusion = item.get("conclusion", default)
        failed = failed or step_conclusion in FAILED
        clock = start + number - 1
        steps.append(
            Step(
                number=number,
                name=name,
                status=step_status,
                conclusion=step_conclusion,
                started_at=clock if step_status != "queued" else None,
                completed_at=clock + 1 if step_status == "completed" else None,
            )
        )
    return steps


def add_job(
    state: ForgeState,
    repo: RepoRecord,
    run: Run,
    name: str,
    status: str = "completed",
    conclusion: str | None = None,
    steps: Any = None,
    log: str | None = None,
    attempt: int | None = None,
) -> Job:
    """A job (and its check run, same id) in run's current attempt."""
    if status == "completed" and conclusion is None:
        conclusion = "success"
    with state.lock:
        check = add_check_run(
            state,
            repo,
            run.head_sha,
            name,
            status,
            conclusion if status == "completed" else None,
            suite_id=run.check_suite_id,
            head_branch=run.head_branch,
            title=None if status != "completed" else f"{name} {conclusion}",
        )
        stamp = now()
        job = Job(
            id=check.id,
            run_id=run.id,
            run_attempt=attempt or run.run_attempt,
            name=name,
            status=status,
            conclusion=check.conclusion,
            created_at=stamp,
            started_at=stamp,
            completed_at=stamp + 30 if status == "completed" else None,
            check_run_id=check.id,
            runner_id=(check.id % 50) + 1 if status != "queued" else None,
            runner_name=f"GitHub Actions {(check.id % 50) + 1}" if status != "queued" else None,
        )
        job.steps = _steps(steps, status, check.conclusion, stamp)
        job.log = log if log is not None else _default_log(job)
        collab(repo).jobs[job.id] = job
        run.job_ids.append(job.id)
        return job


def _default_log(job: Job) -> str:
    if job.status != "completed":
        return ""
    steps = []
    for step in job.steps:
        if step.name in ("Set up job", "Complete job") or step.conclusion == "skipped":
            continue
        code = 1 if step.conclusion in FAILED else 0
        output = f"{step.name} failed" if code else ""
        steps.append(
            (
                step.name if step.name.startswith("Run ") else f"Run {step.name}",
                step.name.removeprefix("Run "),
                output,
                code,
            )
        )
    return job_log(steps, job.started_at, job.name)


def _refresh_run(repo: RepoRecord, run: Run) -> None:
    jobs = _latest_jobs(repo, run)
    run.updated_at = now()
    if not jobs:
        return
    if any(j.status != "completed" for j in jobs):
        run.status = "in_progress" if any(j.status != "queued" for j in jobs) else "queued"
        run.conclusion = None
        return
    run.status = "completed"
    conclusions = [j.conclusion for j in jobs]
    run.conclusion = next((c for c in FAILED if c in conclusions), "success")


def add_workflow_run(
    state: ForgeState,
    repo: RepoRecord,
    workflow: Workflow,
    head_sha: str,
    head_branch: str | None,
    *,
    event: str = "push",
    status: str = "completed",
    conclusion: str | None = None,
    actor: str = "octocat",
    display_title: str | None = None,
    jobs: list[dict[str, Any]] | None = None,
) -> Run:
    """A workflow run with its check suite, and jobs given as {name, status, conclusion,
    steps, log}; the run's status and conclusion follow the jobs when there are any."""
    with state.lock:
        data = collab(repo)
        suite = add_check_suite(state, repo, head_sha, head_branch)
        number = data.next_run_number.get(workflow.id, 0) + 1
        data.next_run_number[workflow.id] = number
        stamp = now()
        if display_title is None:
            info = repo.git.read_commit(head_sha)
            display_title = info.message.strip().split("\n", 1)[0] or workflow.name
        run = Run(
            id=state.next_id(),
            workflow_id=workflow.id,
            run_number=number,
            name=workflow.name,
            event=event,
            head_branch=head_branch,
            head_sha=head_sha,
            status=status,
            conclusion=conclusion if status == "completed" else None,
            actor=state.ensure_user(actor).login,
            created_at=stamp,
            updated_at=stamp,
            run_started_at=stamp,
            check_suite_id=suite.id,
            display_title=display_title,
            triggering_actor=state.ensure_user(actor).login,
        )
        data.runs[run.id] = run
        for spec in jobs or []:
            add_job(
                state,
                repo,
                run,
                spec["name"],
                spec.get("status", status),
                spec.get("conclusion"),
                spec.get("steps"),
                spec.get("log"),
            )
        _refresh_run(repo, run)
        refresh_suite(repo, suite.id)
        return run


def complete_workflow_run(
    state: ForgeState,
    repo: RepoRecord,
    run: Run,
    conclusion: str = "success",
    jobs: dict[str, dict[str, Any]] | None = None,
) -> Run:
    """Finish the current attempt: every unfinished job gets jobs[name] (conclusion, steps,
    log) or the run's conclusion."""
    with state.lock:
        data = collab(repo)
        for job in _latest_jobs(repo, run):
            if job.status == "completed" and job.name not in (jobs or {}):
                continue
            spec = (jobs or {}).get(job.name, {})
            job.status = "completed"
            job.conclusion = spec.get("conclusion", conclusion)
            job.completed_at = now()
            job.steps = _steps(spec.get("steps"), "completed", job.conclusion, job.started_at)
            job.log = spec.get("log") or _default_log(job)
            job.runner_id = job.runner_id or (job.id % 50) + 1
            job.runner_name = job.runner_name or f"GitHub Actions {job.runner_id}"
            check = data.check_runs.get(job.check_run_id)
            if check is not None:
                check.status, check.conclusion = "completed", job.conclusion
                check.completed_at = job.completed_at
                check.started_at = check.started_at or job.started_at
        if not run.job_ids:
            run.status, run.conclusion, run.updated_at = "completed", conclusion, now()
        else:
            _refresh_run(repo, run)
        refresh_suite(repo, run.check_suite_id)
        return run


def rerun(
    state: ForgeState,
    repo: RepoRecord,
    run: Run,
    only_failed: bool,
    job_ids: set[int] | None = None,
) -> Run:
    """A new attempt: the chosen jobs are queued again (new ids); the rest carry over."""
    if run.status != "completed":
        raise ApiError(403, "This workflow run is not completed")
    with state.lock:
        latest = _latest_jobs(repo, run)
        if job_ids is not None:
            chosen = [j for j in latest if j.id in job_ids]
        elif only_failed:
            chosen = [j for j in latest if j.conclusion in FAILED]
        else:
            chosen = latest
        run.previous_attempts.append(
            {
                "attempt": run.run_attempt,
                "status": run.status,
                "conclusion": run.conclusion,
                "run_started_at": run.run_started_at,
                "updated_at": run.updated_at,
            }
        )
        run.run_attempt += 1
        run.run_started_at = run.updated_at = now()
        for job in chosen:
            add_job(state, repo, run, job.name, "queued", None, [s.name for s in job.steps] or None)
        if chosen:
            run.status, run.conclusion = "queued", None
        refresh_suite(repo, run.check_suite_id)
        return run


def _dispatch_jobs(text: str) -> list[str]:
    """Job ids under the top-level `jobs:` key of a workflow file (no YAML library)."""
    names: list[str] = []
    inside = False
    for line in text.splitlines():
        if re.match(r"^jobs:\s*$", line):
            inside = True
            continue
        if inside and re.match(r"^\S", line):
            break
        match = re.match(r"^  ([A-Za-z0-9_-]+):\s*$", line) if inside else None
        if match:
            names.append(match[1])
    return names


def dispatch(state: ForgeState, repo: RepoRecord, workflow: Workflow, ref: str, actor: str) -> Run:
    """workflow_dispatch: a queued run on ref, GitHub's 422s when it cannot be."""
    branch = ref.removeprefix("refs/heads/").removeprefix("refs/tags/")
    sha = (
        repo.git.resolve_commit(ref)
        if ref.startswith("refs/")
        else (repo.git.read_ref(f"refs/heads/{branch}") or repo.git.read_ref(f"refs/tags/{branch}"))
    )
    if sha is None:
        raise ApiError(422, f"No ref found for: {ref}")
    entry = repo.git.entry_at(sha, workflow.path)
    text = repo.git.read_blob(entry.sha).decode("utf-8", "replace") if entry else None
    if text is not None and "workflow_dispatch" not in text:
        raise ApiError(422, "Workflow does not have 'workflow_dispatch' trigger")
    jobs = [{"name": n, "status": "queued"} for n in _dispatch_jobs(text or "")]
    return add_workflow_run(
        state,
        repo,
        workflow,
        sha,
        branch,
        event="workflow_dispatch",
        status="queued",
        actor=actor,
        display_title=workflow.name,
        jobs=jobs,
    )


# --- shapes ---------------------------------------------------------------------------------


def _simple_commit(repo: RepoRecord, sha: str) -> dict[str, Any]:
    info = repo.git.read_commit(sha)
    return {
        "id": sha,
        "tree_id": info.tree,
        "message": info.message.rstrip("\n"),
        "timestamp": iso(info.committer.timestamp),
        "author": {"name": info.author.name, "email": info.author.email},
        "committer": {"name": info.committer.name, "email": info.committer.email},
    }


def run_json(
    state: ForgeState, urls: Urls, repo: RepoRecord, run: Run, attempt: dict[str, Any] | None = None
) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    url = f"{api}/actions/runs/{run.id}"
    workflow = collab(repo).workflows[run.workflow_id]
    number = attempt["attempt"] if attempt else run.run_attempt
    data = {
        "id": run.id,
        "name": run.name,
        "node_id": node_id("WFR", repo, run.id),
        "check_suite_id": run.check_suite_id,
        "check_suite_node_id": node_id("CS", repo, run.check_suite_id),
        "head_branch": run.head_branch,
        "head_sha": run.head_sha,
        "path": workflow.path,
        "display_title": run.display_title,
        "run_number": run.run_number,
        "event": run.event,
        "status": attempt["status"] if attempt else run.status,
        "conclusion": attempt["conclusion"] if attempt else run.conclusion,
        "workflow_id": run.workflow_id,
        "url": url,
        "html_url": f"{urls.repo_html(repo.full_name)}/actions/runs/{run.id}",
        "pull_requests": open_pulls_for(repo, run.head_sha, urls)
        if run.event.startswith("pull_request")
        else [],
        "created_at": iso(run.created_at),
        "updated_at": iso(attempt["updated_at"] if attempt else run.updated_at),
        "actor": user_json(state, urls, run.actor),
        "triggering_actor": user_json(state, urls, run.triggering_actor or run.actor),
        "run_attempt": number,
        "referenced_workflows": [],
        "run_started_at": iso(attempt["run_started_at"] if attempt else run.run_started_at),
        "jobs_url": f"{url}/jobs",
        "logs_url": f"{url}/logs",
        "check_suite_url": f"{api}/check-suites/{run.check_suite_id}",
        "artifacts_url": f"{url}/artifacts",
        "cancel_url": f"{url}/cancel",
        "rerun_url": f"{url}/rerun",
        "previous_attempt_url": f"{url}/attempts/{number - 1}" if number > 1 else None,
        "workflow_url": f"{api}/actions/workflows/{run.workflow_id}",
        "head_commit": _simple_commit(repo, run.head_sha),
        "repository": minimal_repo(state, urls, repo),
        "head_repository": minimal_repo(state, urls, repo),
    }
    return data


def job_json(urls: Urls, repo: RepoRecord, job: Job) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    run = collab(repo).runs[job.run_id]
    return {
        "id": job.id,
        "run_id": job.run_id,
        "workflow_name": run.name,
        "head_branch": run.head_branch,
        "run_url": f"{api}/actions/runs/{job.run_id}",
        "run_attempt": job.run_attempt,
        "node_id": node_id("CR", repo, job.id),
        "head_sha": run.head_sha,
        "url": f"{api}/actions/jobs/{job.id}",
        "html_url": f"{urls.repo_html(repo.full_name)}/actions/runs/{job.run_id}/job/{job.id}",
        "status": job.status,
        "conclusion": job.conclusion,
        "created_at": iso(job.created_at),
        "started_at": iso(job.started_at),
        "completed_at": iso_or_none(job.completed_at),
        "name": job.name,
        "steps": [
            {
                "name": s.name,
                "status": s.status,
                "conclusion": s.conclusion,
                "number": s.number,
                "started_at": iso_or_none(s.started_at),
                "completed_at": iso_or_none(s.completed_at),
            }
            for s in job.steps
        ],
        "check_run_url": f"{api}/check-runs/{job.check_run_id}",
        "labels": list(job.labels),
        "runner_id": job.runner_id,
        "runner_name": job.runner_name,
        "runner_group_id": 2 if job.runner_id else None,
        "runner_group_name": "GitHub Actions" if job.runner_id else None,
    }


# --- endpoints ------------------------------------------------------------------------------


def _run(repo: RepoRecord, run_id: int) -> Run:
    run = collab(repo).runs.get(run_id)
    if run is None:
        raise not_found()
    return run


def _wrapped(ctx: Ctx, key: str, items: list[Any], shape) -> Response:
    page, per_page = ctx.page()
    data = {"total_count": len(items), key: [shape(i) for i in page_window(items, page, per_page)]}
    return ctx.paged_response(data, page, per_page, len(items))


@endpoint
def list_workflows(ctx: Ctx):
    repo = ctx.repo()
    return _wrapped(
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
    return _wrapped(ctx, "workflow_runs", runs, lambda r: run_json(ctx.state, ctx.urls, repo, r))


@endpoint
def list_workflow_runs(ctx: Ctx):
    repo = ctx.repo()
    workflow = _workflow_param(ctx, repo)
    runs = [r for r in collab(repo).runs.values() if r.workflow_id == workflow.id]
    runs = _filter_runs(ctx, runs)
    return _wrapped(ctx, "workflow_runs", runs, lambda r: run_json(ctx.state, ctx.urls, repo, r))


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
        jobs = _latest_jobs(repo, run)
    return _wrapped(ctx, "jobs", jobs, lambda j: job_json(ctx.urls, repo, j))


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
    return _wrapped(ctx, "jobs", jobs, lambda j: job_json(ctx.urls, repo, j))


def _job(repo: RepoRecord, job_id: int) -> Job:
    job = collab(repo).jobs.get(job_id)
    if job is None:
        raise not_found()
    return job


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


__all__ = ["add_workflow_run", "check_run_json", "complete_workflow_run", "job_log", "routes"]
