"""GraphQL mutations on a pull request itself: its draft state
(`markPullRequestReadyForReview`, `convertPullRequestToDraft`, as GitHub's schema has them)."""

from __future__ import annotations

from typing import Any

from sandbox_forge.graphql.context import Context, GQLFailure
from sandbox_forge.graphql.resolvers import find_node
from sandbox_forge.graphql.views import PullRequestView
from sandbox_forge.stores.collab import Issue, collab, now
from sandbox_forge.stores.state import RepoRecord


def _find_pull(ctx: Context, value: str) -> tuple[RepoRecord, Issue]:
    prefix, repo, ident = find_node(ctx, value)
    issues = collab(repo).issues.values() if prefix == "PR" else ()
    issue = next((i for i in issues if i.id == ident and i.pull is not None), None)
    if issue is None:
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{value}'"
        )
    return repo, issue


def _set_draft(info: Any, input: dict[str, Any], draft: bool, mutation: str) -> dict[str, Any]:
    ctx: Context = info.context
    repo, issue = _find_pull(ctx, input["pullRequestId"])
    ctx.require_write(repo, mutation)
    assert issue.pull is not None
    if issue.state != "open":
        raise GQLFailure("UNPROCESSABLE", "Pull request is closed")
    with ctx.state.lock:
        if issue.pull.draft != draft:
            issue.pull.draft = draft
            issue.updated_at = now()
    return {
        "clientMutationId": input.get("clientMutationId"),
        "pullRequest": PullRequestView(ctx, repo, issue),
    }


def mark_ready_for_review(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    return _set_draft(info, input, False, "MarkPullRequestReadyForReview")


def convert_to_draft(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    return _set_draft(info, input, True, "ConvertPullRequestToDraft")
