"""Actions records: workflows (files under .github/workflows plus registered ones), runs
with attempts, jobs with steps (each job is also a check run with the same id), re-runs
and workflow_dispatch."""

from __future__ import annotations

import re
from typing import Any

from sandbox_forge.kernel.errors import ApiError
from sandbox_forge.stores.actions_logs import job_log
from sandbox_forge.stores.checks import add_check_run, add_check_suite, refresh_suite
from sandbox_forge.stores.collab import Job, Run, Step, Workflow, collab
from sandbox_forge.stores.lookups import now
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

WORKFLOW_DIR = ".github/workflows"
FAILED = ("failure", "cancelled", "timed_out", "startup_failure", "action_required")
DEFAULT_STEPS = ["Set up job", "Run actions/checkout@v4", "Run tests", "Complete job"]


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


# --- runs and jobs --------------------------------------------------------------------------


def latest_jobs(repo: RepoRecord, run: Run) -> list[Job]:
    latest: dict[str, Job] = {}
    for job_id in run.job_ids:
        job = collab(repo).jobs[job_id]
        if job.name not in latest or job.run_attempt >= latest[job.name].run_attempt:
            latest[job.name] = job
    return sorted(latest.values(), key=lambda j: j.id)


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
    jobs = latest_jobs(repo, run)
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
        for job in latest_jobs(repo, run):
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
        latest = latest_jobs(repo, run)
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
