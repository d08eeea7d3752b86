"""Admin routes for collaboration data, under /_sandbox/ with the admin token.

Each maps a JSON body onto the in-process helper of the same name in collab_seeding
(the app must not import the demo, so not seed_collab, which gathers both):

  POST   /_sandbox/repos/{o}/{r}/issues                   create_issue
  POST   /_sandbox/repos/{o}/{r}/issues/{n}/comments      add_issue_comment
  POST   /_sandbox/repos/{o}/{r}/pulls                    create_pull
  POST   /_sandbox/repos/{o}/{r}/pulls/{n}/reviews        add_review
  POST   /_sandbox/repos/{o}/{r}/pulls/{n}/threads        add_review_thread
  PATCH  /_sandbox/repos/{o}/{r}/threads/{thread_id}      resolve_review_thread
  GET    /_sandbox/repos/{o}/{r}/pulls/{n}/conflicts      pull_conflicts
  PUT    /_sandbox/repos/{o}/{r}/pulls/{n}/mergeability   set_mergeability_delay (one PR)
  PATCH  /_sandbox/collab/settings                        set_mergeability_delay (forge-wide)
  POST   /_sandbox/repos/{o}/{r}/check-runs               add_check_run
  POST   /_sandbox/repos/{o}/{r}/statuses/{ref}           add_status
  POST   /_sandbox/repos/{o}/{r}/workflows                add_workflow
  POST   /_sandbox/repos/{o}/{r}/actions/runs             add_workflow_run
  PATCH  /_sandbox/repos/{o}/{r}/actions/runs/{id}        complete_workflow_run
  PUT    /_sandbox/repos/{o}/{r}/branches/{b}/protection  set_branch_protection
  DELETE /_sandbox/repos/{o}/{r}/branches/{b}/protection  clear_branch_protection
  GET    /_sandbox/collab/demo                            what seed_demo_collab made
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from sandbox_forge.admin import collab_seeding as helpers
from sandbox_forge.admin.routes import admin_route
from sandbox_forge.kernel.errors import ApiError
from sandbox_forge.stores.collab import settings
from sandbox_forge.stores.state import ForgeState


def _name(request: Request) -> str:
    return f"{request.path_params['owner']}/{request.path_params['repo']}"


def _pick(body: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: body[name] for name in names if name in body}


def _issue(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    return helpers.create_issue(
        state,
        _name(request),
        body["title"],
        **_pick(body, "user", "body", "labels", "assignees", "state", "state_reason"),
    )


def _issue_comment(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    return helpers.add_issue_comment(
        state, _name(request), request.path_params["number"], body["body"], **_pick(body, "user")
    )


def _pull(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    return helpers.create_pull(
        state,
        _name(request),
        body["head"],
        body["base"],
        body["title"],
        **_pick(body, "user", "body", "draft"),
    )


def _review(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    return helpers.add_review(
        state,
        _name(request),
        request.path_params["number"],
        user=body["user"],
        **_pick(body, "event", "body", "comments", "commit_id"),
    )


def _thread(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    return helpers.add_review_thread(
        state,
        _name(request),
        request.path_params["number"],
        body["path"],
        body.get("line"),
        body["body"],
        **_pick(body, "user", "side", "replies", "resolved", "resolved_by"),
    )


def _resolve(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    raw = request.path_params["thread_id"]
    thread_id: str | int = int(raw) if raw.isdigit() else raw
    return helpers.resolve_review_thread(
        state, _name(request), thread_id, bool(body.get("resolved", True)), **_pick(body, "user")
    )


def _conflicts(state: ForgeState, _body: dict[str, Any], request: Request) -> Any:
    return helpers.pull_conflicts(state, _name(request), request.path_params["number"])


def _pull_delay(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    gets = int(body["delay"])
    helpers.set_mergeability_delay(state, gets, _name(request), request.path_params["number"])
    return {"delay": gets}


def _settings(state: ForgeState, body: dict[str, Any], _request: Request) -> Any:
    if "mergeability_delay" in body:
        helpers.set_mergeability_delay(state, int(body["mergeability_delay"]))
    return dict(settings(state))


def _check_run(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    ref = body.get("head_sha") or body.get("ref")
    if not ref:
        raise ValueError("head_sha or ref is required")
    return helpers.add_check_run(
        state,
        _name(request),
        ref,
        body["name"],
        **_pick(body, "status", "conclusion", "title", "summary", "text", "app", "details_url"),
    )


def _status(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    return helpers.add_status(
        state,
        _name(request),
        request.path_params["ref"],
        body["state"],
        **_pick(body, "context", "description", "target_url", "user"),
    )


def _workflow(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    return helpers.add_workflow(state, _name(request), body["name"], body["path"])


def _run(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    return helpers.add_workflow_run(
        state,
        _name(request),
        body["workflow"],
        **_pick(
            body,
            "ref",
            "head_sha",
            "head_branch",
            "event",
            "status",
            "conclusion",
            "actor",
            "display_title",
            "jobs",
        ),
    )


def _complete(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    return helpers.complete_workflow_run(
        state, _name(request), request.path_params["run_id"], **_pick(body, "conclusion", "jobs")
    )


def _protect(state: ForgeState, body: dict[str, Any], request: Request) -> Any:
    return helpers.set_branch_protection(state, _name(request), request.path_params["branch"], body)


def _unprotect(state: ForgeState, _body: dict[str, Any], request: Request) -> None:
    if not helpers.clear_branch_protection(state, _name(request), request.path_params["branch"]):
        raise ApiError(404, "Branch not protected")


def _demo(state: ForgeState, _body: dict[str, Any], _request: Request) -> Any:
    summary = state.extensions.get("collab_demo")
    if summary is None:
        raise ApiError(404, "The collaboration demo was not seeded")
    return summary


def routes(state: ForgeState) -> list[Route]:
    repo = "/repos/{owner}/{repo}"
    pull = f"{repo}/pulls/{{number:int}}"
    return [
        admin_route(f"{repo}/issues", _issue, ["POST"], status=201),
        admin_route(f"{repo}/issues/{{number:int}}/comments", _issue_comment, ["POST"], status=201),
        admin_route(f"{repo}/pulls", _pull, ["POST"], status=201),
        admin_route(f"{pull}/reviews", _review, ["POST"], status=201),
        admin_route(f"{pull}/threads", _thread, ["POST"], status=201),
        admin_route(f"{pull}/conflicts", _conflicts, ["GET"]),
        admin_route(f"{pull}/mergeability", _pull_delay, ["PUT"]),
        admin_route(f"{repo}/threads/{{thread_id}}", _resolve, ["PATCH"]),
        admin_route("/collab/settings", _settings, ["GET", "PATCH"]),
        admin_route("/collab/demo", _demo, ["GET"]),
        admin_route(f"{repo}/check-runs", _check_run, ["POST"], status=201),
        admin_route(f"{repo}/statuses/{{ref:refpath}}", _status, ["POST"], status=201),
        admin_route(f"{repo}/workflows", _workflow, ["POST"], status=201),
        admin_route(f"{repo}/actions/runs", _run, ["POST"], status=201),
        admin_route(f"{repo}/actions/runs/{{run_id:int}}", _complete, ["PATCH"]),
        admin_route(f"{repo}/branches/{{branch:refpath}}/protection", _protect, ["PUT"]),
        admin_route(f"{repo}/branches/{{branch:refpath}}/protection", _unprotect, ["DELETE"]),
    ]
