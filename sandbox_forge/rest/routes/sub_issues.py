"""Sub-issues and "blocked by" dependencies, by GitHub's REST description.

Both link issues by their id (not number) within one owner's repositories; the links are
kept in stores/sub_issues.py. GitHub's limits are modelled: one parent per issue (unless
`replace_parent`), no issue its own ancestor, 100 sub-issues per parent, 50 blockers.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import (
    ApiError,
    invalid_request,
    json_response,
    missing_field,
    not_found,
    validation_failed,
)
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import check_repo
from sandbox_forge.rest.shapes.issues import issue_json
from sandbox_forge.stores.collab import Issue
from sandbox_forge.stores.lookups import get_issue
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState
from sandbox_forge.stores.sub_issues import (
    BLOCKED_BY,
    MAX_BLOCKERS,
    MAX_SUB_ISSUES,
    SUB_ISSUES,
    find_by_id,
    links,
    parent_of,
)


def _optional_int(body: dict[str, Any], name: str) -> int | None:
    value = body.get(name)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise invalid_request(f"For 'properties/{name}', {value!r} is not an integer.")
    return value


def _int_field(body: dict[str, Any], name: str) -> int:
    value = _optional_int(body, name)
    if value is None:
        raise missing_field(name)
    return value


def _linked(ctx: Ctx, issue_id: int) -> tuple[RepoRecord, Issue]:
    """The owner's issue with this id, 404 when missing or in a repository the caller
    cannot read (so a link never reveals a private issue)."""
    found = find_by_id(ctx.state, ctx.params["owner"], issue_id)
    if found is None:
        raise not_found()
    check_repo(ctx.principal, found[0], False, None)
    return found


def _readable(ctx: Ctx, ids: list[int]) -> list[tuple[RepoRecord, Issue]]:
    shown = []
    for issue_id in ids:
        try:
            shown.append(_linked(ctx, issue_id))
        except ApiError:
            continue
    return shown


def _issues_page(ctx: Ctx, ids: list[int]) -> Response:
    shaped = _readable(ctx, ids)
    return ctx.paginate(shaped, lambda pair: issue_json(ctx.state, ctx.urls, *pair))


# --- sub-issues ------------------------------------------------------------------------------


@endpoint
def list_sub_issues(ctx: Ctx) -> Response:
    repo = ctx.repo()
    parent = get_issue(repo, ctx.params["number"])
    return _issues_page(ctx, list(links(ctx.state, SUB_ISSUES).get(parent.id, [])))


@endpoint
def get_parent(ctx: Ctx) -> Response:
    repo = ctx.repo()
    child = get_issue(repo, ctx.params["number"])
    parent = parent_of(ctx.state, child.id)
    if parent is None:
        raise not_found()
    return json_response(issue_json(ctx.state, ctx.urls, *_linked(ctx, parent)))


def _check_not_ancestor(state: ForgeState, parent_id: int, child_id: int) -> None:
    seen: int | None = parent_id
    while seen is not None:
        if seen == child_id:
            raise validation_failed(
                {"resource": "Issue", "code": "custom", "message": "Sub-issue would form a cycle"}
            )
        seen = parent_of(state, seen)


@endpoint
def add_sub_issue(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    parent = get_issue(repo, ctx.params["number"])
    body = ctx.json()
    child_id = _int_field(body, "sub_issue_id")
    replace = body.get("replace_parent", False)
    if not isinstance(replace, bool):
        raise invalid_request(f"For 'properties/replace_parent', {replace!r} is not a boolean.")
    with ctx.state.lock:
        _, child = _linked(ctx, child_id)
        _check_not_ancestor(ctx.state, parent.id, child.id)
        table = links(ctx.state, SUB_ISSUES)
        current = parent_of(ctx.state, child.id)
        if current is not None and not replace:
            raise validation_failed(
                {"resource": "Issue", "code": "custom", "message": "Issue already has a parent"}
            )
        if current is not None:
            table[current].remove(child.id)
        children = table.setdefault(parent.id, [])
        if len(children) >= MAX_SUB_ISSUES:
            raise validation_failed(
                {"resource": "Issue", "code": "custom", "message": "Too many sub-issues"}
            )
        children.append(child.id)
    data = issue_json(ctx.state, ctx.urls, repo, parent)
    return json_response(data, status=201, headers={"location": data["url"]})


@endpoint
def remove_sub_issue(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    parent = get_issue(repo, ctx.params["number"])
    child_id = _int_field(ctx.json(), "sub_issue_id")
    with ctx.state.lock:
        children = links(ctx.state, SUB_ISSUES).get(parent.id, [])
        if child_id not in children:
            raise not_found()
        children.remove(child_id)
    return json_response(issue_json(ctx.state, ctx.urls, repo, parent))


@endpoint
def reprioritize_sub_issue(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    parent = get_issue(repo, ctx.params["number"])
    body = ctx.json()
    child_id = _int_field(body, "sub_issue_id")
    after, before = _optional_int(body, "after_id"), _optional_int(body, "before_id")
    if (after is None) == (before is None):
        # This operation's 422 is GitHub's validation-error-simple: errors are strings.
        raise ApiError(422, "Validation Failed", errors=["Give after_id or before_id"])
    with ctx.state.lock:
        children = links(ctx.state, SUB_ISSUES).get(parent.id, [])
        anchor = after if after is not None else before
        if child_id not in children or anchor not in children or anchor == child_id:
            raise not_found()
        children.remove(child_id)
        at = children.index(anchor)
        children.insert(at + 1 if after is not None else at, child_id)
    return json_response(issue_json(ctx.state, ctx.urls, repo, parent))


# --- dependencies ----------------------------------------------------------------------------


@endpoint
def list_blocked_by(ctx: Ctx) -> Response:
    issue = get_issue(ctx.repo(), ctx.params["number"])
    return _issues_page(ctx, list(links(ctx.state, BLOCKED_BY).get(issue.id, [])))


@endpoint
def list_blocking(ctx: Ctx) -> Response:
    issue = get_issue(ctx.repo(), ctx.params["number"])
    table = links(ctx.state, BLOCKED_BY)
    return _issues_page(ctx, [i for i, blockers in table.items() if issue.id in blockers])


@endpoint
def add_blocked_by(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    issue = get_issue(repo, ctx.params["number"])
    blocker_id = _int_field(ctx.json(), "issue_id")
    with ctx.state.lock:
        blocker_repo, blocker = _linked(ctx, blocker_id)
        blockers = links(ctx.state, BLOCKED_BY).setdefault(issue.id, [])
        if blocker.id == issue.id or issue.id in links(ctx.state, BLOCKED_BY).get(blocker.id, []):
            raise validation_failed(
                {"resource": "Issue", "code": "custom", "message": "Dependency would form a cycle"}
            )
        if len(blockers) >= MAX_BLOCKERS:
            raise validation_failed(
                {"resource": "Issue", "code": "custom", "message": "Too many dependencies"}
            )
        if blocker.id not in blockers:
            blockers.append(blocker.id)
    data = issue_json(ctx.state, ctx.urls, blocker_repo, blocker)
    return json_response(data, status=201, headers={"location": data["url"]})


@endpoint
def remove_blocked_by(ctx: Ctx) -> Response:
    repo = ctx.repo(write=True)
    issue = get_issue(repo, ctx.params["number"])
    blocker_id = ctx.params["issue_id"]
    with ctx.state.lock:
        blockers = links(ctx.state, BLOCKED_BY).get(issue.id, [])
        if blocker_id not in blockers:
            raise not_found()
        blockers.remove(blocker_id)
    return json_response(issue_json(ctx.state, ctx.urls, *_linked(ctx, blocker_id)))


def routes(state: ForgeState) -> list[Route]:
    issue = "/repos/{owner}/{repo}/issues/{number:int}"
    return [
        Route(f"{issue}/sub_issues", list_sub_issues, methods=["GET"]),
        Route(f"{issue}/sub_issues", add_sub_issue, methods=["POST"]),
        Route(f"{issue}/sub_issue", remove_sub_issue, methods=["DELETE"]),
        Route(f"{issue}/sub_issues/priority", reprioritize_sub_issue, methods=["PATCH"]),
        Route(f"{issue}/parent", get_parent, methods=["GET"]),
        Route(f"{issue}/dependencies/blocked_by", list_blocked_by, methods=["GET"]),
        Route(f"{issue}/dependencies/blocked_by", add_blocked_by, methods=["POST"]),
        Route(
            f"{issue}/dependencies/blocked_by/{{issue_id:int}}",
            remove_blocked_by,
            methods=["DELETE"],
        ),
        Route(f"{issue}/dependencies/blocking", list_blocking, methods=["GET"]),
    ]
