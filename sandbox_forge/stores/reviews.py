"""Review records: reviews, review comments and the threads they start or reply to (each
anchored to a line of the pull request's diff, with GitHub's 422s), resolving threads, and
what reviews add up to for protection and GraphQL."""

from __future__ import annotations

from typing import Any

from sandbox_forge.git.pulls import locate, patch_lines
from sandbox_forge.kernel.errors import ApiError, missing_field, not_found, validation_failed
from sandbox_forge.stores.collab import Issue, Review, ReviewComment, Thread, collab
from sandbox_forge.stores.lookups import now
from sandbox_forge.stores.pull_heads import file_patch, live_head
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}
SIDES = ("LEFT", "RIGHT")
LINE_NOT_IN_DIFF = "Pull request review thread line must be part of the diff"
PATH_NOT_IN_DIFF = "Path could not be resolved"


class ReviewRefused(ApiError):
    """GitHub's review endpoints answer 422 with a list of plain-text errors."""

    def __init__(self, *errors: str):
        super().__init__(422, "Unprocessable Entity", errors=list(errors))  # type: ignore[arg-type]


# --- what reviews add up to -----------------------------------------------------------------


def thread_outdated(repo: RepoRecord, thread: Thread, head: str) -> bool:
    """Outdated once the commented file changed after the comment was written."""
    if head == thread.commit_id:
        return False
    old = repo.git.entry_at(thread.commit_id, thread.path)
    new = repo.git.entry_at(head, thread.path)
    return old is None or new is None or old.sha != new.sha


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


def _not_in_diff(message: str, field: str, *, in_review: bool) -> ApiError:
    """A comment anchored outside the diff: a review's plain 422, or a field error."""
    if in_review:
        return ReviewRefused(message)
    return validation_failed(
        {
            "resource": "PullRequestReviewComment",
            "code": "invalid",
            "field": field,
            "message": message,
        }
    )


def _anchor(
    repo: RepoRecord, issue: Issue, path: str, line: int | None, side: str, *, in_review: bool
) -> tuple[str, int | None, str]:
    """(head, position, diff_hunk) for a new comment on path:line, or GitHub's 422."""
    found = file_patch(repo, issue, path)
    if found is None or (found[1] is None and line is not None):
        raise _not_in_diff(PATH_NOT_IN_DIFF, "path", in_review=in_review)
    head, patch = found
    if line is None or patch is None:  # a comment on the whole file
        return head, None, (patch or "").split("\n", 1)[0]
    located = locate(patch, line, side)
    if located is None:
        raise _not_in_diff(LINE_NOT_IN_DIFF, "line", in_review=in_review)
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
    raise _not_in_diff(LINE_NOT_IN_DIFF, "position", in_review=in_review)


def int_or_none(value: Any, name: str) -> int | None:
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


def _add_to_thread(
    state: ForgeState,
    repo: RepoRecord,
    issue: Issue,
    thread: Thread,
    user: str,
    body: str,
    review_id: int | None,
    **anchor: Any,
) -> ReviewComment:
    """Store a comment in thread; `anchor` places it in the diff (path, line, side…)."""
    stamp = now()
    comment = ReviewComment(
        id=state.next_id(),
        number=issue.number,
        thread_id=thread.id,
        user=state.ensure_user(user).login,
        body=body,
        created_at=stamp,
        updated_at=stamp,
        review_id=review_id,
        **anchor,
    )
    thread.comment_ids.append(comment.id)
    collab(repo).review_comments[comment.id] = comment
    return comment


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
    line = int_or_none(spec.get("line"), "line")
    position = int_or_none(spec.get("position"), "position")
    side = _side(spec.get("side"))
    start_line = int_or_none(spec.get("start_line"), "start_line")
    subject = spec.get("subject_type") or ("file" if line is None and position is None else "line")
    if line is None and position is not None:  # the deprecated form: a position in the patch
        line, side = _line_at(repo, issue, path, position, in_review=in_review)
    head, found_position, hunk = _anchor(repo, issue, path, line, side, in_review=in_review)
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
    comment = _add_to_thread(
        state,
        repo,
        issue,
        thread,
        user,
        body,
        review_id,
        path=path,
        line=line,
        side=side,
        original_line=line,
        commit_id=head,
        original_commit_id=head,
        diff_hunk=hunk,
        position=found_position,
        start_line=start_line,
        start_side=thread.start_side,
        subject_type=subject,
    )
    collab(repo).threads[thread.id] = thread
    return comment


def new_thread_comment(
    state: ForgeState,
    repo: RepoRecord,
    issue: Issue,
    user: str,
    body: str,
    spec: dict[str, Any],
    review_id: int,
) -> ReviewComment:
    """A comment starting a thread inside a (pending) review, anchored as a review's are."""
    return _new_comment(state, repo, issue, user, body, spec, review_id, in_review=True)


def reply(
    state: ForgeState,
    repo: RepoRecord,
    issue: Issue,
    user: str,
    body: str,
    to: ReviewComment,
    review_id: int | None = None,
) -> ReviewComment:
    thread = collab(repo).threads[to.thread_id]
    return _add_to_thread(
        state,
        repo,
        issue,
        thread,
        user,
        body,
        review_id,
        path=to.path,
        line=to.line,
        side=to.side,
        original_line=to.original_line,
        commit_id=to.commit_id,
        original_commit_id=to.original_commit_id,
        diff_hunk=to.diff_hunk,
        position=to.position,
        in_reply_to_id=thread.comment_ids[0],
        start_line=to.start_line,
        start_side=to.start_side,
        subject_type=to.subject_type,
    )


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
