"""Issues, issue comments, and `/search/issues` (pull requests are issues too).

Shapes are in rest/shapes/issues.py, record changes in stores/issues.py, the search in
issues_search.py and labels in issue_labels.py beside this module; their public names are
re-exported here for existing callers.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, json_response, missing_field, validation_failed
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.collab_api import created_response, found_or_404, updated_since
from sandbox_forge.rest.routes.issue_meta import apply_type
from sandbox_forge.rest.routes.issues_search import search_issues
from sandbox_forge.rest.shapes.issues import comment_count, comment_json, issue_json
from sandbox_forge.stores import copilot
from sandbox_forge.stores.collab import Issue, IssueComment, collab
from sandbox_forge.stores.issues import add_comment, create_issue, set_state
from sandbox_forge.stores.lookups import actor_login, ensure_label, get_issue, now, sync_open_count
from sandbox_forge.stores.milestones import milestone_field
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

STATE_REASONS = ("completed", "not_planned", "reopened", "duplicate")
MAX_TITLE = 256


# --- validation -----------------------------------------------------------------------------


def label_names(value: Any, field: str = "labels") -> list[str]:
    """Label names from strings or {"name": …} objects, as GitHub accepts both."""
    if not isinstance(value, list):
        raise ApiError(
            422, f"Invalid request.\n\nFor 'properties/{field}', {value!r} is not an array."
        )
    names: list[str] = []
    for item in value:
        name = item.get("name") if isinstance(item, dict) else item
        if not isinstance(name, str) or not name.strip():
            raise validation_failed({"resource": "Label", "code": "invalid", "field": "name"})
        if name.lower() not in (n.lower() for n in names):
            names.append(name.strip())
    return names


def assignee_logins(state: ForgeState, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ApiError(
            422, f"Invalid request.\n\nFor 'properties/assignees', {value!r} is not an array."
        )
    logins = []
    for login in value:
        user = state.user(login)
        if user is None:
            raise validation_failed(
                {"resource": "Issue", "field": "assignees", "code": "invalid", "value": login}
            )
        if user.login not in logins:
            logins.append(user.login)
    return logins


def only_assignable(ctx: Ctx, repo: RepoRecord, value: Any) -> list[str]:
    """Assignee logins; Copilot's coding agent only where Copilot is enabled."""
    if isinstance(value, list):
        agent = [v for v in value if isinstance(v, str) and copilot.is_agent(v)]
        if agent and not copilot.enabled(ctx.state, repo):
            raise validation_failed(
                {"resource": "Issue", "field": "assignees", "code": "invalid", "value": agent[0]}
            )
        value = [copilot.AGENT if isinstance(v, str) and copilot.is_agent(v) else v for v in value]
    return assignee_logins(ctx.state, value)


def check_title(value: Any) -> str:
    if value is None:
        raise missing_field("title")
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ApiError(
            422, f"Invalid request.\n\nFor 'properties/title', {value!r} is not a string."
        )
    if not value.strip():
        raise validation_failed({"resource": "Issue", "code": "missing_field", "field": "title"})
    return value


def check_body(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ApiError(
            422, f"Invalid request.\n\nFor 'properties/body', {value!r} is not a string."
        )
    return value


# --- issues ---------------------------------------------------------------------------------


def _filter_issues(ctx: Ctx, repo: RepoRecord, issues: list[Issue]) -> list[Issue]:
    q = ctx.query
    wanted_state = q.get("state", "open")
    if wanted_state not in ("open", "closed", "all"):
        raise validation_failed({"resource": "Issue", "field": "state", "code": "invalid"})
    found = [i for i in issues if wanted_state == "all" or i.state == wanted_state]
    if q.get("labels"):
        wanted = {name.strip().lower() for name in q["labels"].split(",") if name.strip()}
        found = [i for i in found if wanted <= {name.lower() for name in i.labels}]
    creator = q.get("creator")
    if creator:
        found = [i for i in found if i.user.lower() == creator.lower()]
    assignee = q.get("assignee")
    if assignee == "none":
        found = [i for i in found if not i.assignees]
    elif assignee == "*":
        found = [i for i in found if i.assignees]
    elif assignee:
        found = [i for i in found if assignee.lower() in (a.lower() for a in i.assignees)]
    found = updated_since(found, q.get("since"))
    return _sorted(repo, found, q.get("sort", "created"), q.get("direction", "desc"))


def _sorted(repo: RepoRecord, items: list[Issue], sort: str, direction: str) -> list[Issue]:
    def key(issue: Issue) -> tuple[float, int]:
        if sort == "updated":
            return issue.updated_at, issue.number
        if sort == "comments":
            return comment_count(repo, issue.number), issue.number
        return issue.created_at, issue.number

    return sorted(items, key=key, reverse=direction != "asc")


@endpoint
def list_issues(ctx: Ctx):
    repo = ctx.repo()
    issues = _filter_issues(ctx, repo, list(collab(repo).issues.values()))
    return ctx.paginate(issues, lambda i: issue_json(ctx.state, ctx.urls, repo, i))


@endpoint
def create_issue_endpoint(ctx: Ctx):
    repo = ctx.repo(write=True)
    body = ctx.json()
    title = check_title(body.get("title"))
    text = check_body(body.get("body"))
    labels = label_names(body["labels"]) if body.get("labels") is not None else []
    assignees = only_assignable(ctx, repo, body.get("assignees") or [])
    if isinstance(body.get("assignee"), str):
        assignees = only_assignable(ctx, repo, [body["assignee"], *assignees])
    issue = create_issue(
        ctx.state, repo, actor_login(ctx.principal), title, text, labels, assignees
    )
    data = issue_json(ctx.state, ctx.urls, repo, issue)
    return created_response(data)


@endpoint
def get_issue_endpoint(ctx: Ctx):
    repo = ctx.repo()
    issue = get_issue(repo, ctx.params["number"])
    return json_response(issue_json(ctx.state, ctx.urls, repo, issue))


def apply_issue_update(ctx: Ctx, repo: RepoRecord, issue: Issue, body: dict[str, Any]) -> None:
    """The fields issues and pull requests share: title, body, state, labels, assignees,
    milestone."""
    actor = actor_login(ctx.principal)
    if "title" in body:
        issue.title = check_title(body["title"])
    if "body" in body:
        issue.body = check_body(body["body"])
    _apply_state(issue, body, actor)
    if "labels" in body and body["labels"] is not None:
        issue.labels = [ensure_label(ctx.state, repo, n).name for n in label_names(body["labels"])]
    if "assignees" in body and body["assignees"] is not None:
        issue.assignees = only_assignable(ctx, repo, body["assignees"])
    elif "assignee" in body:
        value = body["assignee"]
        issue.assignees = only_assignable(ctx, repo, [value]) if value else []
    if "milestone" in body:
        issue.milestone = milestone_field(repo, body["milestone"])
    if "type" in body and issue.pull is None:
        apply_type(ctx, repo, issue, body["type"])
    issue.updated_at = now()
    sync_open_count(repo)


def _apply_state(issue: Issue, body: dict[str, Any], actor: str) -> None:
    """state and state_reason; a merged pull request cannot reopen."""
    reason = body.get("state_reason")
    if reason is not None and reason not in STATE_REASONS:
        raise validation_failed({"resource": "Issue", "field": "state_reason", "code": "invalid"})
    if "state" in body:
        value = body["state"]
        if value not in ("open", "closed"):
            raise validation_failed({"resource": "Issue", "field": "state", "code": "invalid"})
        if value == "open" and issue.pull is not None and issue.pull.merged:
            raise validation_failed(
                {
                    "resource": "PullRequest",
                    "code": "custom",
                    "message": "state cannot be changed. The pull request has already been merged.",
                }
            )
        set_state(issue, value, actor, reason if value == "closed" else None)
    elif reason is not None and issue.state == "closed":
        issue.state_reason = reason


@endpoint
def update_issue(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_issue(repo, ctx.params["number"])
    body = ctx.json()
    with ctx.state.lock:
        apply_issue_update(ctx, repo, issue, body)
    return json_response(issue_json(ctx.state, ctx.urls, repo, issue))


# --- comments -------------------------------------------------------------------------------


@endpoint
def list_comments(ctx: Ctx):
    repo = ctx.repo()
    issue = get_issue(repo, ctx.params["number"])
    comments = sorted(
        (c for c in collab(repo).issue_comments.values() if c.number == issue.number),
        key=lambda c: (c.created_at, c.id),
    )
    comments = updated_since(comments, ctx.query.get("since"))
    return ctx.paginate(comments, lambda c: comment_json(ctx.state, ctx.urls, repo, c))


def _comment_body(body: dict[str, Any]) -> str:
    text = check_body(body.get("body"))
    if text is None:
        raise missing_field("body")
    if not text.strip():
        raise validation_failed(
            {"resource": "IssueComment", "code": "missing_field", "field": "body"}
        )
    return text


@endpoint
def create_comment(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_issue(repo, ctx.params["number"])
    text = _comment_body(ctx.json())
    comment = add_comment(ctx.state, repo, issue, actor_login(ctx.principal), text)
    data = comment_json(ctx.state, ctx.urls, repo, comment)
    return created_response(data)


def _issue_comment(repo: RepoRecord, raw: str) -> IssueComment:
    return found_or_404(collab(repo).issue_comments, int(raw))


@endpoint
def get_comment(ctx: Ctx):
    repo = ctx.repo()
    comment = _issue_comment(repo, ctx.params["comment_id"])
    return json_response(comment_json(ctx.state, ctx.urls, repo, comment))


@endpoint
def update_comment(ctx: Ctx):
    repo = ctx.repo(write=True)
    comment = _issue_comment(repo, ctx.params["comment_id"])
    with ctx.state.lock:
        comment.body = _comment_body(ctx.json())
        comment.updated_at = now()
    return json_response(comment_json(ctx.state, ctx.urls, repo, comment))


@endpoint
def delete_comment(ctx: Ctx):
    repo = ctx.repo(write=True)
    comment = _issue_comment(repo, ctx.params["comment_id"])
    with ctx.state.lock:
        collab(repo).issue_comments.pop(comment.id, None)
    return Response(status_code=204)


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}"
    issue = f"{base}/issues/{{number:int}}"
    return [
        Route(f"{base}/issues", list_issues, methods=["GET"]),
        Route(f"{base}/issues", create_issue_endpoint, methods=["POST"]),
        Route(issue, get_issue_endpoint, methods=["GET"]),
        Route(issue, update_issue, methods=["PATCH"]),
        Route(f"{issue}/comments", list_comments, methods=["GET"]),
        Route(f"{issue}/comments", create_comment, methods=["POST"]),
        Route(f"{base}/issues/comments/{{comment_id:int}}", get_comment, methods=["GET"]),
        Route(f"{base}/issues/comments/{{comment_id:int}}", update_comment, methods=["PATCH"]),
        Route(f"{base}/issues/comments/{{comment_id:int}}", delete_comment, methods=["DELETE"]),
        Route("/search/issues", search_issues, methods=["GET"]),
    ]


__all__ = [
    "MAX_TITLE",
    "STATE_REASONS",
    "add_comment",
    "apply_issue_update",
    "assignee_logins",
    "check_body",
    "check_title",
    "comment_count",
    "comment_json",
    "create_issue",
    "issue_json",
    "label_names",
    "routes",
    "search_issues",
    "set_state",
]
