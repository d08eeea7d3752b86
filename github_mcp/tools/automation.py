"""PR automation (the resolve-pr tools): failing tests with rerun commands, unresolved review
threads, merge conflicts by file, merge readiness, and stacked PRs. Also the review-thread
writes they point to (toolset pull_requests)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.services import ci
from github_mcp.services.ci import collect_failures, job_summary
from github_mcp.services.paging import cursor_for_offset as _cursor
from github_mcp.services.paging import offset_from_cursor as _offset
from github_mcp.services.pulls import (
    call_text,
    check_readiness,
    detect_conflicts,
    execute_stack,
    get_pull,
    plan_stack,
    pr_label,
    reply_to_thread,
    set_thread_resolved,
    thread_resolution_in_pull,
    unresolved_comments,
)

from ..errors import ErrorCode, GitHubMCPError, invalid_input
from ..params import Cursor, FullName, PrRef, parse_pr_ref
from ..registry import Call, tool
from .actions import CheckCountsOut, PollSeconds, TimeoutSeconds
from .issues import AUTHOR_ASSOCIATION, WITHHELD
from .workspace import manager

TOOLSET = "automation"
Number = Annotated[int, Field(ge=1)]
ThreadId = Annotated[
    str,
    Field(
        min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_=-]+$", description="Review thread id."
    ),
]


# --- get_failing_tests -----


class FailingTest(BaseModel):
    test: str
    file: str | None = None
    line: int | None = None
    message: str
    job: str
    runner: str
    rerun: str | None = None


class FailedJob(BaseModel):
    job: str
    job_id: int
    conclusion: str | None = None
    step: str | None = None
    tests: int
    error: str | None = None
    note: str | None = Field(None, description="What the log parser's size budget left unread.")


class OtherFailure(BaseModel):
    check: str
    kind: str
    detail: str | None = None
    url: str | None = None


class FailingTests(BaseModel):
    pr: int
    head_sha: str
    status: Literal["failed", "pending", "passed", "no_checks"]
    checks: CheckCountsOut
    failures: list[FailingTest]
    total_failures: int
    failed_jobs: list[FailedJob] | None = None
    other_failures: list[OtherFailure] | None = None
    pending: list[str] | None = None
    waited_s: float | None = None
    next_cursor: str | None = None
    next: list[str] | None = None


def _run_tests_hint(full_name: str, ref: str, rerun: str) -> str:
    match = re.match(r"^cd (\S+) && (.+)$", rerun)
    workdir, command = (match.group(1), match.group(2)) if match else (None, rerun)
    return call_text(
        "run_tests", full_name=full_name, ref=ref, test_command=command, workdir=workdir
    )


@tool(toolset=TOOLSET)
async def get_failing_tests(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    wait: bool = False,
    bail_on_first: bool = True,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    cursor: Cursor | None = None,
    timeout_seconds: TimeoutSeconds = 300,
    poll_interval_seconds: PollSeconds = 5,
) -> FailingTests:
    """Failing tests of the PR's head commit, parsed from its failed CI job logs, each with
    the command that reruns it; wait=true waits (bounded) for CI, returning at the first
    failure under bail_on_first."""
    assert full_name and number
    github = call.rt.github
    data = await get_pull(github, full_name, number)
    sha = data["head"]["sha"]
    waited = None
    done = True
    if wait:

        def finished(checks: list[ci.Check]) -> bool:
            if bail_on_first and any(c.state == "failed" for c in checks):
                return True
            return bool(checks) and all(c.state != "pending" for c in checks)

        async def report(checks: list[ci.Check], polls: int, elapsed: float) -> None:
            counts = ci.count_checks(checks)
            await call.progress(
                round(elapsed, 2),
                timeout_seconds,
                f"{counts.total - counts.pending}/{counts.total} checks done, "
                f"{counts.failed} failed",
            )

        polled = await ci.poll(
            lambda: ci.commit_checks(github, full_name, sha),
            finished,
            timeout_s=timeout_seconds,
            interval_s=poll_interval_seconds,
            on_poll=report,
        )
        checks, done, waited = polled.value, polled.done, polled.elapsed_s
    else:
        checks = await ci.commit_checks(github, full_name, sha)
    found = await collect_failures(github, full_name, sha, checks)
    counts = found.counts
    offset = _offset(cursor)
    page = found.tests[offset : offset + limit]
    more = offset + limit < len(found.tests)
    nxt: list[str] = []
    first_rerun = next((t.rerun for t in page if t.rerun), None)
    if first_rerun:
        nxt.append("Reproduce: " + _run_tests_hint(full_name, data["head"]["ref"], first_rerun))
    for job in found.jobs:
        if not job.tests:
            nxt.append(
                call_text("get_job_logs", full_name=full_name, job_id=job.job_id,
                          failed_steps_only=True)
            )  # fmt: skip
    if not done:
        nxt.append(call_text("get_failing_tests", pr=pr_label(full_name, number), wait=True))
    status = "failed" if found.tests else found.status
    if not done:
        status = "pending"  # the wait hit its deadline; what failed so far is listed
    return FailingTests(
        pr=number,
        head_sha=sha,
        status=status,  # type: ignore[arg-type]
        checks=CheckCountsOut(
            total=counts.total, passed=counts.passed, failed=counts.failed, pending=counts.pending
        ),
        failures=[
            FailingTest(
                test=t.test,
                file=None if t.file and t.test.startswith(t.file) else t.file,
                line=t.line,
                message=t.message,
                job=t.job,
                runner=t.runner,
                rerun=t.rerun,
            )
            for t in page
        ],
        total_failures=len(found.tests),
        failed_jobs=[FailedJob(**j) for j in job_summary(found.jobs)] or None,
        other_failures=[
            OtherFailure(check=c.name, kind=c.kind, detail=c.detail, url=c.url)
            for c in found.other_failures
        ]
        or None,
        pending=counts.waiting[:20] or None,
        waited_s=waited,
        next_cursor=_cursor(offset + limit if more else None),
        next=nxt[:4] or None,
    )


# --- find_unresolved_comments -----


class Reply(BaseModel):
    author: str | None = None
    author_association: str | None = AUTHOR_ASSOCIATION
    withheld: bool | None = WITHHELD
    body: str


class Thread(BaseModel):
    thread_id: str
    path: str | None = None
    line: int | None = None
    outdated: bool | None = None
    author: str | None = None
    author_association: str | None = AUTHOR_ASSOCIATION
    withheld: bool | None = WITHHELD
    body: str
    replies: int | None = None
    last_reply: Reply | None = None
    awaiting: Literal["author", "reviewer"]
    reply: str
    resolve: str


class ConversationComment(BaseModel):
    id: int
    author: str | None = None
    author_association: str | None = AUTHOR_ASSOCIATION
    withheld: bool | None = WITHHELD
    created_at: str | None = None
    body: str


class CommentCounts(BaseModel):
    threads: int
    unresolved: int
    resolved: int
    outdated: int | None = None
    issue_comments: int
    bots_hidden: int | None = None


class UnresolvedComments(BaseModel):
    pr: int
    threads: list[Thread]
    issue_comments: list[ConversationComment]
    counts: CommentCounts
    review_decision: str | None = None
    partial: bool | None = None
    next_cursor: str | None = None
    next: str | None = None


@tool(toolset=TOOLSET)
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
    """Unresolved review threads (with the reply and resolve calls for each) and the
    conversation comments of others, listed separately."""
    assert full_name and number
    found = await unresolved_comments(
        call.rt.github, full_name, number, include_bots=include_bots, sort=sort,
        offset=_offset(cursor), limit=limit, lockdown=call.rt.settings.lockdown,
    )  # fmt: skip
    nxt = None
    if found["issue_comments"]:
        nxt = "Answer a conversation comment: " + call_text(
            "comment_on_pull_request", pr=pr_label(full_name, number), body="…"
        )
    return UnresolvedComments(
        pr=number,
        threads=[Thread(**t) for t in found["threads"]],
        issue_comments=[ConversationComment(**c) for c in found["issue_comments"]],
        counts=CommentCounts(**found["counts"]),
        review_decision=found["review_decision"],
        partial=found["partial"],
        next_cursor=_cursor(found["next_offset"]),
        next=nxt,
    )


# --- review-thread writes (toolset pull_requests) ----------------------------------------------


class ThreadResolution(BaseModel):
    thread_id: str
    resolved: bool
    changed: bool


@tool(toolset="pull_requests", write=True, target=None, idempotent=True)
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
    was = await thread_resolution_in_pull(call.rt.github, full_name, number, thread_id)
    want = not unresolve
    now = was
    if was != want:
        now = await set_thread_resolved(call.rt.github, thread_id, want)
        call.rt.invalidate_repo(full_name)
    return ThreadResolution(thread_id=thread_id, resolved=now, changed=now != was)


class ThreadReply(BaseModel):
    thread_id: str
    comment_id: int | None = None
    url: str | None = None


@tool(toolset="pull_requests", write=True, target=None)
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
    await thread_resolution_in_pull(call.rt.github, full_name, number, thread_id)
    comment = await reply_to_thread(call.rt.github, thread_id, body)
    call.rt.invalidate_repo(full_name)
    return ThreadReply(
        thread_id=thread_id, comment_id=comment.get("databaseId"), url=comment.get("url")
    )


# --- detect_merge_conflicts -----


class ConflictFile(BaseModel):
    path: str
    kinds: list[str] | None = None
    preview: str | None = None


class MergeConflicts(BaseModel):
    number: int
    base: str
    head: str
    head_sha: str
    verdict: Literal["clean", "conflicting"]
    mergeable: bool | None = None
    mergeable_state: str | None = None
    computed_by_github: bool
    conflicts: list[ConflictFile]
    resolve: list[str] | None = None
    then: str | None = None
    note: str | None = None


@tool(toolset=TOOLSET)
async def detect_merge_conflicts(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    timeout_seconds: TimeoutSeconds = 30,
    poll_interval_seconds: PollSeconds = 1,
) -> MergeConflicts:
    """Whether the PR conflicts with its base (waiting, bounded, for GitHub to compute it) and,
    by a trial merge in a scratch clone, which files conflict and how to resolve them."""
    assert full_name and number
    found = await detect_conflicts(
        call.rt.github, manager(call).scratch(), full_name, number,
        timeout_s=timeout_seconds, interval_s=poll_interval_seconds, on_progress=call.progress,
    )  # fmt: skip
    found.pop("trial_merge", None)
    return MergeConflicts(**found)


# --- check_merge_readiness -----


class Item(BaseModel):
    kind: str
    detail: str
    action: str


class Approvals(BaseModel):
    required: int | None = None
    approved_by: list[str]
    changes_requested_by: list[str] | None = None
    review_decision: str | None = None
    code_owners_required: bool | None = None


class MergeReadiness(BaseModel):
    verdict: Literal["ready", "pending", "blocked"]
    number: int
    head: str
    base: str
    head_sha: str
    state: str | None = None
    draft: bool | None = None
    mergeable: bool | None = None
    approvals: Approvals | None = None
    required_checks: dict[str, str] | None = None
    checks: dict[str, int] | None = None
    behind_by: int | None = None
    unresolved_threads: int | None = None
    protection: str | None = None
    blocking: list[Item]
    warnings: list[Item] | None = None


@tool(toolset=TOOLSET)
async def check_merge_readiness(
    call: Call,
    pr: PrRef | None = None,
    full_name: FullName | None = None,
    number: Number | None = None,
    timeout_seconds: TimeoutSeconds = 15,
    poll_interval_seconds: PollSeconds = 1,
) -> MergeReadiness:
    """One verdict (ready, pending, blocked) from branch protection, latest reviews, required
    checks, behind-by, unresolved threads, draft and mergeability; each blocking item comes
    with the action that clears it."""
    assert full_name and number
    found = await check_readiness(
        call.rt.github, full_name, number, timeout_s=timeout_seconds,
        interval_s=poll_interval_seconds, on_progress=call.progress,
    )  # fmt: skip
    facts = dict(found.facts)
    if facts.get("draft") is False:
        facts.pop("draft")
    return MergeReadiness(
        verdict=found.verdict,  # type: ignore[arg-type]
        **facts,
        blocking=[Item(**b) for b in found.blocking],
        warnings=[Item(**w) for w in found.warnings] or None,
    )


# --- manage_stacked_prs -----


_NUMBER = re.compile(r"^#?(\d+)$")
StackRef = Annotated[
    str,
    Field(
        min_length=1,
        max_length=400,
        description="'owner/repo#N', a PR URL, or a PR number (then give full_name).",
    ),
]


def _stack_refs(kwargs: dict[str, Any]) -> tuple[str, int, int]:
    """(full_name, base number, dependent number) from the two PR references."""
    given = kwargs.get("full_name")
    repos = {given.lower()} if given else set()
    numbers: dict[str, int] = {}
    for role in ("base", "dependent"):
        ref = str(kwargs.get(f"{role}_pr") or "").strip()
        bare = _NUMBER.match(ref)
        if bare:
            numbers[role] = int(bare.group(1))
            continue
        repo, numbers[role] = parse_pr_ref(ref)
        repos.add(repo.lower())
        given = given or repo
    if not given:
        raise invalid_input("give full_name, or the PRs as 'owner/repo#N'")
    if len(repos) > 1:
        raise invalid_input("base_pr and dependent_pr must be in the same repository")
    if min(numbers.values()) < 1:
        raise invalid_input("PR numbers start at 1")
    return given, numbers["base"], numbers["dependent"]


async def stack_target(call: Call, kwargs: dict[str, Any]) -> str | None:
    """Gate target: the dependent PR's head branch. It also settles which repository the
    PRs are in and applies the allow-list when only PR refs named it."""
    full_name, base_number, dependent_number = _stack_refs(kwargs)
    if not kwargs.get("full_name"):
        call.rt.gate.check_repo_allowed(full_name)
        call.repo = full_name
    kwargs.update(full_name=full_name)
    call.extras["stack"] = (base_number, dependent_number)
    dependent = await get_pull(call.rt.github, full_name, dependent_number)
    return dependent["head"]["ref"]


class StackPr(BaseModel):
    number: int
    head: str
    base: str
    head_sha: str
    state: str


class Executed(BaseModel):
    status: Literal["rebased", "up_to_date", "conflict"]
    old_head_sha: str
    new_head_sha: str | None = None
    replayed: int | None = None
    pushed: bool
    retargeted_to: str | None = None
    conflicts: list[str] | None = None
    failed_commit: str | None = None
    workspace: str | None = None


class StackResult(BaseModel):
    stacked: bool
    status: str
    detail: str
    base_pr: StackPr
    dependent_pr: StackPr
    strategy: str
    commits_to_carry: int | None = None
    base_commits_missing: int | None = None
    commands: list[str] | None = None
    executed: Executed | None = None
    next: str | None = None


def _stack_pr(data: dict[str, Any]) -> StackPr:
    state = "merged" if data.get("merged_at") else data.get("state", "open")
    return StackPr(
        number=data["number"],
        head=data["head"]["ref"],
        base=data["base"]["ref"],
        head_sha=data["head"]["sha"],
        state=state,
    )


@tool(toolset=TOOLSET, write=True, target=stack_target, destructive=True)
async def manage_stacked_prs(
    call: Call,
    base_pr: StackRef,
    dependent_pr: StackRef,
    full_name: FullName | None = None,
    execute: bool = False,
) -> StackResult:
    """Check that dependent_pr is stacked on base_pr, count the commits to carry and give the
    exact rebase commands (rebase --onto after a squash merge); execute=true rebases in a
    scratch clone and pushes with --force-with-lease (on conflict: the files, branch untouched)."""
    assert full_name
    base_number, dependent_number = call.extras["stack"]
    github = call.rt.github
    plan = await plan_stack(github, full_name, base_number, dependent_number)
    label = pr_label(full_name, dependent_number)
    result = StackResult(
        stacked=plan.stacked,
        status=plan.status,
        detail=plan.detail,
        base_pr=_stack_pr(plan.base),
        dependent_pr=_stack_pr(plan.dependent),
        strategy=plan.strategy,
        commits_to_carry=plan.commits_to_carry,
        base_commits_missing=plan.base_commits_missing,
        commands=plan.commands or None,
    )
    if not execute:
        if plan.actionable:
            result.next = call_text(
                "manage_stacked_prs", full_name=full_name, base_pr=str(base_number),
                dependent_pr=str(dependent_number), execute=True,
            )  # fmt: skip
        return result
    if not plan.stacked:
        raise GitHubMCPError(ErrorCode.UNPROCESSABLE, plan.detail, hint="Fix the stack first.")
    if not plan.actionable:
        return result
    workspace = manager(call)
    outcome, retargeted = await execute_stack(github, workspace.scratch(), plan)
    call.rt.invalidate_repo(full_name)
    refreshed = None
    if outcome.pushed:
        refreshed = await workspace.refresh_after_api_commit(full_name, plan.dependent_branch)
    result.executed = Executed(
        status=outcome.status,  # type: ignore[arg-type]
        old_head_sha=outcome.old_sha,
        new_head_sha=outcome.new_sha,
        replayed=outcome.replayed,
        pushed=outcome.pushed,
        retargeted_to=plan.retarget_to if retargeted else None,
        conflicts=outcome.conflicts or None,
        failed_commit=outcome.failed_commit,
        workspace=refreshed if refreshed not in (None, "no_clone") else None,
    )
    if outcome.status == "conflict":
        result.next = (
            "Nothing was pushed. Rebase by hand with the commands above and resolve: "
            + ", ".join(outcome.conflicts[:10])
        )
    elif outcome.pushed:
        result.next = call_text("get_failing_tests", pr=label, wait=True)
    return result
