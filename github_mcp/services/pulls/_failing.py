"""The failing tests of a pull request's head commit: its checks (waited for, bounded, when
asked), the tests parsed from the failed jobs' logs, one page of them, and the calls that
come next (reproduce one, read a log the parser found no test in, wait again)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from github_mcp.github.client import GitHubClient
from github_mcp.services import actions as ci
from github_mcp.services.actions import collect_failures, job_summary
from github_mcp.services.pulls._automation import ProgressFn, pr_label
from github_mcp.services.pulls._service import get_pull
from github_mcp.services.shared.suggested_calls import call_text

MAX_NEXT_CALLS = 4


@dataclass
class FailingTestsPage:
    number: int
    head_sha: str
    status: str  # failed | pending | passed | no_checks
    counts: ci.CheckCounts
    tests: list[Any]  # this page of the parsed failing tests
    total: int
    jobs: list[ci.FailedJob] = field(default_factory=list)
    other_failures: list[ci.Check] = field(default_factory=list)
    waited_s: float | None = None
    next_offset: int | None = None
    next_calls: list[str] = field(default_factory=list)


async def failing_tests(
    github: GitHubClient,
    full_name: str,
    number: int,
    *,
    wait: bool = False,
    bail_on_first: bool = True,
    timeout_s: float = 300,
    interval_s: float = 5,
    on_progress: ProgressFn | None = None,
    offset: int = 0,
    limit: int = 10,
) -> FailingTestsPage:
    """Failing tests of the PR's head commit; with `wait`, first wait (bounded) for its
    checks to finish, or for the first failure under `bail_on_first`."""
    pull = await get_pull(github, full_name, number)
    sha = pull["head"]["sha"]
    checks, done, waited = await _checks(
        github, full_name, sha, wait, bail_on_first, timeout_s, interval_s, on_progress
    )
    found = await collect_failures(github, full_name, sha, checks)
    page = found.tests[offset : offset + limit]
    more = offset + limit < len(found.tests)
    nxt: list[str] = []
    first_rerun = next((t.rerun for t in page if t.rerun), None)
    if first_rerun:
        nxt.append("Reproduce: " + _run_tests_hint(full_name, pull["head"]["ref"], first_rerun))
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
    return FailingTestsPage(
        number=number,
        head_sha=sha,
        status=status,
        counts=found.counts,
        tests=page,
        total=len(found.tests),
        jobs=job_summary(found.jobs),
        other_failures=list(found.other_failures),
        waited_s=waited,
        next_offset=offset + limit if more else None,
        next_calls=nxt[:MAX_NEXT_CALLS],
    )


async def _checks(
    github: GitHubClient,
    full_name: str,
    sha: str,
    wait: bool,
    bail_on_first: bool,
    timeout_s: float,
    interval_s: float,
    on_progress: ProgressFn | None,
) -> tuple[list[ci.Check], bool, float | None]:
    """(checks, done, seconds waited or None when not asked to wait)."""
    if not wait:
        return await ci.commit_checks(github, full_name, sha), True, None

    def finished(checks: list[ci.Check]) -> bool:
        if bail_on_first and any(c.state == "failed" for c in checks):
            return True
        return bool(checks) and all(c.state != "pending" for c in checks)

    async def report(checks: list[ci.Check], polls: int, elapsed: float) -> None:
        if on_progress is None:
            return
        counts = ci.count_checks(checks)
        await on_progress(
            round(elapsed, 2),
            timeout_s,
            f"{counts.total - counts.pending}/{counts.total} checks done, {counts.failed} failed",
        )

    polled = await ci.poll(
        lambda: ci.commit_checks(github, full_name, sha),
        finished,
        timeout_s=timeout_s,
        interval_s=interval_s,
        on_poll=report,
    )
    return polled.value, polled.done, polled.elapsed_s


def _run_tests_hint(full_name: str, ref: str, rerun: str) -> str:
    match = re.match(r"^cd (\S+) && (.+)$", rerun)
    workdir, command = (match.group(1), match.group(2)) if match else (None, rerun)
    return call_text(
        "run_tests", full_name=full_name, ref=ref, test_command=command, workdir=workdir
    )
