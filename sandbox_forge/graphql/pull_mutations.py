"""GraphQL mutations on a pull request itself, as GitHub's schema has them: its draft state
(`markPullRequestReadyForReview`, `convertPullRequestToDraft`) and a line comment added to a
pending review (`addPullRequestReviewThread`)."""

from __future__ import annotations

from typing import Any

from sandbox_forge.graphql.context import Context, GQLFailure
from sandbox_forge.graphql.resolvers import find_node
from sandbox_forge.graphql.views import PullRequestView, ThreadView
from sandbox_forge.kernel.errors import ApiError
from sandbox_forge.stores.collab import Issue, Review, collab
from sandbox_forge.stores.lookups import now
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.reviews import new_thread_comment


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


def _pending_review(ctx: Context, value: str) -> tuple[RepoRecord, Review]:
    prefix, repo, ident = find_node(ctx, value)
    review = collab(repo).reviews.get(ident) if prefix == "PRR" else None
    mine = review is not None and review.user.lower() == (ctx.principal.login or "").lower()
    if review is None or (review.state == "PENDING" and not mine):
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{value}'"
        )
    if review.state != "PENDING":
        raise GQLFailure("UNPROCESSABLE", "The pull request review is not pending")
    return repo, review


def add_review_thread(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    """A new thread in the viewer's pending review (named by pullRequestReviewId)."""
    ctx: Context = info.context
    if not input.get("pullRequestReviewId"):
        raise GQLFailure("UNPROCESSABLE", "pullRequestReviewId is required")
    repo, review = _pending_review(ctx, input["pullRequestReviewId"])
    ctx.require_write(repo, "AddPullRequestReviewThread")
    if not input["body"].strip():
        raise GQLFailure("UNPROCESSABLE", "Body can't be blank")
    spec = {
        "path": input["path"],
        "line": input.get("line"),
        "side": input.get("side") or "RIGHT",
        "start_line": input.get("startLine"),
        "start_side": input.get("startSide") or "RIGHT",
        "subject_type": (input.get("subjectType") or "LINE").lower(),
    }
    data = collab(repo)
    issue = data.issues[review.number]
    try:
        with ctx.state.lock:
            comment = new_thread_comment(
                ctx.state, repo, issue, review.user, input["body"], spec, review.id
            )
    except ApiError as exc:
        first: Any = exc.errors[0] if exc.errors else exc.message
        text = first.get("message", exc.message) if isinstance(first, dict) else str(first)
        raise GQLFailure("UNPROCESSABLE", text) from None
    thread = data.threads[comment.thread_id]
    return {
        "clientMutationId": input.get("clientMutationId"),
        "thread": ThreadView(ctx, repo, thread),
    }
