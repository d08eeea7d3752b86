"""A pending review's ends, by GitHub's OpenAPI description: submit it with an event
(POST /pulls/{n}/reviews/{id}/events) or delete it with its comments
(DELETE /pulls/{n}/reviews/{id}). Only its author sees or ends a pending review."""

from __future__ import annotations

from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, json_response, not_found, validation_failed
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.shapes.reviews import review_json
from sandbox_forge.stores.collab import Review, collab
from sandbox_forge.stores.lookups import actor_login, get_pull, now
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.reviews import EVENTS, ReviewRefused
from sandbox_forge.stores.state import ForgeState


def _own_review(ctx: Ctx) -> tuple[RepoRecord, Review]:
    repo = ctx.repo(write=True)
    issue = get_pull(repo, ctx.params["number"])
    review = collab(repo).reviews.get(ctx.params["review_id"])
    me = actor_login(ctx.principal).lower()
    if review is None or review.number != issue.number:
        raise not_found()
    if review.state == "PENDING" and review.user.lower() != me:
        raise not_found()  # someone else's pending review is invisible
    return repo, review


@endpoint
def submit_review(ctx: Ctx):
    repo, review = _own_review(ctx)
    body = ctx.json()
    event = body.get("event")
    if event not in EVENTS:
        raise validation_failed(
            {"resource": "PullRequestReview", "code": "invalid", "field": "event"}
        )
    text = body.get("body")
    if text is not None and not isinstance(text, str):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/body', is not a string.")
    if review.state != "PENDING":
        raise ReviewRefused("Can not submit a non-pending pull request review")
    issue = collab(repo).issues[review.number]
    if review.user.lower() == issue.user.lower() and event != "COMMENT":
        raise ReviewRefused("Can not approve or request changes on your own pull request")
    with ctx.state.lock:
        review.state = EVENTS[event]
        review.body = text if text is not None else review.body
        review.submitted_at = issue.updated_at = now()
    return json_response(review_json(ctx.state, ctx.urls, repo, review))


@endpoint
def delete_review(ctx: Ctx):
    repo, review = _own_review(ctx)
    if review.state != "PENDING":
        raise ReviewRefused("Can not delete a non-pending pull request review")
    data = collab(repo)
    shaped = review_json(ctx.state, ctx.urls, repo, review)
    with ctx.state.lock:
        for comment in [c for c in data.review_comments.values() if c.review_id == review.id]:
            data.review_comments.pop(comment.id, None)
            thread = data.threads.get(comment.thread_id)
            if thread is not None and all(
                i not in data.review_comments for i in thread.comment_ids
            ):
                data.threads.pop(thread.id, None)
        data.reviews.pop(review.id, None)
    return json_response(shaped)


def routes(state: ForgeState) -> list[Route]:
    review = "/repos/{owner}/{repo}/pulls/{number:int}/reviews/{review_id:int}"
    return [
        Route(f"{review}/events", submit_review, methods=["POST"]),
        Route(review, delete_review, methods=["DELETE"]),
    ]
