"""Check suites, check runs and commit statuses (combined status too)."""

from __future__ import annotations

import base64
import zlib
from typing import Any

from starlette.routing import Route

from .api import Ctx, Urls, endpoint
from .collab_store import (
    CheckRun,
    CheckSuite,
    CommitStatus,
    actor_login,
    collab,
    iso_or_none,
    node_id,
    now,
    page_window,
    user_json,
)
from .errors import ApiError, json_response, not_found, validation_failed
from .shapes import iso, minimal_repo, simple_user
from .state import ForgeState, RepoRecord, UserRecord

RUN_STATUSES = ("queued", "in_progress", "completed", "waiting", "requested", "pending")
CONCLUSIONS = (
    "success",
    "failure",
    "neutral",
    "cancelled",
    "skipped",
    "timed_out",
    "action_required",
)
PASSING = ("success", "neutral", "skipped")
STATUS_STATES = ("error", "failure", "pending", "success")
# The apps that report checks: GitHub Actions, plus any slug an admin names.
KNOWN_APPS = {"github-actions": (15368, "GitHub Actions")}
GITHUB_ORG = UserRecord(login="github", id=9919, type="Organization")


# --- shapes ---------------------------------------------------------------------------------


def app_id_of(slug: str) -> int:
    known = KNOWN_APPS.get(slug)
    return known[0] if known else zlib.crc32(slug.encode()) % 900_000 + 100_000


def app_json(urls: Urls, slug: str) -> dict[str, Any]:
    app_id = app_id_of(slug)
    name = KNOWN_APPS[slug][1] if slug in KNOWN_APPS else slug
    stamp = "2018-07-30T09:30:17Z"
    return {
        "id": app_id,
        "slug": slug,
        "node_id": base64.b64encode(f"03:App{app_id}".encode()).decode(),
        "client_id": f"Iv1.{app_id:016x}",
        "owner": simple_user(urls, GITHUB_ORG),
        "name": name,
        "description": "Automate your workflow from idea to production",
        "external_url": "https://help.github.com/en/actions",
        "html_url": f"{urls.web}/apps/{slug}",
        "created_at": stamp,
        "updated_at": stamp,
        "permissions": {
            "actions": "write",
            "checks": "write",
            "contents": "write",
            "metadata": "read",
            "pull_requests": "write",
            "statuses": "write",
        },
        "events": ["check_run", "check_suite", "pull_request", "push", "workflow_dispatch"],
    }


def open_pulls_for(repo: RepoRecord, sha: str, urls: Urls) -> list[dict[str, Any]]:
    """pull-request-minimal entries for the open pull requests whose head is sha."""
    api = urls.repo(repo.full_name)
    found = []
    for issue in collab(repo).issues.values():
        pull = issue.pull
        if pull is None or issue.state != "open" or pull.head_sha != sha:
            continue
        short = {"id": repo.id, "url": api, "name": repo.name}
        found.append(
            {
                "id": issue.id,
                "number": issue.number,
                "url": f"{api}/pulls/{issue.number}",
                "head": {"ref": pull.head_ref, "sha": pull.head_sha, "repo": short},
                "base": {"ref": pull.base_ref, "sha": pull.base_sha, "repo": short},
            }
        )
    return found


def check_run_json(urls: Urls, repo: RepoRecord, run: CheckRun) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    html = f"{urls.repo_html(repo.full_name)}/runs/{run.id}"
    return {
        "id": run.id,
        "name": run.name,
        "node_id": node_id("CR", repo, run.id),
        "head_sha": run.head_sha,
        "external_id": run.external_id or "",
        "url": f"{api}/check-runs/{run.id}",
        "html_url": html,
        "details_url": run.details_url or html,
        "status": run.status,
        "conclusion": run.conclusion,
        "started_at": iso_or_none(run.started_at),
        "completed_at": iso_or_none(run.completed_at),
        "output": {
            "title": run.title,
            "summary": run.summary,
            "text": run.text,
            "annotations_count": 0,
            "annotations_url": f"{api}/check-runs/{run.id}/annotations",
        },
        "check_suite": {"id": run.suite_id},
        "app": app_json(urls, run.app),
        "pull_requests": open_pulls_for(repo, run.head_sha, urls),
    }


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


def check_suite_json(
    state: ForgeState, urls: Urls, repo: RepoRecord, suite: CheckSuite
) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    runs = [r for r in collab(repo).check_runs.values() if r.suite_id == suite.id]
    return {
        "id": suite.id,
        "node_id": node_id("CS", repo, suite.id),
        "head_branch": suite.head_branch,
        "head_sha": suite.head_sha,
        "status": suite.status,
        "conclusion": suite.conclusion,
        "url": f"{api}/check-suites/{suite.id}",
        "before": None,
        "after": suite.head_sha,
        "pull_requests": open_pulls_for(repo, suite.head_sha, urls),
        "app": app_json(urls, suite.app),
        "repository": minimal_repo(state, urls, repo),
        "created_at": iso(suite.created_at),
        "updated_at": iso(suite.updated_at),
        "head_commit": _simple_commit(repo, suite.head_sha),
        "latest_check_runs_count": len(runs),
        "check_runs_url": f"{api}/check-suites/{suite.id}/check-runs",
        "rerequestable": True,
        "runs_rerequestable": True,
    }


def status_json(
    state: ForgeState, urls: Urls, repo: RepoRecord, status: CommitStatus, simple: bool = False
) -> dict[str, Any]:
    creator = state.ensure_user(status.creator)
    data: dict[str, Any] = {
        "url": f"{urls.repo(repo.full_name)}/statuses/{status.sha}",
        "avatar_url": f"{urls.web}/avatars/u/{creator.id}?v=4",
        "id": status.id,
        "node_id": node_id("SC", repo, status.id),
        "state": status.state,
        "description": status.description,
        "target_url": status.target_url,
        "context": status.context,
        "created_at": iso(status.created_at),
        "updated_at": iso(status.updated_at),
    }
    if not simple:
        data["creator"] = user_json(state, urls, status.creator)
    return data


# --- operations -----------------------------------------------------------------------------


def add_check_suite(
    state: ForgeState,
    repo: RepoRecord,
    head_sha: str,
    head_branch: str | None = None,
    app: str = "github-actions",
) -> CheckSuite:
    with state.lock:
        stamp = now()
        suite = CheckSuite(
            id=state.next_id(),
            head_sha=head_sha,
            head_branch=head_branch,
            app=app,
            status="queued",
            conclusion=None,
            created_at=stamp,
            updated_at=stamp,
        )
        collab(repo).check_suites[suite.id] = suite
        return suite


def refresh_suite(repo: RepoRecord, suite_id: int) -> None:
    """A suite's status and conclusion follow its runs, as GitHub derives them."""
    data = collab(repo)
    suite = data.check_suites.get(suite_id)
    if suite is None:
        return
    runs = _latest_by_name([r for r in data.check_runs.values() if r.suite_id == suite_id])
    suite.updated_at = now()
    if not runs or any(r.status != "completed" for r in runs):
        started = any(r.status != "queued" for r in runs)
        suite.status, suite.conclusion = ("in_progress" if started else "queued"), None
        return
    suite.status = "completed"
    conclusions = [r.conclusion or "neutral" for r in runs]
    for worst in ("action_required", "cancelled", "timed_out", "failure"):
        if worst in conclusions:
            suite.conclusion = worst
            return
    suite.conclusion = "success" if "success" in conclusions else conclusions[0]


def add_check_run(
    state: ForgeState,
    repo: RepoRecord,
    head_sha: str,
    name: str,
    status: str = "completed",
    conclusion: str | None = None,
    *,
    suite_id: int | None = None,
    head_branch: str | None = None,
    app: str = "github-actions",
    title: str | None = None,
    summary: str | None = None,
    text: str | None = None,
    details_url: str | None = None,
    external_id: str | None = None,
    started_at: float | None = None,
    completed_at: float | None = None,
) -> CheckRun:
    if status not in RUN_STATUSES:
        raise ValueError(f"check run status must be one of {RUN_STATUSES}")
    if status == "completed" and conclusion not in CONCLUSIONS:
        raise ValueError(f"a completed check run needs a conclusion in {CONCLUSIONS}")
    if status != "completed":
        conclusion = None
    with state.lock:
        if suite_id is None:
            suite_id = add_check_suite(state, repo, head_sha, head_branch, app).id
        stamp = now()
        run = CheckRun(
            id=state.next_id(),
            suite_id=suite_id,
            head_sha=head_sha,
            name=name,
            status=status,
            conclusion=conclusion,
            started_at=started_at
            if started_at is not None
            else (None if status == "queued" else stamp),
            completed_at=completed_at
            if completed_at is not None
            else (stamp if status == "completed" else None),
            app=app,
            title=title,
            summary=summary,
            text=text,
            details_url=details_url,
            external_id=external_id,
        )
        collab(repo).check_runs[run.id] = run
        refresh_suite(repo, suite_id)
        return run


def add_status(
    state: ForgeState,
    repo: RepoRecord,
    sha: str,
    state_value: str,
    context: str = "default",
    creator: str = "octocat",
    description: str | None = None,
    target_url: str | None = None,
) -> CommitStatus:
    if state_value not in STATUS_STATES:
        raise ValueError(f"status state must be one of {STATUS_STATES}")
    with state.lock:
        stamp = now()
        status = CommitStatus(
            id=state.next_id(),
            sha=sha,
            state=state_value,
            context=context,
            creator=state.ensure_user(creator).login,
            created_at=stamp,
            updated_at=stamp,
            description=description,
            target_url=target_url,
        )
        collab(repo).statuses[status.id] = status
        return status


def _latest_by_name(runs: list[CheckRun]) -> list[CheckRun]:
    latest: dict[tuple[str, str], CheckRun] = {}
    for run in sorted(runs, key=lambda r: r.id):
        latest[(run.app, run.name)] = run
    return sorted(latest.values(), key=lambda r: r.id, reverse=True)


def latest_statuses(repo: RepoRecord, sha: str) -> list[CommitStatus]:
    latest: dict[str, CommitStatus] = {}
    for status in sorted(collab(repo).statuses.values(), key=lambda s: s.id):
        if status.sha == sha:
            latest[status.context] = status
    return sorted(latest.values(), key=lambda s: s.id, reverse=True)


def combined_state(statuses: list[CommitStatus]) -> str:
    states = {s.state for s in statuses}
    if states & {"error", "failure"}:
        return "failure"
    if not statuses or "pending" in states:
        return "pending"
    return "success"


def check_states(repo: RepoRecord, sha: str) -> dict[str, str]:
    """Name or context -> success / failure / pending, from the latest runs and statuses."""
    found: dict[str, str] = {}
    runs = [r for r in collab(repo).check_runs.values() if r.head_sha == sha]
    for run in _latest_by_name(runs):
        if run.status != "completed":
            found.setdefault(run.name, "pending")
        else:
            found.setdefault(run.name, "success" if run.conclusion in PASSING else "failure")
    for status in latest_statuses(repo, sha):
        value = {"error": "failure"}.get(status.state, status.state)
        found.setdefault(status.context, value)
    return found


# --- endpoints ------------------------------------------------------------------------------


def _commit_for(ctx: Ctx, repo: RepoRecord, status: int = 422) -> str:
    ref = ctx.params["ref"]
    sha = repo.git.resolve_commit(ref)
    if sha is None:
        raise ApiError(status, f"No commit found for SHA: {ref}")
    return sha


def _wrapped_page(ctx: Ctx, key: str, items: list[Any], shape) -> Any:
    page, per_page = ctx.page()
    data = {"total_count": len(items), key: [shape(i) for i in page_window(items, page, per_page)]}
    return ctx.paged_response(data, page, per_page, len(items))


def _filter_runs(ctx: Ctx, runs: list[CheckRun]) -> list[CheckRun]:
    q = ctx.query
    if q.get("check_name"):
        runs = [r for r in runs if r.name == q["check_name"]]
    if q.get("status"):
        runs = [r for r in runs if r.status == q["status"]]
    if q.get("app_id"):
        runs = [r for r in runs if str(app_id_of(r.app)) == q["app_id"]]
    if q.get("filter", "latest") == "latest":
        return _latest_by_name(runs)
    return sorted(runs, key=lambda r: r.id, reverse=True)


@endpoint
def list_check_runs_for_ref(ctx: Ctx):
    repo = ctx.repo()
    sha = _commit_for(ctx, repo)
    runs = _filter_runs(ctx, [r for r in collab(repo).check_runs.values() if r.head_sha == sha])
    return _wrapped_page(ctx, "check_runs", runs, lambda r: check_run_json(ctx.urls, repo, r))


@endpoint
def list_check_runs_for_suite(ctx: Ctx):
    repo = ctx.repo()
    suite_id = ctx.params["suite_id"]
    if suite_id not in collab(repo).check_suites:
        raise not_found()
    runs = [r for r in collab(repo).check_runs.values() if r.suite_id == suite_id]
    runs = _filter_runs(ctx, runs)
    return _wrapped_page(ctx, "check_runs", runs, lambda r: check_run_json(ctx.urls, repo, r))


@endpoint
def list_check_suites_for_ref(ctx: Ctx):
    repo = ctx.repo()
    sha = _commit_for(ctx, repo)
    suites = [s for s in collab(repo).check_suites.values() if s.head_sha == sha]
    if ctx.query.get("app_id"):
        suites = [s for s in suites if str(app_id_of(s.app)) == ctx.query["app_id"]]
    if ctx.query.get("check_name"):
        names = {
            r.suite_id
            for r in collab(repo).check_runs.values()
            if r.name == ctx.query["check_name"]
        }
        suites = [s for s in suites if s.id in names]
    suites.sort(key=lambda s: s.id, reverse=True)
    return _wrapped_page(
        ctx, "check_suites", suites, lambda s: check_suite_json(ctx.state, ctx.urls, repo, s)
    )


@endpoint
def get_check_run(ctx: Ctx):
    repo = ctx.repo()
    run = collab(repo).check_runs.get(ctx.params["check_run_id"])
    if run is None:
        raise not_found()
    return json_response(check_run_json(ctx.urls, repo, run))


@endpoint
def list_annotations(ctx: Ctx):
    repo = ctx.repo()
    if ctx.params["check_run_id"] not in collab(repo).check_runs:
        raise not_found()
    return json_response([])


@endpoint
def get_check_suite(ctx: Ctx):
    repo = ctx.repo()
    suite = collab(repo).check_suites.get(ctx.params["suite_id"])
    if suite is None:
        raise not_found()
    return json_response(check_suite_json(ctx.state, ctx.urls, repo, suite))


@endpoint
def combined_status(ctx: Ctx):
    repo = ctx.repo()
    sha = _commit_for(ctx, repo, status=404)
    statuses = latest_statuses(repo, sha)
    page, per_page = ctx.page()
    api = ctx.urls.repo(repo.full_name)
    data = {
        "state": combined_state(statuses),
        "statuses": [
            status_json(ctx.state, ctx.urls, repo, s, simple=True)
            for s in page_window(statuses, page, per_page)
        ],
        "sha": sha,
        "total_count": len(statuses),
        "repository": minimal_repo(ctx.state, ctx.urls, repo),
        "commit_url": f"{api}/commits/{sha}",
        "url": f"{api}/commits/{sha}/status",
    }
    return ctx.paged_response(data, page, per_page, len(statuses))


@endpoint
def list_statuses(ctx: Ctx):
    repo = ctx.repo()
    sha = _commit_for(ctx, repo, status=404)
    statuses = sorted(
        (s for s in collab(repo).statuses.values() if s.sha == sha),
        key=lambda s: s.id,
        reverse=True,
    )
    return ctx.paginate(statuses, lambda s: status_json(ctx.state, ctx.urls, repo, s))


@endpoint
def create_status(ctx: Ctx):
    repo = ctx.repo(write=True)
    body = ctx.json()
    sha = repo.git.resolve_commit(ctx.params["sha"])
    if sha is None:
        raise ApiError(422, f"No commit found for SHA: {ctx.params['sha']}")
    value = body.get("state")
    if value not in STATUS_STATES:
        raise validation_failed(
            {
                "resource": "Status",
                "code": "custom",
                "field": "state",
                "message": "state is not included in the list",
            }
        )
    context = body.get("context") or "default"
    for name in ("context", "description", "target_url"):
        if body.get(name) is not None and not isinstance(body[name], str):
            raise ApiError(422, f"Invalid request.\n\nFor 'properties/{name}', is not a string.")
    status = add_status(
        ctx.state,
        repo,
        sha,
        value,
        context,
        actor_login(ctx.principal),
        body.get("description"),
        body.get("target_url"),
    )
    data = status_json(ctx.state, ctx.urls, repo, status)
    return json_response(data, status=201, headers={"location": data["url"]})


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}"
    return [
        Route(
            f"{base}/commits/{{ref:refpath}}/check-runs", list_check_runs_for_ref, methods=["GET"]
        ),
        Route(
            f"{base}/commits/{{ref:refpath}}/check-suites",
            list_check_suites_for_ref,
            methods=["GET"],
        ),
        Route(f"{base}/commits/{{ref:refpath}}/status", combined_status, methods=["GET"]),
        Route(f"{base}/commits/{{ref:refpath}}/statuses", list_statuses, methods=["GET"]),
        Route(f"{base}/statuses/{{sha}}", create_status, methods=["POST"]),
        Route(f"{base}/check-runs/{{check_run_id:int}}", get_check_run, methods=["GET"]),
        Route(
            f"{base}/check-runs/{{check_run_id:int}}/annotations",
            list_annotations,
            methods=["GET"],
        ),
        Route(f"{base}/check-suites/{{suite_id:int}}", get_check_suite, methods=["GET"]),
        Route(
            f"{base}/check-suites/{{suite_id:int}}/check-runs",
            list_check_runs_for_suite,
            methods=["GET"],
        ),
    ]
