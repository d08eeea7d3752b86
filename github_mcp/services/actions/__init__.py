"""CI: workflow runs and jobs, job logs cut to what matters, and failing tests parsed
from runner output (the runners/ parsers).

The modules behind this face are private; import from the package.
"""

from __future__ import annotations

from github_mcp.services.actions._checks import Check, CheckCounts, commit_checks, count_checks
from github_mcp.services.actions._failures import collect_failures, job_summary
from github_mcp.services.actions._job_excerpt import JobLogs, Narrowing, job_logs
from github_mcp.services.actions._joblogs import DEFAULT_MAX_BYTES, MIN_MAX_BYTES, select
from github_mcp.services.actions._models import (
    CheckCountsOut,
    Dispatched,
    FailedJob,
    JobSummary,
    OpenPull,
    RunSummary,
    StepRef,
)
from github_mcp.services.actions._poll import poll
from github_mcp.services.actions._runs import (
    FAILED_CONCLUSIONS,
    branch_head,
    compact_job,
    compact_run,
    dispatch_workflow,
    fetch_job_log,
    get_job,
    get_run,
    list_runs,
    open_pull_for_branch,
    rerun_failed_jobs,
    run_jobs,
    wait_for_run,
)
from github_mcp.services.actions._test_output import parse_counts, parse_failures, parse_junit_xml
from github_mcp.services.actions._watch import WatchedRun, watch_runs

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FAILED_CONCLUSIONS",
    "MIN_MAX_BYTES",
    "Check",
    "CheckCounts",
    "CheckCountsOut",
    "Dispatched",
    "FailedJob",
    "JobLogs",
    "JobSummary",
    "Narrowing",
    "OpenPull",
    "RunSummary",
    "StepRef",
    "WatchedRun",
    "branch_head",
    "collect_failures",
    "commit_checks",
    "compact_job",
    "compact_run",
    "count_checks",
    "dispatch_workflow",
    "fetch_job_log",
    "get_job",
    "get_run",
    "job_logs",
    "job_summary",
    "list_runs",
    "open_pull_for_branch",
    "parse_counts",
    "parse_failures",
    "parse_junit_xml",
    "poll",
    "rerun_failed_jobs",
    "run_jobs",
    "select",
    "wait_for_run",
    "watch_runs",
]
