"""Review threads: the unresolved ones of a PR, each with the calls that answer it (toolset
automation), and those calls, replying and resolving (toolset pull_requests)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.effects import Written
from github_mcp.kernel.params import Cursor, FullName, PrRef
from github_mcp.pipeline.earlier_calls import earlier_call
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services.paging import offset_from_cursor as _offset
from github_mcp.services.pulls import (
    ThreadReply,
    UnresolvedComments,
    reply_in_thread,
    resolve_thread,
    unresolved_comments,
)

Number = Annotated[int, Field(ge=1)]
ThreadId = Annotated[
    str,
    Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_=-]+$"),
]


# --- find_unresolved_comments -----


@tool(toolset="automation")
async def find_unresolved_comments(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    include_bots: bool = False,
    sort: Literal["file", "newest", "oldest"] = "file",
    limit: Annotated[int, Field(ge=1, le=50)] = 20,
    cursor: Cursor | None = None,
) -> UnresolvedComments:
    """Unresolved review threads, with reply and resolve calls, and others' PR comments."""
    assert full_name and number
    return await unresolved_comments(
        call.rt.github, full_name, number, include_bots=include_bots, sort=sort,
        offset=_offset(cursor), limit=limit, lockdown=call.rt.settings.lockdown,
    )  # fmt: skip


# --- review-thread writes (toolset pull_requests) ----------------------------------------------


class ThreadResolution(BaseModel):
    thread_id: str
    resolved: bool
    changed: bool
    by_this_principal: bool | None = Field(
        None,
        description="Unchanged: whether your own earlier call made it so (earlier_call_id "
        "names it), by this server's audit record.",
    )
    earlier_call_id: str | None = None

    def written(self, repo: str) -> Written | None:
        return Written(repo) if self.changed else None


@tool(
    toolset="pull_requests",
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it resolves (or unresolves) the named thread; no text is published"),
)
async def resolve_review_thread(
    call: Call,
    thread_id: ThreadId,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    unresolve: bool = False,
) -> ThreadResolution:
    """Resolve a PR review thread (or unresolve it)."""
    assert full_name and number
    was, now = await resolve_thread(
        call.rt.github, full_name, number, thread_id, resolved=not unresolve
    )
    answer = ThreadResolution(thread_id=thread_id, resolved=now, changed=now != was)
    if not answer.changed:  # a retry after a lost answer, say: who made it so
        entry = await earlier_call(
            call.rt,
            call.principal,
            "resolve_review_thread",
            full_name,
            thread_id=thread_id,
            resolved=now,
            changed=True,
        )
        answer.by_this_principal = entry is not None
        answer.earlier_call_id = str(entry["call_id"]) if entry else None
    return answer


@tool(
    toolset="pull_requests",
    write=True,
    target=None,
    binds=ArgumentsOnly("the reply's body, given in full, is all that is published"),
)
async def reply_to_review_thread(
    call: Call,
    thread_id: ThreadId,
    body: Annotated[str, Field(min_length=1, max_length=65536)],
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> ThreadReply:
    """Reply in a PR review thread."""
    assert full_name and number
    return await reply_in_thread(call.rt.github, full_name, number, thread_id, body)
