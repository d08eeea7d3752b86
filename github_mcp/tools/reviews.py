"""Pull-request review work (toolset pull_request_reviews, off the default list): requested
reviewers, the draft state, updating the branch from its base, pending reviews, reactions.

Every write here is on the PR itself (an unscoped write a human approves, like a comment),
except update_pr_branch, which commits to the PR's head branch and is gated by it.

Review threads: the unresolved ones of a PR, each with the calls that answer it (toolset
automation), and those calls, replying and resolving (toolset pull_requests).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_validator

from github_mcp.kernel.effects import Written
from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import Body, Cursor, FullName, PrRef, Sha
from github_mcp.pipeline.earlier_calls import earlier_call
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import reviews as service
from github_mcp.services.reviews import (
    BranchUpdate,
    PendingReview,
    ReviewRequests,
    ThreadReply,
    UnresolvedComments,
    get_pull,
    reply_in_thread,
    resolve_thread,
    unresolved_comments,
)
from github_mcp.services.shared import approved_records
from github_mcp.services.shared.approved_state import RemoteState
from github_mcp.services.shared.paging import offset_from_cursor as _offset
from github_mcp.tools._bindings import still_as_approved
from github_mcp.tools._pull_targets import merge_head, pr_head_branch, pr_state

TOOLSET = "pull_request_reviews"
Number = Annotated[int, Field(ge=1)]
Name = Annotated[
    str,
    Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$"),
]
Names = Annotated[list[Name], Field(max_length=15)]


async def pending_review(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """For a submit: the pending review's body and every comment in it, which submitting
    publishes, and the commit it reviews. The other actions publish nothing yet."""
    if kwargs.get("action") != "submit":
        return RemoteState(())
    full_name, number = kwargs["full_name"], kwargs["number"]
    # without review_id, the caller's own pending review (the one the handler will submit)
    review_id = kwargs.get("review_id") or await service.pending_review_id(
        call.rt.github, full_name, number
    )
    state = await approved_records.pending_review_state(
        call.rt.github, full_name, number, review_id
    )
    return replace(state, facts=(("review_id", str(review_id)), *state.facts))


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it requests (or withdraws) reviews from the named users and teams"),
)
async def request_pr_reviewers(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    users: Names | None = None,
    teams: Names | None = None,
    remove: bool = False,
) -> ReviewRequests:
    """Request reviews on a PR from users and team slugs (remove=true withdraws them)."""
    assert full_name and number
    if not users and not teams:
        raise invalid_input("no reviewers given", hint="Give users (logins) or teams (slugs).")
    return await service.change_review_requests(
        call.rt.github, full_name, number, users or [], teams or [], remove
    )


class DraftState(BaseModel):
    pr: int
    draft: bool
    changed: bool

    def written(self, repo: str) -> Written | None:
        return Written(repo) if self.changed else None


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it sets the PR's draft flag to the value given"),
)
async def set_pr_draft(
    call: Call,
    draft: bool,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
) -> DraftState:
    """Convert a PR to a draft (draft=true) or mark it ready for review (draft=false)."""
    assert full_name and number
    was, now = await service.set_draft(call.rt.github, full_name, number, draft)
    return DraftState(pr=number, draft=now, changed=now != was)


class BranchUpdated(BranchUpdate):
    def written(self, repo: str) -> Written:
        return Written(repo, self.branch, self.head_sha) if self.updated else Written(repo)


@tool(toolset=TOOLSET, write=True, target=pr_head_branch, binds=pr_state)
async def update_pr_branch(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    expected_head_sha: Sha | None = None,
) -> BranchUpdated:
    """Merge the PR's base into its head branch (gated by it); expected_head_sha guards races."""
    assert full_name and number
    head = merge_head(call, expected_head_sha, done="updated")
    if head is None:
        head = (await get_pull(call.rt.github, full_name, number))["head"]["sha"]
    found = await service.update_branch(call.rt.github, full_name, number, head)
    return BranchUpdated(**found.model_dump())


Side = Literal["LEFT", "RIGHT"]


class ReviewLine(BaseModel):
    """A line comment (start_line spans lines), or a FILE one (no line)."""

    path: Annotated[str, Field(min_length=1, max_length=4096)]
    line: Annotated[int, Field(ge=1)] | None = None
    side: Side = "RIGHT"
    start_line: Annotated[int, Field(ge=1)] | None = None
    start_side: Side | None = None
    subject_type: Literal["LINE", "FILE"] = "LINE"
    body: Annotated[str, Field(min_length=1, max_length=65536)]

    @model_validator(mode="after")
    def _anchored(self) -> ReviewLine:
        if self.subject_type == "LINE" and self.line is None:
            raise ValueError("a LINE comment needs line (or use subject_type FILE)")
        if self.subject_type == "FILE" and (self.line or self.start_line):
            raise ValueError("a FILE comment is on the whole file: no line or start_line")
        return self


@tool(toolset=TOOLSET, write=True, target=None, binds=pending_review)
async def pending_pr_review(
    call: Call,
    action: Literal["start", "comment", "submit", "delete"],
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    body: Body = "",
    comments: Annotated[list[ReviewLine], Field(max_length=50)] | None = None,
    review_id: Number | None = None,
    event: Literal["COMMENT", "APPROVE", "REQUEST_CHANGES"] | None = None,
) -> PendingReview:
    """Start a pending review, add line or file comments, submit it with an event or delete
    it; review_id defaults to your pending one."""
    assert full_name and number
    lines: list[dict[str, Any]] = [c.model_dump(exclude_none=True) for c in comments or []]
    if action == "start":
        return await service.start_review(call.rt.github, full_name, number, body, lines)
    if action == "comment" and not lines:
        raise invalid_input("comment needs comments", hint="Give path, body and line (or FILE).")
    if action == "submit" and event is None:
        raise invalid_input("submit needs an event", hint="COMMENT, APPROVE or REQUEST_CHANGES.")
    if review_id is None:
        review_id = await service.pending_review_id(call.rt.github, full_name, number)
    if action == "comment":
        return await service.add_review_comments(
            call.rt.github, full_name, number, review_id, lines
        )
    chosen = event if action == "submit" else None
    ends = {"full_name": full_name, "number": number, "action": action, "review_id": review_id}
    await still_as_approved(call, pending_review, ends)  # a submit publishes what was shown
    return await service.end_review(call.rt.github, full_name, number, review_id, chosen, body)


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
