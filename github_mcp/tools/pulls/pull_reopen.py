"""Reopen a closed pull request: the other half of close_pull_request, kept off the
default list (rarely needed). Reopening changes no branch but notifies everyone watching
the PR, so it is an unscoped write that needs a human's approval, as closing is."""

from __future__ import annotations

from pydantic import Field

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.params import FullName, PrRef
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import pulls as prs
from github_mcp.services.pulls import PullRequestRef, compact_pr
from github_mcp.tools.pulls.pulls import Number

TOOLSET = "pull_request_reviews"


class ReopenedPullRequest(PullRequestRef):
    already_open: bool = Field(False, description="It was open before this call; nothing changed.")


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it reopens the PR as it is; nothing in it changes"),
)
async def reopen_pull_request(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> ReopenedPullRequest:
    """Reopen a closed, unmerged PR (one already open is reported as such)."""
    assert full_name and number
    current = await prs.get_pull(call.rt.github, full_name, number)
    if current.get("merged"):
        raise GitHubMCPError(
            ErrorCode.UNPROCESSABLE,
            f"Pull request #{number} was merged; a merged pull request cannot be reopened.",
            hint="Open a new pull request for further changes.",
        )
    if current.get("state") == "open":
        return ReopenedPullRequest(**compact_pr(current).model_dump(), already_open=True)
    data = await prs.update_pull(call.rt.github, full_name, number, {"state": "open"})
    return ReopenedPullRequest(**compact_pr(data).model_dump())
