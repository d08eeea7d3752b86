"""Pull requests: merge and close, each truthful when retried after a lost answer (the
PR already merged or closed is reported so, with whether your own earlier call did it)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from github_mcp.kernel.effects import Written
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.kernel.params import Body, FullName, PrRef, Sha, Title
from github_mcp.pipeline.earlier_calls import earlier_call
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import pulls as prs
from github_mcp.services.pulls import PullMerge, PullRequestRef, compact_pr, merge_pull
from github_mcp.tools._pull_targets import merge_head, pr_base_branch, pr_state
from github_mcp.tools.pulls.pulls import TOOLSET, Number


class MergeResult(PullMerge):  # with already_merged: whose earlier call did it
    by_this_principal: bool | None = Field(
        None,
        description="With already_merged: whether your own earlier call merged it "
        "(earlier_call_id names it), by this server's audit record.",
    )
    earlier_call_id: str | None = None

    def written(self, repo: str) -> Written:
        return Written(repo, self.base, self.sha) if self.merged else Written(repo)


@tool(toolset=TOOLSET, write=True, target=pr_base_branch, destructive=True, binds=pr_state)
async def merge_pull_request(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    merge_method: Literal["merge", "squash", "rebase"] = "merge",
    expected_head_sha: Sha | None = None,
    commit_title: Title | None = None,
    commit_message: Body | None = None,
) -> MergeResult:
    """Merge a PR into its base (gated by the base branch); expected_head_sha guards races.

    A gated merge sends the approved head as GitHub's `sha` precondition."""
    assert full_name and number
    assert call.authorized_ref is not None  # the gate authorised the PR's base
    authorized = call.authorized_ref
    try:
        result = await merge_pull(
            call.rt.github,
            full_name,
            number,
            method=merge_method,
            expected_head_sha=merge_head(call, expected_head_sha),
            commit_title=commit_title,
            commit_message=commit_message,
            expected_base=authorized,
        )
    except GitHubMCPError as exc:
        call.audit_ref = exc.details.get("actual_base")  # the audit names the real base
        raise
    merge = MergeResult(**result.model_dump())
    merge.base = call.audit_ref = merge.base or authorized
    if merge.already_merged:
        await _say_who_merged(call, full_name, merge)
    return merge


async def _say_who_merged(call: Call, full_name: str, merge: MergeResult) -> None:
    """A retry found the PR merged: whose earlier call did it, by the audit record."""
    entry = await earlier_call(
        call.rt, call.principal, "merge_pull_request", full_name, sha=merge.sha
    )
    earlier = str(entry["call_id"]) if entry else None
    merge.by_this_principal, merge.earlier_call_id = earlier is not None, earlier
    merge.message += (
        f" Your earlier call {earlier} merged it."
        if earlier
        else " No earlier call of yours that this server recorded merged it."
    )


class ClosedPullRequest(PullRequestRef):
    already_closed: bool = Field(
        False, description="It was closed (or merged) before this call; nothing changed."
    )
    by_this_principal: bool | None = Field(
        None,
        description="With already_closed: whether your own earlier call closed it "
        "(earlier_call_id names it), by this server's audit record.",
    )
    earlier_call_id: str | None = None


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    binds=ArgumentsOnly("it closes the PR; nothing in it changes"),
)
async def close_pull_request(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> ClosedPullRequest:
    """Close a PR without merging it (one already closed is reported as such)."""
    assert full_name and number
    current = await prs.get_pull(call.rt.github, full_name, number)
    if current.get("state") != "closed":
        data = await prs.update_pull(call.rt.github, full_name, number, {"state": "closed"})
        return ClosedPullRequest(**compact_pr(data).model_dump())
    entry = await earlier_call(
        call.rt, call.principal, "close_pull_request", full_name, number=number
    )
    earlier = str(entry["call_id"]) if entry else None
    return ClosedPullRequest(
        **compact_pr(current).model_dump(),
        already_closed=True,
        by_this_principal=earlier is not None,
        earlier_call_id=earlier,
    )
