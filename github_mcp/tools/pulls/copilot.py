"""Copilot: assign its coding agent to an issue, request its review on a pull request.

Thin calls to GitHub's public REST API (see services/pulls/copilot.py for what each needs: a
Copilot plan that includes the feature, enabled for the repository, and a user token).
Both are unscoped writes that need a human's approval: assigning starts an agent that
pushes a branch and opens a pull request under the user's Copilot quota; a review request
notifies the PR's watchers. The agent always works in the issue's own repository, so the
allow-list covers everything it is sent to.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from github_mcp.kernel.params import Branch, FullName, PrRef
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services.pulls import copilot as service
from github_mcp.services.pulls.copilot import Confidence, CopilotAssignment, CopilotReview
from github_mcp.tools._bindings import issue_text, still_as_approved

TOOLSET = "copilot"
Number = Annotated[int, Field(ge=1)]


@tool(toolset=TOOLSET, write=True, target=None, idempotent=True, binds=issue_text)
async def assign_copilot_to_issue(
    call: Call,
    full_name: FullName,
    number: Number,
    base_branch: Branch | None = None,
    instructions: Annotated[str, Field(max_length=10_000)] | None = None,
    custom_agent: Annotated[str, Field(max_length=100)] | None = None,
    rationale: Annotated[str, Field(max_length=280)] | None = None,
    confidence: Confidence | None = None,
    suggest: Annotated[bool, Field(description="Record for a human, start nothing.")] = False,
) -> CopilotAssignment:
    """Assign Copilot's coding agent to an issue: it opens a PR (needs Copilot enabled)."""
    await still_as_approved(call, issue_text, {"full_name": full_name, "number": number})
    return await service.assign(
        call.rt.github,
        full_name,
        number,
        base_branch=base_branch,
        instructions=instructions,
        custom_agent=custom_agent,
        rationale=rationale,
        confidence=confidence,
        suggest=suggest,
    )


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly(
        "it asks Copilot to review the PR as it stands when Copilot runs; the request itself "
        "publishes no text of the caller's"
    ),
)
async def request_copilot_review(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> CopilotReview:
    """Request a Copilot code review on a PR (needs Copilot code review enabled)."""
    assert full_name and number
    return await service.request_review(call.rt.github, full_name, number)
