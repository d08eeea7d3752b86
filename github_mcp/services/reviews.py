"""Pull-request review work beyond the review itself: requested reviewers (users and teams),
as compact typed records."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.pulls import ThreadReply as ThreadReply  # the reviews tools' face:
from github_mcp.services.pulls import UnresolvedComments as UnresolvedComments  # threads
from github_mcp.services.pulls import get_pull as get_pull  # live on the pull request
from github_mcp.services.pulls import reply_in_thread as reply_in_thread
from github_mcp.services.pulls import resolve_thread as resolve_thread
from github_mcp.services.pulls import unresolved_comments as unresolved_comments
from github_mcp.services.shared.repo_facts import repo_path


class ReviewRequests(BaseModel):
    pr: int
    users: list[str]
    teams: list[str]


def _requests(number: int, pull: dict[str, Any]) -> ReviewRequests:
    return ReviewRequests(
        pr=number,
        users=[u["login"] for u in pull.get("requested_reviewers") or []],
        teams=[t["slug"] for t in pull.get("requested_teams") or []],
    )


async def change_review_requests(
    github: GitHubClient,
    full_name: str,
    number: int,
    users: list[str],
    teams: list[str],
    remove: bool,
) -> ReviewRequests:
    """Request (or withdraw the request for) reviews from users and teams; GitHub answers
    with the PR, whose requested_reviewers/requested_teams are the state after it."""
    body: dict[str, Any] = {"reviewers": users}
    if teams:
        body["team_reviewers"] = teams
    pull = await github.request_json(
        "DELETE" if remove else "POST",
        f"{repo_path(full_name)}/pulls/{number}/requested_reviewers",
        json_body=body,
        idempotent=True,
    )
    return _requests(number, pull or {})


# --- the draft state (GraphQL: REST's PATCH /pulls/{n} cannot change it) -------------------

_DRAFT_MUTATIONS = {
    True: "convertPullRequestToDraft",
    False: "markPullRequestReadyForReview",
}


async def set_draft(
    github: GitHubClient, full_name: str, number: int, draft: bool
) -> tuple[bool, bool]:
    """Make the PR a draft (or ready for review); returns its draft flag (before, after).
    A PR already in that state is left alone."""
    pull = await github.request_json("GET", f"{repo_path(full_name)}/pulls/{number}")
    was = bool(pull.get("draft"))
    if was == draft:
        return was, was
    key = _DRAFT_MUTATIONS[draft]
    query = (
        f"mutation($id: ID!) {{ {key}(input: {{pullRequestId: $id}}) "
        "{ pullRequest { isDraft } } }"
    )
    data = await github.graphql(query, {"id": pull["node_id"]})
    return was, bool((((data or {}).get(key) or {}).get("pullRequest") or {}).get("isDraft"))


# --- updating the PR's branch from its base ------------------------------------------------


class BranchUpdate(BaseModel):
    pr: int
    branch: str
    from_sha: str
    head_sha: str
    updated: bool
    message: str | None = None


async def update_branch(
    github: GitHubClient, full_name: str, number: int, expected_head_sha: str
) -> BranchUpdate:
    """Merge the base into the PR's head branch, only if the head is still
    `expected_head_sha` (GitHub's precondition); then read the head back. GitHub does the
    merge in the background (202), so the head may not have moved yet when it is read."""
    path = f"{repo_path(full_name)}/pulls/{number}"
    before = await github.request_json("GET", path)
    answer = await github.request_json(
        "PUT", f"{path}/update-branch", json_body={"expected_head_sha": expected_head_sha}
    )
    after = await github.request_json("GET", path)
    head = after["head"]["sha"]
    return BranchUpdate(
        pr=number,
        branch=before["head"]["ref"],
        from_sha=expected_head_sha,
        head_sha=head,
        updated=head != expected_head_sha,
        message=(answer or {}).get("message"),
    )


# --- pending reviews -----------------------------------------------------------------------


class PendingReview(BaseModel):
    pr: int
    review_id: int
    state: str
    comments: int | None = None
    url: str | None = None


def _review(number: int, data: dict[str, Any], comments: int | None = None) -> PendingReview:
    return PendingReview(
        pr=number,
        review_id=data["id"],
        state=data["state"],
        comments=comments,
        url=data.get("html_url"),
    )


def _file_level(comment: dict[str, Any]) -> bool:
    return comment.get("subject_type") == "FILE"


async def start_review(
    github: GitHubClient, full_name: str, number: int, body: str, comments: list[dict[str, Any]]
) -> PendingReview:
    """A PENDING review (no event), with its first comments: line comments go with the
    REST call; file comments (which REST's review comments cannot be) follow by GraphQL."""
    payload: dict[str, Any] = {"body": body} if body else {}
    lines = [_rest_line(c) for c in comments if not _file_level(c)]
    if lines:
        payload["comments"] = lines
    data = await github.request_json(
        "POST", f"{repo_path(full_name)}/pulls/{number}/reviews", json_body=payload
    )
    files = [c for c in comments if _file_level(c)]
    for c in files:
        await github.graphql(_ADD_THREAD, _thread_variables(data["node_id"], c))
    return _review(number, data, len(comments))


def _rest_line(comment: dict[str, Any]) -> dict[str, object]:
    return {k: v for k, v in comment.items() if k != "subject_type"}


async def pending_review_id(github: GitHubClient, full_name: str, number: int) -> int:
    """The caller's pending review on the PR: GitHub shows a pending review to its author
    only, and keeps at most one per author and PR."""
    reviews = await github.collect(f"{repo_path(full_name)}/pulls/{number}/reviews")
    pending = [r for r in reviews if r.get("state") == "PENDING"]
    if not pending:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"no pending review of yours on {full_name}#{number}",
            hint="Start one with action=start (its comments may come later).",
        )
    return int(pending[-1]["id"])


async def end_review(
    github: GitHubClient,
    full_name: str,
    number: int,
    review_id: int,
    event: str | None,
    body: str,
) -> PendingReview:
    """Submit a pending review with `event`, or delete it (event None)."""
    path = f"{repo_path(full_name)}/pulls/{number}/reviews/{review_id}"
    if event is None:
        data = await github.request_json("DELETE", path)
        return _review(number, {**data, "state": "DELETED"})
    payload: dict[str, Any] = {"event": event}
    if body:
        payload["body"] = body
    data = await github.request_json("POST", f"{path}/events", json_body=payload)
    return _review(number, data)


_ADD_THREAD = """
mutation($review: ID!, $path: String!, $body: String!, $line: Int, $side: DiffSide,
         $startLine: Int, $startSide: DiffSide, $subject: PullRequestReviewThreadSubjectType) {
  addPullRequestReviewThread(input: {pullRequestReviewId: $review, path: $path, body: $body,
      line: $line, side: $side, startLine: $startLine, startSide: $startSide,
      subjectType: $subject}) {
    thread { id }
  }
}
"""


def _thread_variables(review_node: str, c: dict[str, Any]) -> dict[str, object]:
    if _file_level(c):
        return {"review": review_node, "path": c["path"], "body": c["body"], "subject": "FILE"}
    return {
        "review": review_node, "path": c["path"], "body": c["body"], "line": c["line"],
        "side": c.get("side", "RIGHT"), "startLine": c.get("start_line"),
        "startSide": c.get("start_side") or (c.get("side") if c.get("start_line") else None),
        "subject": "LINE",
    }  # fmt: skip


async def add_review_comments(
    github: GitHubClient,
    full_name: str,
    number: int,
    review_id: int,
    comments: list[dict[str, Any]],
) -> PendingReview:
    """Add line or file comments to the viewer's pending review (GraphQL: REST has no call
    for it)."""
    data = await github.request_json(
        "GET", f"{repo_path(full_name)}/pulls/{number}/reviews/{review_id}"
    )
    for c in comments:
        await github.graphql(_ADD_THREAD, _thread_variables(data["node_id"], c))
    return _review(number, data, len(comments))
