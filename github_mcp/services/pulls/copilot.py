"""Copilot on GitHub's public REST API: assign its coding agent to an issue, request its
review on a pull request.

Both are thin calls, as GitHub documents them:

- the coding agent: POST /repos/{o}/{r}/issues/{n}/assignees with the login
  `copilot-swe-agent[bot]` and an `agent_assignment` (base_branch, custom_instructions,
  custom_agent, model; target_repo is always the issue's repository here). The object
  form of an assignee adds rationale, confidence and suggest: a suggestion is kept for a
  human to accept and starts nothing. Copilot must be assignable in the repository: a paid
  Copilot plan with the coding agent enabled, and a user token (a PAT or a GitHub App's
  user token). GET /repos/{o}/{r}/assignees/{login} answers 404 where it is not, and is
  asked first so the refusal names the cause.
- the review: POST /repos/{o}/{r}/pulls/{n}/requested_reviewers with the reviewer
  `copilot-pull-request-reviewer[bot]`; where Copilot code review is unavailable GitHub
  answers 422 ("not a collaborator").
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.shared.repo_facts import repo_path

AGENT = "copilot-swe-agent[bot]"
AGENT_SHOWN = ("copilot", "copilot-swe-agent", AGENT)  # how the assigned bot may be listed
REVIEWER = "copilot-pull-request-reviewer[bot]"
Confidence = Literal["low", "medium", "high"]
REQUIREMENTS = (
    "Needs a paid Copilot plan with the coding agent enabled for this repository "
    "(repository or organisation settings, Copilot), and a user token (PAT or GitHub "
    "App user token) with write access."
)


class CopilotAssignment(BaseModel):
    number: int
    url: str
    assignees: list[str]
    suggested: bool = Field(description="True: kept for a human to accept; nothing started.")
    base_branch: str | None = None
    note: str


class CopilotReview(BaseModel):
    pr: int
    url: str
    requested_reviewers: list[str]


def _unavailable(what: str, full_name: str, hint: str) -> GitHubMCPError:
    return GitHubMCPError(ErrorCode.UNPROCESSABLE, f"{what} in {full_name}", hint=hint)


async def _agent_assignable(github: GitHubClient, full_name: str) -> bool:
    try:
        await github.request_json("GET", f"{repo_path(full_name)}/assignees/{AGENT}")
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:
            return False
        raise
    return True


def _assignee(
    rationale: str | None, confidence: Confidence | None, suggest: bool
) -> str | dict[str, str | bool]:
    """An assignee of GitHub's POST body: the agent's login, or an object with a suggestion."""
    if not (rationale or confidence or suggest):
        return AGENT
    entry: dict[str, str | bool] = {"login": AGENT, "suggest": suggest}
    entry.update({k: v for k, v in (("rationale", rationale), ("confidence", confidence)) if v})
    return entry


async def assign(
    github: GitHubClient,
    full_name: str,
    number: int,
    *,
    base_branch: str | None = None,
    instructions: str | None = None,
    custom_agent: str | None = None,
    rationale: str | None = None,
    confidence: Confidence | None = None,
    suggest: bool = False,
) -> CopilotAssignment:
    if not await _agent_assignable(github, full_name):
        raise _unavailable("Copilot's coding agent cannot be assigned", full_name, REQUIREMENTS)
    body: dict[str, Any] = {"assignees": [_assignee(rationale, confidence, suggest)]}
    if not suggest:  # a suggestion starts nothing; accepting it supplies the task
        task = {
            "target_repo": full_name,
            "base_branch": base_branch,
            "custom_instructions": instructions,
            "custom_agent": custom_agent,
        }
        body["agent_assignment"] = {k: v for k, v in task.items() if v}
    path = f"{repo_path(full_name)}/issues/{number}/assignees"
    issue = await github.request_json("POST", path, json_body=body)
    logins = [a["login"] for a in issue.get("assignees") or []]
    assigned = any(login.lower() in AGENT_SHOWN for login in logins)
    if not suggest and not assigned:
        raise GitHubMCPError(
            ErrorCode.PERMISSION_DENIED,
            "GitHub did not assign Copilot",
            hint="Assignees from users without push access are dropped silently. " + REQUIREMENTS,
        )
    note = (
        "Suggested: a human accepts it on the issue to start Copilot."
        if suggest
        else "Copilot starts a session and opens a pull request linked to the issue; "
        "find it with list_pull_requests or on the issue's timeline."
    )
    return CopilotAssignment(
        number=number,
        url=issue["html_url"],
        assignees=logins,
        suggested=suggest,
        base_branch=None if suggest else base_branch,
        note=note,
    )


async def request_review(github: GitHubClient, full_name: str, number: int) -> CopilotReview:
    path = f"{repo_path(full_name)}/pulls/{number}/requested_reviewers"
    try:
        pull = await github.request_json("POST", path, json_body={"reviewers": [REVIEWER]})
    except GitHubMCPError as exc:
        if exc.code != ErrorCode.UNPROCESSABLE:
            raise
        hint = (
            "Copilot code review needs a Copilot plan that includes it, enabled for "
            "this repository or organisation; requests on GitHub Enterprise Server fail."
        )
        raise _unavailable("Copilot's review cannot be requested", full_name, hint) from exc
    reviewers = [u["login"] for u in pull.get("requested_reviewers") or []]
    return CopilotReview(pr=number, url=pull["html_url"], requested_reviewers=reviewers)
