"""Check suites, check runs and commit statuses (combined status too): the endpoints.

Shapes are in rest/shapes/checks.py, creation and derived state in stores/checks.py; their
public names are re-exported here for existing callers.
"""

from __future__ import annotations

from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, json_response, not_found, validation_failed
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.collab_api import created_response, found_or_404, wrapped_page
from sandbox_forge.rest.shapes.checks import (
    GITHUB_ORG,
    KNOWN_APPS,
    app_id_of,
    app_json,
    check_run_json,
    check_suite_json,
    open_pulls_for,
    status_json,
)
from sandbox_forge.rest.shapes.users_repos import minimal_repo
from sandbox_forge.stores.checks import (
    CONCLUSIONS,
    PASSING,
    RUN_STATUSES,
    STATUS_STATES,
    add_check_run,
    add_check_suite,
    add_status,
    check_states,
    combined_state,
    latest_by_name,
    latest_statuses,
    refresh_suite,
)
from sandbox_forge.stores.collab import CheckRun, collab
from sandbox_forge.stores.lookups import actor_login, page_window
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


def _commit_for(ctx: Ctx, repo: RepoRecord, status: int = 422) -> str:
    ref = ctx.params["ref"]
    sha = repo.git.resolve_commit(ref)
    if sha is None:
        raise ApiError(status, f"No commit found for SHA: {ref}")
    return sha


def _filter_runs(ctx: Ctx, runs: list[CheckRun]) -> list[CheckRun]:
    q = ctx.query
    if q.get("check_name"):
        runs = [r for r in runs if r.name == q["check_name"]]
    if q.get("status"):
        runs = [r for r in runs if r.status == q["status"]]
    if q.get("app_id"):
        runs = [r for r in runs if str(app_id_of(r.app)) == q["app_id"]]
    if q.get("filter", "latest") == "latest":
        return latest_by_name(runs)
    return sorted(runs, key=lambda r: r.id, reverse=True)


@endpoint
def list_check_runs_for_ref(ctx: Ctx):
    repo = ctx.repo()
    sha = _commit_for(ctx, repo)
    runs = _filter_runs(ctx, [r for r in collab(repo).check_runs.values() if r.head_sha == sha])
    return wrapped_page(ctx, "check_runs", runs, lambda r: check_run_json(ctx.urls, repo, r))


@endpoint
def list_check_runs_for_suite(ctx: Ctx):
    repo = ctx.repo()
    suite_id = ctx.params["suite_id"]
    if suite_id not in collab(repo).check_suites:
        raise not_found()
    runs = [r for r in collab(repo).check_runs.values() if r.suite_id == suite_id]
    runs = _filter_runs(ctx, runs)
    return wrapped_page(ctx, "check_runs", runs, lambda r: check_run_json(ctx.urls, repo, r))


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
    return wrapped_page(
        ctx, "check_suites", suites, lambda s: check_suite_json(ctx.state, ctx.urls, repo, s)
    )


@endpoint
def get_check_run(ctx: Ctx):
    repo = ctx.repo()
    run = found_or_404(collab(repo).check_runs, ctx.params["check_run_id"])
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
    suite = found_or_404(collab(repo).check_suites, ctx.params["suite_id"])
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
    return created_response(data)


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


__all__ = [
    "CONCLUSIONS",
    "GITHUB_ORG",
    "KNOWN_APPS",
    "PASSING",
    "RUN_STATUSES",
    "STATUS_STATES",
    "add_check_run",
    "add_check_suite",
    "add_status",
    "app_id_of",
    "app_json",
    "check_run_json",
    "check_states",
    "check_suite_json",
    "combined_state",
    "latest_statuses",
    "open_pulls_for",
    "refresh_suite",
    "routes",
    "status_json",
]
