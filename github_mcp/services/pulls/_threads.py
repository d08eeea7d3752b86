"""Review-thread writes (resolve, unresolve, reply), each only on a thread of the named PR.

REST has no notion of a thread's resolution, so these go through GraphQL."""

from __future__ import annotations

from pydantic import BaseModel

from github_mcp.github import graphql
from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import PR_URL_RE
from github_mcp.services.pulls._automation import pr_label


async def thread_resolution_in_pull(
    github: GitHubClient, full_name: str, number: int, thread_id: str
) -> bool:
    """The thread's resolution; invalid_input unless the thread belongs to this PR."""
    url, owner_number, resolved = await graphql.thread_owner(github, thread_id)
    match = PR_URL_RE.match(url)
    repo = f"{match['owner']}/{match['repo']}".lower() if match else ""
    if repo != full_name.lower() or owner_number != number:
        raise invalid_input(
            f"Thread {thread_id} does not belong to {pr_label(full_name, number)}.",
            hint="find_unresolved_comments lists this PR's threads.",
        )
    return resolved


async def set_thread_resolved(github: GitHubClient, thread_id: str, resolved: bool) -> bool:
    """Resolve (or unresolve) a thread; returns its resolution afterwards."""
    return await graphql.set_thread_resolved(github, thread_id, resolved)


class ThreadReply(BaseModel):
    thread_id: str
    comment_id: int | None = None
    url: str | None = None


async def reply_to_thread(github: GitHubClient, thread_id: str, body: str) -> ThreadReply:
    """Add a reply to a thread; returns the new comment."""
    comment = await graphql.reply_to_thread(github, thread_id, body)
    return ThreadReply(
        thread_id=thread_id, comment_id=comment.get("databaseId"), url=comment.get("url")
    )


async def resolve_thread(
    github: GitHubClient, full_name: str, number: int, thread_id: str, resolved: bool
) -> tuple[bool, bool]:
    """Set a thread of this PR resolved (or not); returns its resolution (before, after).
    A thread already in that state is left alone."""
    was = await thread_resolution_in_pull(github, full_name, number, thread_id)
    if was == resolved:
        return was, was
    return was, await set_thread_resolved(github, thread_id, resolved)


async def reply_in_thread(
    github: GitHubClient, full_name: str, number: int, thread_id: str, body: str
) -> ThreadReply:
    """Reply in a thread of this PR; returns the new comment."""
    await thread_resolution_in_pull(github, full_name, number, thread_id)
    return await reply_to_thread(github, thread_id, body)
