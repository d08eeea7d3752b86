"""Where a pull-request write lands, for the gate (the PR's base for a merge, the new base
for a retarget onto a protected branch), and the PR state a gated write is bound to."""

from __future__ import annotations

from typing import Any, Literal

from github_mcp.kernel.effects import Target
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.pipeline.registry import Call
from github_mcp.services.shared import approved_state
from github_mcp.services.shared.repo_facts import get_pull


async def _pr_branch(call: Call, kwargs: dict[str, Any], side: Literal["base", "head"]) -> str:
    pull = await get_pull(call.rt.github, kwargs["full_name"], kwargs["number"])
    return pull[side]["ref"]


async def pr_base_branch(call: Call, kwargs: dict[str, Any]) -> Target:
    """Gate target of a merge: the PR's base branch."""
    return Target(await _pr_branch(call, kwargs, "base"))


async def pr_head_branch(call: Call, kwargs: dict[str, Any]) -> Target:
    """Gate target of a write to the PR's head branch (updating it from its base)."""
    return Target(await _pr_branch(call, kwargs, "head"))


async def pr_update_target(call: Call, kwargs: dict[str, Any]) -> Target:
    """Retargeting a PR onto a protected base is gated like a write to that base
    (a merge there would follow); any other update is gated by the PR's head."""
    head = await _pr_branch(call, kwargs, "head")
    base = kwargs.get("base")
    if base and await call.rt.gate.protection_reason(kwargs["full_name"], base) is not None:
        return Target(base)
    return Target(head)


async def pr_state(call: Call, kwargs: dict[str, Any]) -> approved_state.RemoteState:
    """What a gated PR write is approved for: the PR's head SHA and base (and, for the
    page, its commits and files since the base)."""
    return await approved_state.pull_state(call.rt.github, kwargs["full_name"], kwargs["number"])


def merge_head(call: Call, expected_head_sha: str | None, done: str = "merged") -> str | None:
    """The head a merge (or a branch update) sends as GitHub's precondition: the approved
    head of a gated call (a caller's expected_head_sha must agree with it), else the
    caller's own."""
    approved = call.bound.get("head_sha") if call.bound is not None else None
    if expected_head_sha and approved and expected_head_sha != approved:
        raise GitHubMCPError(
            ErrorCode.CONFLICT,
            f"expected_head_sha {expected_head_sha[:12]} is not the PR's head {approved[:12]} "
            f"that this call is bound to; nothing was {done}.",
            hint="Re-read the PR (get_pr_overview) and pass its current head.",
        )
    return expected_head_sha or approved
