"""Failing tests of a commit: its checks, the logs of its failed Actions jobs, and the tests
those logs name, each with the command that reruns it locally.

A runner prints paths relative to where it ran (jest in `web/` prints `src/x.test.js`), so
the rerun command is prefixed with `cd <dir> &&` when the repository tree at the commit
shows the test files live under a subdirectory.
"""

from __future__ import annotations

import asyncio
import shlex
from collections import Counter
from dataclasses import dataclass, field

from github_mcp.github.client import (
    GitHubClient,
)
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.services.actions import _runs as ci
from github_mcp.services.actions._checks import Check, CheckCounts, count_checks
from github_mcp.services.actions._joblogs import select
from github_mcp.services.actions._models import FailedJob
from github_mcp.services.actions._test_output import (
    Budget,
    TestFailure,
    parse_failures,
    rerun_command,
)
from github_mcp.services.actions.runners.linear import compile_linear
from github_mcp.services.shared.github_json import Job
from github_mcp.services.shared.repo_facts import (
    repo_path,
)

MESSAGE_CHARS = 160
ERROR_EXCERPT_BYTES = 600
LOG_CONCURRENCY = 4
# Diff headers and hints runners print around an assertion, not part of what failed.
_BOILERPLATE = compile_linear(
    r"^(?:[-+] (?:Expected|Received)\s+[-+] \d+|@@ [-+\d, ]+ @@|\?\s*[\^+-]+"
    r"|Omitting \d+ identical items.*|Full diff:.*|Use -v+ to get .*|Differing items:)$"
)
_SPACES = compile_linear(r"\s+")
# Where hosted and container runners check the repository out.
_CHECKOUT = compile_linear(r"^(?:/home/runner/work|/__w)/[^/]+/[^/]+/")


@dataclass
class FailingTest:
    test: str
    message: str
    job: str
    job_id: int
    runner: str
    file: str | None = None
    line: int | None = None
    rerun: str | None = None


@dataclass
class JobFailures:
    """A failed job as its log was read: the tests found, or the error when none."""

    name: str
    job_id: int
    conclusion: str | None
    run_id: int | None = None
    step: str | None = None
    tests: int = 0
    error: str | None = None  # the end of the failed step, when no test could be named
    workdir: str | None = None
    note: str | None = None  # what the parse budget left unread


@dataclass
class FailureReport:
    head_sha: str
    checks: list[Check]
    tests: list[FailingTest] = field(default_factory=list)
    jobs: list[JobFailures] = field(default_factory=list)

    @property
    def counts(self) -> CheckCounts:
        return count_checks(self.checks)

    @property
    def status(self) -> str:
        counts = self.counts
        if counts.failed:
            return "failed"
        if counts.pending:
            return "pending"
        return "passed" if counts.total else "no_checks"

    @property
    def other_failures(self) -> list[Check]:
        """Failed checks that are not Actions jobs (statuses, other apps): no logs to read."""
        return [c for c in self.checks if c.state == "failed" and c.kind != "job"]


def short_message(text: str, limit: int = MESSAGE_CHARS) -> str:
    """The message on one line: runner boilerplate dropped, whitespace collapsed, capped."""
    lines = [_SPACES.sub(" ", ln.strip()) for ln in text.splitlines()]
    joined = " | ".join(ln for ln in lines if ln and not _BOILERPLATE.match(ln))
    return joined if len(joined) <= limit else joined[: limit - 1].rstrip() + "…"


def _relative(path: str) -> str:
    return str(_CHECKOUT.sub("", path))


def _workdir(files: list[str], tree: set[str]) -> str | None:
    """The directory the runner ran in, judged by where its test files are in the tree."""
    votes: Counter[str] = Counter()
    for path in files:
        if path in tree:
            votes[""] += 1
            continue
        suffix = "/" + path
        found = sorted((p[: -len(suffix)] for p in tree if p.endswith(suffix)), key=len)
        if found:
            votes[found[0]] += 1
    if not votes:
        return None
    best, _ = votes.most_common(1)[0]
    return best or None


async def repo_files(github: GitHubClient, full_name: str, sha: str) -> set[str]:
    """The blob paths of the commit's tree (what a truncated listing gives, when huge)."""
    try:
        data = await github.get_json(
            f"{repo_path(full_name)}/git/trees/{sha}",
            params={"recursive": "1"},
            immutable=True,
            repo=full_name,
        )
    except GitHubMCPError:
        return set()
    return {e["path"] for e in (data or {}).get("tree", []) if e.get("type") == "blob"}


def _rerun(failure: TestFailure, workdir: str | None) -> str | None:
    command = rerun_command(failure)
    if command and workdir:
        return f"cd {shlex.quote(workdir)} && {command}"
    return command


async def _job_failures(
    github: GitHubClient, full_name: str, check: Check
) -> tuple[JobFailures, list[TestFailure]]:
    assert check.id is not None
    job_id = check.id
    job = JobFailures(name=check.name, job_id=job_id, conclusion=check.conclusion)
    cache_key = f"{full_name}#{job_id}"
    found, cached = github.cache.lookup("ci_failures", cache_key)
    if found:
        detail, log = await _job_detail(github, full_name, job_id), None
    else:  # the job and its log need only its id: both asked at once
        detail, log = await asyncio.gather(
            _job_detail(github, full_name, job_id), _job_log(github, full_name, job_id)
        )
    if detail is not None:
        job.run_id = detail.get("run_id")
        steps = ci.failed_steps(detail)
        if steps:
            job.step = f"{steps[0].number}. {steps[0].name}"
    if isinstance(log, str):
        job.error = log
        return job, []
    if log is None:
        failures, error, note = cached
    else:
        # Off the event loop: a big log is bounded work, but other calls go on meanwhile.
        budget = Budget()
        failures = await asyncio.to_thread(parse_failures, log.text, budget=budget)
        note = budget.note()
        error = None
        if not failures:
            excerpt = select(
                log.text, failed_steps_only=True, tail_lines=8, max_bytes=ERROR_EXCERPT_BYTES
            )
            error = excerpt.text or None
        github.cache.set(
            "ci_failures", cache_key, (failures, error, note), ttl=None, repo=full_name
        )
    job.error = error
    job.note = note
    job.tests = len(failures)
    return job, failures


async def _job_detail(github: GitHubClient, full_name: str, job_id: int) -> Job | None:
    """The job's details; None when it is not an Actions job after all (its log tells
    what it can)."""
    try:
        return await ci.get_job(github, full_name, job_id)
    except GitHubMCPError:
        return None


async def _job_log(github: GitHubClient, full_name: str, job_id: int) -> ci.JobLog | str:
    """The job's log, or why it could not be read."""
    try:
        return await ci.fetch_job_log(github, full_name, job_id)
    except GitHubMCPError as exc:
        return exc.message


async def collect_failures(
    github: GitHubClient,
    full_name: str,
    sha: str,
    checks: list[Check],
    *,
    only_first_job: bool = False,
) -> FailureReport:
    """Failing tests from the logs of the failed Actions jobs among `checks`."""
    report = FailureReport(head_sha=sha, checks=checks)
    failed = [c for c in checks if c.state == "failed" and c.kind == "job" and c.id is not None]
    if only_first_job:
        failed = failed[:1]
    if not failed:
        return report
    gate = asyncio.Semaphore(LOG_CONCURRENCY)

    async def one(check: Check) -> tuple[JobFailures, list[TestFailure]]:
        async with gate:
            return await _job_failures(github, full_name, check)

    # the tree maps a test's file to the job's directory: most failures name a file, so it
    # is asked for beside the logs (once per commit: it is cached) and dropped if unused
    tree_task = asyncio.ensure_future(repo_files(github, full_name, sha))
    try:
        results = await asyncio.gather(*(one(c) for c in failed))
        for job, failures in results:
            report.jobs.append(job)
            await _add_tests(report, job, failures, tree_task)
    finally:
        tree_task.cancel()  # a no-op once done
    return report


async def _add_tests(
    report: FailureReport,
    job: JobFailures,
    failures: list[TestFailure],
    tree: asyncio.Future[set[str]],
) -> None:
    files = [_relative(f.file) for f in failures if f.file]
    if files:
        job.workdir = _workdir(files, await tree)
    prefix = f"{job.workdir}/" if job.workdir else ""
    for failure in failures:
        file = _relative(failure.file) if failure.file else None
        report.tests.append(
            FailingTest(
                test=failure.test,
                message=short_message(failure.message or ""),
                job=job.name,
                job_id=job.job_id,
                runner=failure.runner,
                file=prefix + file if file else None,
                line=failure.line,
                rerun=_rerun(failure, job.workdir),
            )
        )


def job_summary(jobs: list[JobFailures]) -> list[FailedJob]:
    return [
        FailedJob(
            job=j.name,
            job_id=j.job_id,
            conclusion=j.conclusion,
            step=j.step,
            tests=j.tests,
            error=j.error,
            note=j.note,
        )
        for j in jobs
    ]
