"""The few GraphQL operations the controller uses (review threads, replies, resolution).

REST has no notion of a review thread's resolution, so these go through GraphQL. Each
operation is a constant plus a small function returning plain data; the caller shapes it.
"""

from __future__ import annotations

from typing import Any

from ..errors import ErrorCode, GitHubMCPError
from .client import GitHubClient

THREADS_PER_PAGE = 50
COMMENTS_PER_THREAD = 30
MAX_THREAD_PAGES = 10

REVIEW_THREADS = """
query ReviewThreads($owner: String!, $name: String!, $number: Int!, $first: Int!,
                    $after: String, $comments: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewDecision
      reviewThreads(first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          originalLine
          comments(first: $comments) {
            totalCount
            nodes {
              databaseId
              author { __typename login }
              authorAssociation
              body
              createdAt
            }
          }
        }
      }
    }
  }
}
"""

THREAD_OWNER = """
query ThreadOwner($id: ID!) {
  node(id: $id) {
    __typename
    ... on PullRequestReviewThread {
      isResolved
      pullRequest { number url }
    }
  }
}
"""

RESOLVE_THREAD = """
mutation ResolveThread($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}
"""

UNRESOLVE_THREAD = """
mutation UnresolveThread($id: ID!) {
  unresolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}
"""

REPLY_TO_THREAD = """
mutation ReplyToThread($id: ID!, $body: String!) {
  addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $id, body: $body}) {
    comment { databaseId url }
  }
}
"""


async def review_threads(
    github: GitHubClient, full_name: str, number: int
) -> tuple[list[dict[str, Any]], str | None, bool]:
    """Every review thread of a PR (bounded), its review decision, and whether the bound cut
    the list short."""
    owner, name = full_name.split("/", 1)
    threads: list[dict[str, Any]] = []
    after: str | None = None
    decision: str | None = None
    for _ in range(MAX_THREAD_PAGES):
        data = await github.graphql(
            REVIEW_THREADS,
            {
                "owner": owner,
                "name": name,
                "number": number,
                "first": THREADS_PER_PAGE,
                "after": after,
                "comments": COMMENTS_PER_THREAD,
            },
        )
        pull = ((data or {}).get("repository") or {}).get("pullRequest")
        if pull is None:
            raise GitHubMCPError(
                ErrorCode.NOT_FOUND, f"Pull request {full_name}#{number} was not found."
            )
        decision = pull.get("reviewDecision")
        page = pull["reviewThreads"]
        threads.extend(node for node in page.get("nodes") or [] if node)
        info = page.get("pageInfo") or {}
        if not info.get("hasNextPage"):
            return threads, decision, False
        after = info.get("endCursor")
    return threads, decision, True


async def thread_owner(github: GitHubClient, thread_id: str) -> tuple[str, int, bool]:
    """(PR url, PR number, resolved) of a review thread; not_found when it is not one."""
    data = await github.graphql(THREAD_OWNER, {"id": thread_id})
    node = (data or {}).get("node")
    if not node or node.get("__typename") != "PullRequestReviewThread":
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"{thread_id!r} is not a review thread.",
            hint="find_unresolved_comments lists the thread ids of a PR.",
        )
    pull = node.get("pullRequest") or {}
    return pull.get("url", ""), int(pull.get("number", 0)), bool(node.get("isResolved"))


async def set_thread_resolved(github: GitHubClient, thread_id: str, resolved: bool) -> bool:
    """Resolve (or unresolve) a thread; returns its resolution afterwards."""
    key = "resolveReviewThread" if resolved else "unresolveReviewThread"
    data = await github.graphql(RESOLVE_THREAD if resolved else UNRESOLVE_THREAD, {"id": thread_id})
    thread = ((data or {}).get(key) or {}).get("thread") or {}
    return bool(thread.get("isResolved"))


async def reply_to_thread(github: GitHubClient, thread_id: str, body: str) -> dict[str, Any]:
    """Add a reply to a thread; returns {databaseId, url} of the new comment."""
    data = await github.graphql(REPLY_TO_THREAD, {"id": thread_id, "body": body})
    return ((data or {}).get("addPullRequestReviewThreadReply") or {}).get("comment") or {}
