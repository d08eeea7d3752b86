"""Assignees, with Copilot: add and remove an issue's assignees and check who can be assigned,
by GitHub's OpenAPI description and its documentation on assigning issues to Copilot.

POST /repos/{o}/{r}/issues/{n}/assignees takes logins, or objects carrying a login with
rationale, confidence and suggest (a suggestion is kept for a human, not applied), and an
`agent_assignment` (target_repo, base_branch, custom_instructions, custom_agent, model)
used when Copilot's coding agent is among them. Copilot is assignable only where enabled:
elsewhere the check answers 404 and an assignment is a 422 naming the login. A caller
without push access has its assignees silently ignored, as documented. Assigning the agent
starts a simulated session (stores/copilot_agent.py): a `copilot/fix-N` branch and a draft
pull request by the Copilot bot that closes the issue.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import (
    ApiError,
    invalid_request,
    json_response,
    not_found,
    validation_failed,
)
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.shapes.issues import issue_json
from sandbox_forge.stores import copilot
from sandbox_forge.stores.collab import Issue
from sandbox_forge.stores.copilot_agent import start_session
from sandbox_forge.stores.lookups import get_issue, now
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

MAX_ASSIGNEES = 10
AGENT_FIELDS = ("target_repo", "base_branch", "custom_instructions", "custom_agent", "model")
CONFIDENCE = ("low", "medium", "high")


def _invalid_assignee(login: str) -> ApiError:
    return validation_failed(
        {"resource": "Issue", "field": "assignees", "code": "invalid", "value": login}
    )


def _entries(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Each assignee as {"login": …, intent…}, from strings or objects."""
    value = body.get("assignees")
    if not isinstance(value, list):
        raise invalid_request(f"For 'properties/assignees', {value!r} is not an array.")
    found = []
    for item in value:
        entry = {"login": item} if isinstance(item, str) else item
        if not isinstance(entry, dict) or not isinstance(entry.get("login"), str):
            raise invalid_request("For 'items', each assignee is a login or has a login.")
        if "rationale" in entry and not isinstance(entry["rationale"], str):
            raise invalid_request("For 'properties/rationale', the value is not a string.")
        if "suggest" in entry and not isinstance(entry["suggest"], bool):
            raise invalid_request("For 'properties/suggest', the value is not a boolean.")
        if "confidence" in entry and entry["confidence"] not in CONFIDENCE:
            raise invalid_request("For 'properties/confidence', not low, medium or high.")
        found.append(entry)
    return found


def _agent_assignment(ctx: Ctx, repo: RepoRecord, body: dict[str, Any]) -> dict[str, Any]:
    raw = body.get("agent_assignment") or {}
    if not isinstance(raw, dict) or any(not isinstance(raw.get(k, ""), str) for k in raw):
        raise invalid_request("For 'properties/agent_assignment', values are strings.")
    task = {k: raw[k] for k in AGENT_FIELDS if raw.get(k)}
    target = repo
    if "target_repo" in task:
        owner, _, name = task["target_repo"].partition("/")
        found = ctx.state.repo(owner, name)
        if found is None or not copilot.enabled(ctx.state, found):
            raise _invalid_assignee("copilot-swe-agent[bot]")
        target = found
    branch = task.get("base_branch")
    if branch and target.git.read_ref(f"refs/heads/{branch}") is None:
        raise validation_failed(
            {"resource": "Issue", "field": "base_branch", "code": "invalid", "value": branch}
        )
    return {**task, "target_repo": target.full_name}


def _can_push(ctx: Ctx) -> bool:
    try:
        ctx.repo(write=True)
    except ApiError:
        return False
    return True


def _assign(ctx: Ctx, repo: RepoRecord, issue: Issue, body: dict[str, Any]) -> None:
    entries = _entries(body)
    accounts = []
    for entry in entries:
        user = copilot.assignable(ctx.state, repo, entry["login"])
        if user is None:
            raise _invalid_assignee(entry["login"])
        accounts.append(user)
    pairs = list(zip(entries, accounts, strict=True))
    agent = any(copilot.is_agent(e["login"]) and not e.get("suggest") for e in entries)
    task = _agent_assignment(ctx, repo, body) if agent else {}
    started: list[dict[str, Any]] = []
    with ctx.state.lock:
        direct = [u.login for e, u in pairs if not e.get("suggest")]
        merged = issue.assignees + [n for n in direct if n not in issue.assignees]
        if len(merged) > MAX_ASSIGNEES:
            raise validation_failed({"resource": "Issue", "field": "assignees", "code": "too_many"})
        for entry, user in pairs:
            record = {"issue_id": issue.id, "repo": repo.full_name, **entry, "login": user.login}
            if entry.get("suggest"):
                copilot.store(ctx.state).suggestions.append(record)
            elif user.login == copilot.AGENT and user.login not in issue.assignees:
                started.append({**record, **task})
        issue.assignees = merged
        issue.updated_at = now()
        for session in started:  # the agent's branch and draft pull request (simulated)
            owner, _, name = session["target_repo"].partition("/")
            target = ctx.state.repo(owner, name) or repo
            session |= start_session(ctx.state, repo, issue, target, task.get("base_branch"))
            copilot.store(ctx.state).sessions.append(session)


@endpoint
def add_assignees(ctx: Ctx) -> Response:
    repo = ctx.repo()
    issue = get_issue(repo, ctx.params["number"])
    body = ctx.json()
    if _can_push(ctx):
        _assign(ctx, repo, issue, body)
    return json_response(issue_json(ctx.state, ctx.urls, repo, issue), status=201)


@endpoint
def remove_assignees(ctx: Ctx) -> Response:
    repo = ctx.repo()
    issue = get_issue(repo, ctx.params["number"])
    names = {e["login"].lower() for e in _entries(ctx.json())}
    if any(copilot.is_agent(n) for n in names):
        names.add(copilot.AGENT.lower())
    if _can_push(ctx):
        with ctx.state.lock:
            issue.assignees = [a for a in issue.assignees if a.lower() not in names]
            issue.updated_at = now()
    return json_response(issue_json(ctx.state, ctx.urls, repo, issue))


@endpoint
def check_assignee(ctx: Ctx) -> Response:
    repo = ctx.repo()
    if copilot.assignable(ctx.state, repo, ctx.params["assignee"]) is None:
        raise not_found()
    return Response(status_code=204)


def routes(state: ForgeState) -> list[Route]:
    path = "/repos/{owner}/{repo}/issues/{number:int}/assignees"
    return [
        Route(path, add_assignees, methods=["POST"]),
        Route(path, remove_assignees, methods=["DELETE"]),
        Route("/repos/{owner}/{repo}/assignees/{assignee}", check_assignee, methods=["GET"]),
    ]
