"""Pull request reviews, review comments, and the review threads they belong to."""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from .api import Ctx, Urls, endpoint
from .collab_store import (
    Issue,
    Review,
    ReviewComment,
    Thread,
    actor_login,
    author_association,
    collab,
    get_pull,
    node_id,
    now,
    user_json,
)
from .errors import ApiError, json_response, missing_field, not_found, validation_failed
from .pulls_git import file_patch, live_head, locate, patch_lines
from .shapes import iso
from .state import ForgeState, RepoRecord

EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}
SIDES = ("LEFT", "RIGHT")
LINE_NOT_IN_DIFF = "Pull request review thread line must be part of the diff"
PATH_NOT_IN_DIFF = "Path could not be resolved"


class ReviewRefused(ApiError):
    """GitHub's review endpoints answer 422 with a list of plain-text errors."""

    def __init__(self, *errors: str):
        super().__init__(422, "Unprocessable Entity", errors=list(errors))  # type: ignore[arg-type]


# --- shapes ---------------------------------------------------------------------------------


def review_json(state: ForgeState, urls: Urls, repo: RepoRecord, review: Review) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    html = f"{urls.repo_html(repo.full_name)}/pull/{review.number}#pullrequestreview-{review.id}"
    data: dict[str, Any] = {
        "id": review.id,
        "node_id": node_id("PRR", repo, review.id),
        "user": user_json(state, urls, review.user),
        "body": review.body,
        "state": review.state,
        "html_url": html,
        "pull_request_url": f"{api}/pulls/{review.number}",
        "author_association": author_association(state, repo, review.user),
        "_links": {
            "html": {"href": html},
            "pull_request": {"href": f"{api}/pulls/{review.number}"},
        },
        "commit_id": review.commit_id,
    }
    if review.submitted_at is not None:
        data["submitted_at"] = iso(review.submitted_at)
    return data


def thread_outdated(repo: RepoRecord, thread: Thread, head: str) -> bool:
    """Outdated once the commented file changed after the comment was written."""
    if head == thread.commit_id:
        return False
    old = repo.git.entry_at(thread.commit_id, thread.path)
    new = repo.git.entry_at(head, thread.path)
    return old is None or new is None or old.sha != new.sha


def comment_json(
    state: ForgeState,
    urls: Urls,
    repo: RepoRecord,
    comment: ReviewComment,
    outdated: bool = False,
) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    html = f"{urls.repo_html(repo.full_name)}/pull/{comment.number}#discussion_r{comment.id}"
    data: dict[str, Any] = {
        "url": f"{api}/pulls/comments/{comment.id}",
        "pull_request_review_id": comment.review_id,
        "id": comment.id,
        "node_id": node_id("PRRC", repo, comment.id),
        "diff_hunk": comment.diff_hunk,
        "path": comment.path,
        "commit_id": comment.commit_id,
        "original_commit_id": comment.original_commit_id,
        "user": user_json(state, urls, comment.user),
        "body": comment.body,
        "created_at": iso(comment.created_at),
        "updated_at": iso(comment.updated_at),
        "html_url": html,
        "pull_request_url": f"{api}/pulls/{comment.number}",
        "author_association": author_association(state, repo, comment.user),
        "_links": {
            "self": {"href": f"{api}/pulls/comments/{comment.id}"},
            "html": {"href": html},
            "pull_request": {"href": f"{api}/pulls/{comment.number}"},
        },
        "start_line": None if outdated else comment.start_line,
        "original_start_line": comment.start_line,
        "start_side": comment.start_side,
        "side": comment.side,
        "subject_type": comment.subject_type,
    }
    if comment.in_reply_to_id is not None:
        data["in_reply_to_id"] = comment.in_reply_to_id
    if comment.original_line is not None:
        data["original_line"] = comment.original_line
    if comment.line is not None and not outdated:
        data["line"] = comment.line
    if comment.position is not None:
        data["original_position"] = comment.position
        if not outdated:
            data["position"] = comment.position
    return data


# --- what reviews add up to -----------------------------------------------------------------


def review_summary(repo: RepoRecord, issue: Issue, head: str | None = None) -> tuple[int, bool]:
    """(approvals, changes requested) from each reviewer's latest deciding review.

    With head given, only approvals of that commit count (stale reviews dismissed)."""
    latest: dict[str, Review] = {}
    for review in sorted(collab(repo).reviews.values(), key=lambda r: r.id):
        if review.number != issue.number or review.user.lower() == issue.user.lower():
            continue
        if review.state in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
            latest[review.user.lower()] = review
    approvals = sum(
        1
        for r in latest.values()
        if r.state == "APPROVED" and (head is None or r.commit_id == head)
    )
    return approvals, any(r.state == "CHANGES_REQUESTED" for r in latest.values())


def unresolved_threads(repo: RepoRecord, issue: Issue) -> int:
    return sum(
        1 for t in collab(repo).threads.values() if t.number == issue.number and not t.resolved
    )


# --- operations -----------------------------------------------------------------------------


def _anchor(
    repo: RepoRecord, issue: Issue, path: str, line: int | None, side: str, *, in_review: bool
) -> tuple[str, int | None, str]:
    """(head, position, diff_hunk) for a new comment on path:line, or GitHub's 422."""
    found = file_patch(repo, issue, path)
    if found is None or (found[1] is None and line is not None):
        if in_review:
            raise ReviewRefused(PATH_NOT_IN_DIFF)
        raise validation_failed(
            {
                "resource": "PullRequestReviewComment",
                "code": "invalid",
                "field": "path",
                "message": PATH_NOT_IN_DIFF,
            }
        )
    head, patch = found
    if line is None or patch is None:  # a comment on the whole file
        return head, None, (patch or "").split("\n", 1)[0]
    located = locate(patch, line, side)
    if located is None:
        if in_review:
            raise ReviewRefused(LINE_NOT_IN_DIFF)
        raise validation_failed(
            {
                "resource": "PullRequestReviewComment",
                "code": "invalid",
                "field": "line",
                "message": LINE_NOT_IN_DIFF,
            }
        )
    return head, located[0], located[1]


def _line_at(
    repo: RepoRecord, issue: Issue, path: str, position: int, *, in_review: bool
) -> tuple[int, str]:
    found = file_patch(repo, issue, path)
    if found is not None and found[1] is not None:
        for entry in patch_lines(found[1])[1]:
            if entry.position == position:
                if entry.new is not None:
                    return entry.new, "RIGHT"
                assert entry.old is not None
                return entry.old, "LEFT"
    if in_review:
        raise ReviewRefused(LINE_NOT_IN_DIFF)
    raise validation_failed(
        {
            "resource": "PullRequestReviewComment",
            "code": "invalid",
            "field": "position",
            "message": LINE_NOT_IN_DIFF,
        }
    )


def _int_or_none(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(
            422, f"Invalid request.\n\nFor 'properties/{name}', {value!r} is not an integer."
        )
    return value


def _side(value: Any) -> str:
    side = "RIGHT" if value is None else value.upper() if isinstance(value, str) else value
    if side not in SIDES:
        raise validation_failed(
            {"resource": "PullRequestReviewComment", "code": "invalid", "field": "side"}
        )
    return side


def _new_comment(
    state: ForgeState,
    repo: RepoRecord,
    issue: Issue,
    user: str,
    body: str,
    spec: dict[str, Any],
    review_id: int | None,
    *,
    in_review: bool,
) -> ReviewComment:
    """A comment starting a new thread at spec's path/line/side."""
    path = spec.get("path")
    if not isinstance(path, str) or not path:
        raise missing_field("path")
    line = _int_or_none(spec.get("line"), "line")
    position = _int_or_none(spec.get("position"), "position")
    side = _side(spec.get("side"))
    start_line = _int_or_none(spec.get("start_line"), "start_line")
    subject = spec.get("subject_type") or ("file" if line is None and position is None else "line")
    if line is None and position is not None:  # the deprecated form: a position in the patch
        line, side = _line_at(repo, issue, path, position, in_review=in_review)
    head, found_position, hunk = _anchor(repo, issue, path, line, side, in_review=in_review)
    stamp = now()
    thread = Thread(
        id=state.next_id(),
        number=issue.number,
        path=path,
        line=line,
        side=side,
        commit_id=head,
        start_line=start_line,
        start_side=_side(spec.get("start_side")) if start_line is not None else None,
    )
    comment = ReviewComment(
        id=state.next_id(),
        number=issue.number,
        thread_id=thread.id,
        user=state.ensure_user(user).login,
        body=body,
        path=path,
        line=line,
        side=side,
        original_line=line,
        commit_id=head,
        original_commit_id=head,
        diff_hunk=hunk,
        position=found_position,
        created_at=stamp,
        updated_at=stamp,
        review_id=review_id,
        start_line=start_line,
        start_side=thread.start_side,
        subject_type=subject,
    )
    thread.comment_ids.append(comment.id)
    data = collab(repo)
    data.threads[thread.id] = thread
    data.review_comments[comment.id] = comment
    return comment


def reply(
    state: ForgeState,
    repo: RepoRecord,
    issue: Issue,
    user: str,
    body: str,
    to: ReviewComment,
    review_id: int | None = None,
) -> ReviewComment:
    data = collab(repo)
    thread = data.threads[to.thread_id]
    stamp = now()
    comment = ReviewComment(
        id=state.next_id(),
        number=issue.number,
        thread_id=thread.id,
        user=state.ensure_user(user).login,
        body=body,
        path=to.path,
        line=to.line,
        side=to.side,
        original_line=to.original_line,
        commit_id=to.commit_id,
        original_commit_id=to.original_commit_id,
        diff_hunk=to.diff_hunk,
        position=to.position,
        created_at=stamp,
        updated_at=stamp,
        review_id=review_id,
        in_reply_to_id=thread.comment_ids[0],
        start_line=to.start_line,
        start_side=to.start_side,
        subject_type=to.subject_type,
    )
    thread.comment_ids.append(comment.id)
    data.review_comments[comment.id] = comment
    return comment


def add_review(
    state: ForgeState,
    repo: RepoRecord,
    issue: Issue,
    user: str,
    event: str | None,
    body: str = "",
    comments: list[dict[str, Any]] | None = None,
    commit_id: str | None = None,
) -> Review:
    """A submitted review (or a PENDING one when event is None), with its line comments."""
    if event is not None and event not in EVENTS:
        raise validation_failed(
            {"resource": "PullRequestReview", "code": "invalid", "field": "event"}
        )
    own = user.lower() == issue.user.lower()
    if own and event == "APPROVE":
        raise ReviewRefused("Can not approve your own pull request")
    if own and event == "REQUEST_CHANGES":
        raise ReviewRefused("Can not request changes on your own pull request")
    with state.lock:
        head = commit_id or live_head(repo, issue)
        stamp = now()
        review = Review(
            id=state.next_id(),
            number=issue.number,
            user=state.ensure_user(user).login,
            state=EVENTS[event] if event else "PENDING",
            body=body or "",
            commit_id=head,
            submitted_at=stamp if event else None,
        )
        created: list[ReviewComment] = []
        try:
            for spec in comments or []:
                if not isinstance(spec, dict):
                    raise ReviewRefused("Review comments is invalid")
                text = spec.get("body")
                if not isinstance(text, str) or not text:
                    raise missing_field("body")
                created.append(
                    _new_comment(state, repo, issue, user, text, spec, review.id, in_review=True)
                )
        except ApiError:
            data = collab(repo)
            for comment in created:  # all or nothing, as GitHub does
                data.review_comments.pop(comment.id, None)
                data.threads.pop(comment.thread_id, None)
            raise
        collab(repo).reviews[review.id] = review
        issue.updated_at = stamp
        return review


def add_review_comment(
    state: ForgeState,
    repo: RepoRecord,
    issue: Issue,
    user: str,
    body: str,
    spec: dict[str, Any],
    in_reply_to: int | None = None,
) -> ReviewComment:
    """A single comment (or reply) outside a review; GitHub files it in a COMMENTED review."""
    with state.lock:
        data = collab(repo)
        parent = None
        if in_reply_to is not None:
            parent = data.review_comments.get(in_reply_to)
            if parent is None or parent.number != issue.number:
                raise not_found()
        head = live_head(repo, issue)
        stamp = now()
        review = Review(
            id=state.next_id(),
            number=issue.number,
            user=state.ensure_user(user).login,
            state="COMMENTED",
            body="",
            commit_id=head,
            submitted_at=stamp,
        )
        if parent is not None:
            comment = reply(state, repo, issue, user, body, parent, review.id)
        else:
            comment = _new_comment(state, repo, issue, user, body, spec, review.id, in_review=False)
        data.reviews[review.id] = review
        issue.updated_at = stamp
        return comment


def set_resolved(state: ForgeState, thread: Thread, resolved: bool, user: str | None) -> Thread:
    with state.lock:
        thread.resolved = resolved
        thread.resolved_by = user if resolved else None
        return thread


# --- endpoints ------------------------------------------------------------------------------


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


def _comment_list(ctx: Ctx, repo: RepoRecord, comments: list[ReviewComment]):
    head_cache: dict[int, str] = {}
    data = collab(repo)

    def shape(comment: ReviewComment) -> dict[str, Any]:
        if comment.number not in head_cache:
            head_cache[comment.number] = live_head(repo, data.issues[comment.number])
        thread = data.threads.get(comment.thread_id)
        outdated = thread is not None and thread_outdated(repo, thread, head_cache[comment.number])
        return comment_json(ctx.state, ctx.urls, repo, comment, outdated)

    sort = ctx.query.get("sort", "created")
    key = (lambda c: (c.updated_at, c.id)) if sort == "updated" else (lambda c: c.id)
    comments = sorted(comments, key=key, reverse=ctx.query.get("direction") == "desc")
    since = ctx.query.get("since")
    if since:
        comments = [c for c in comments if iso(c.updated_at) >= since.replace("+00:00", "Z")]
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
    return _comment_list(ctx, repo, found)


def _text(body: dict[str, Any]) -> str:
    text = body.get("body")
    if text is None:
        raise missing_field("body")
    if not isinstance(text, str) or not text.strip():
        raise validation_failed(
            {"resource": "PullRequestReviewComment", "code": "missing_field", "field": "body"}
        )
    return text


def _created(ctx: Ctx, repo: RepoRecord, issue: Issue, comment: ReviewComment):
    head = live_head(repo, issue)
    thread = collab(repo).threads[comment.thread_id]
    data = comment_json(ctx.state, ctx.urls, repo, comment, thread_outdated(repo, thread, head))
    return json_response(data, status=201, headers={"location": data["url"]})


@endpoint
def create_pull_comment(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_pull(repo, ctx.params["number"])
    body = ctx.json()
    text = _text(body)
    in_reply_to = _int_or_none(body.get("in_reply_to"), "in_reply_to")
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
    comment = collab(repo).review_comments.get(comment_id)
    if comment is None:
        raise not_found()
    return comment


@endpoint
def get_pull_comment(ctx: Ctx):
    repo = ctx.repo()
    comment = _review_comment(repo, ctx.params["comment_id"])
    issue = collab(repo).issues[comment.number]
    thread = collab(repo).threads[comment.thread_id]
    outdated = thread_outdated(repo, thread, live_head(repo, issue))
    return json_response(comment_json(ctx.state, ctx.urls, repo, comment, outdated))


@endpoint
def update_pull_comment(ctx: Ctx):
    repo = ctx.repo(write=True)
    comment = _review_comment(repo, ctx.params["comment_id"])
    text = _text(ctx.json())
    with ctx.state.lock:
        comment.body = text
        comment.updated_at = now()
    issue = collab(repo).issues[comment.number]
    thread = collab(repo).threads[comment.thread_id]
    outdated = thread_outdated(repo, thread, live_head(repo, issue))
    return json_response(comment_json(ctx.state, ctx.urls, repo, comment, outdated))


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
