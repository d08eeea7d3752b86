"""JSON shapes for pull request reviews and review comments."""

from __future__ import annotations

from typing import Any

from sandbox_forge.kernel.formats import iso
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.stores.collab import Review, ReviewComment
from sandbox_forge.stores.lookups import author_association, node_id, user_json
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


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
