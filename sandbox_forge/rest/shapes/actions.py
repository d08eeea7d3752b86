"""JSON shapes for Actions: workflows, workflow runs (or one of their attempts), jobs."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from sandbox_forge.kernel.formats import iso
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.rest.shapes.checks import open_pulls_for, simple_commit
from sandbox_forge.rest.shapes.users_repos import minimal_repo
from sandbox_forge.stores.collab import Job, Run, Workflow, collab
from sandbox_forge.stores.lookups import iso_or_none, node_id, user_json
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


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
        "head_commit": simple_commit(repo, run.head_sha),
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
