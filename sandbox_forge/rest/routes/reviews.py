"""Pull request reviews, review comments, and the review threads they belong to: the
endpoints.

Records (and what reviews add up to) are in stores/reviews.py, shapes in
rest/shapes/reviews.py; their public names are re-exported here for existing callers.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import (
    ApiError,
    json_response,
    missing_field,
    not_found,
    validation_failed,
)
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.collab_api import created_response, found_or_404, updated_since
from sandbox_forge.rest.shapes.reviews import comment_json, review_json
from sandbox_forge.stores.collab import Issue, Review, ReviewComment, collab
from sandbox_forge.stores.lookups import actor_login, get_pull, now
from sandbox_forge.stores.pull_heads import live_head
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.reviews import (
    EVENTS,
    LINE_NOT_IN_DIFF,
    PATH_NOT_IN_DIFF,
    SIDES,
    ReviewRefused,
    add_review,
    add_review_comment,
    int_or_none,
    reply,
    review_summary,
    set_resolved,
    thread_outdated,
    unresolved_threads,
)
from sandbox_forge.stores.state import ForgeState


def _visible_reviews(ctx: Ctx, repo: RepoRecord, issue: Issue) -> list[Review]:
    me = (ctx.principal.login or "").lower()
    return sorted(
        (
            r
            for r in collab(repo).reviews.values()
            if r.number == issue.number and (r.state != "PENDING" or r.user.lower() == me)
        ),
        key=lambda r: r.id,
    )


@endpoint
def list_reviews(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    reviews = _visible_reviews(ctx, repo, issue)
    return ctx.paginate(reviews, lambda r: review_json(ctx.state, ctx.urls, repo, r))


@endpoint
def get_review(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    review = next(
        (r for r in _visible_reviews(ctx, repo, issue) if r.id == ctx.params["review_id"]), None
    )
    if review is None:
        raise not_found()
    return json_response(review_json(ctx.state, ctx.urls, repo, review))


@endpoint
def create_review(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_pull(repo, ctx.params["number"])
    body = ctx.json()
    text = body.get("body") or ""
    if not isinstance(text, str):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/body', is not a string.")
    comments = body.get("comments") or []
    if not isinstance(comments, list):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/comments', is not an array.")
    commit_id = body.get("commit_id")
    if commit_id is not None and repo.git.resolve_commit(str(commit_id)) is None:
        raise validation_failed(
            {"resource": "PullRequestReview", "code": "invalid", "field": "commit_id"}
        )
    review = add_review(
        ctx.state,
        repo,
        issue,
        actor_login(ctx.principal),
        body.get("event"),
        text,
        comments,
        commit_id,
    )
    return json_response(review_json(ctx.state, ctx.urls, repo, review))


def _comment_list(
    ctx: Ctx, repo: RepoRecord, comments: list[ReviewComment], of_review: bool = False
):
    head_cache: dict[int, str] = {}
    data = collab(repo)

    def shape(comment: ReviewComment) -> dict[str, Any]:
        if comment.number not in head_cache:
            head_cache[comment.number] = live_head(repo, data.issues[comment.number])
        thread = data.threads.get(comment.thread_id)
        outdated = thread is not None and thread_outdated(repo, thread, head_cache[comment.number])
        found = comment_json(ctx.state, ctx.urls, repo, comment, outdated)
        if of_review:
            # a review's comments always carry position (null when the comment has none,
            # as a comment on the whole file) and original_position (its first line then)
            found.setdefault("position", None)
            found.setdefault("original_position", 1)
        return found

    sort = ctx.query.get("sort", "created")
    key = (lambda c: (c.updated_at, c.id)) if sort == "updated" else (lambda c: c.id)
    comments = sorted(comments, key=key, reverse=ctx.query.get("direction") == "desc")
    comments = updated_since(comments, ctx.query.get("since"))
    return ctx.paginate(comments, shape)


@endpoint
def list_pull_comments(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    found = [c for c in collab(repo).review_comments.values() if c.number == issue.number]
    return _comment_list(ctx, repo, found)


@endpoint
def list_repo_review_comments(ctx: Ctx):
    repo = ctx.repo()
    return _comment_list(ctx, repo, list(collab(repo).review_comments.values()))


@endpoint
def list_review_comments(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    review_id = ctx.params["review_id"]
    if review_id not in collab(repo).reviews:
        raise not_found()
    found = [
        c
        for c in collab(repo).review_comments.values()
        if c.number == issue.number and c.review_id == review_id
    ]
    return _comment_list(ctx, repo, found, of_review=True)


def _text(body: dict[str, Any]) -> str:
    text = body.get("body")
    if text is None:
        raise missing_field("body")
    if not isinstance(text, str) or not text.strip():
        raise validation_failed(
            {"resource": "PullRequestReviewComment", "code": "missing_field", "field": "body"}
        )
    return text


def _shaped(ctx: Ctx, repo: RepoRecord, comment: ReviewComment, issue: Issue) -> dict[str, Any]:
    """A comment's JSON, outdated or not against the pull request's live head."""
    head = live_head(repo, issue)
    thread = collab(repo).threads[comment.thread_id]
    return comment_json(ctx.state, ctx.urls, repo, comment, thread_outdated(repo, thread, head))


def _created(ctx: Ctx, repo: RepoRecord, issue: Issue, comment: ReviewComment) -> Response:
    return created_response(_shaped(ctx, repo, comment, issue))


@endpoint
def create_pull_comment(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_pull(repo, ctx.params["number"])
    body = ctx.json()
    text = _text(body)
    in_reply_to = int_or_none(body.get("in_reply_to"), "in_reply_to")
    if in_reply_to is None:
        commit_id = body.get("commit_id")
        if not isinstance(commit_id, str) or not commit_id:
            raise missing_field("commit_id")
        if repo.git.resolve_commit(commit_id) is None:
            raise validation_failed(
                {"resource": "PullRequestReviewComment", "code": "invalid", "field": "commit_id"}
            )
        if (
            body.get("line") is None
            and body.get("position") is None
            and (body.get("subject_type") != "file")
        ):
            raise missing_field("line")
    comment = add_review_comment(
        ctx.state, repo, issue, actor_login(ctx.principal), text, body, in_reply_to
    )
    return _created(ctx, repo, issue, comment)


@endpoint
def create_reply(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_pull(repo, ctx.params["number"])
    text = _text(ctx.json())
    comment = add_review_comment(
        ctx.state, repo, issue, actor_login(ctx.principal), text, {}, ctx.params["comment_id"]
    )
    return _created(ctx, repo, issue, comment)


def _review_comment(repo: RepoRecord, comment_id: int) -> ReviewComment:
    return found_or_404(collab(repo).review_comments, comment_id)


@endpoint
def get_pull_comment(ctx: Ctx):
    repo = ctx.repo()
    comment = _review_comment(repo, ctx.params["comment_id"])
    issue = collab(repo).issues[comment.number]
    return json_response(_shaped(ctx, repo, comment, issue))


@endpoint
def update_pull_comment(ctx: Ctx):
    repo = ctx.repo(write=True)
    comment = _review_comment(repo, ctx.params["comment_id"])
    text = _text(ctx.json())
    with ctx.state.lock:
        comment.body = text
        comment.updated_at = now()
    issue = collab(repo).issues[comment.number]
    return json_response(_shaped(ctx, repo, comment, issue))


def routes(state: ForgeState) -> list[Route]:
    pull = "/repos/{owner}/{repo}/pulls/{number:int}"
    comment = "/repos/{owner}/{repo}/pulls/comments/{comment_id:int}"
    return [
        Route(f"{pull}/reviews", list_reviews, methods=["GET"]),
        Route(f"{pull}/reviews", create_review, methods=["POST"]),
        Route(f"{pull}/reviews/{{review_id:int}}", get_review, methods=["GET"]),
        Route(f"{pull}/reviews/{{review_id:int}}/comments", list_review_comments, methods=["GET"]),
        Route(f"{pull}/comments", list_pull_comments, methods=["GET"]),
        Route(f"{pull}/comments", create_pull_comment, methods=["POST"]),
        Route(f"{pull}/comments/{{comment_id:int}}/replies", create_reply, methods=["POST"]),
        Route("/repos/{owner}/{repo}/pulls/comments", list_repo_review_comments, methods=["GET"]),
        Route(comment, get_pull_comment, methods=["GET"]),
        Route(comment, update_pull_comment, methods=["PATCH"]),
    ]


__all__ = [
    "EVENTS",
    "LINE_NOT_IN_DIFF",
    "PATH_NOT_IN_DIFF",
    "SIDES",
    "ReviewRefused",
    "add_review",
    "add_review_comment",
    "comment_json",
    "reply",
    "review_json",
    "review_summary",
    "routes",
    "set_resolved",
    "thread_outdated",
    "unresolved_threads",
]
