"""Watching workflow runs for changes of state, for as long as someone listens.

Each poll of a run is one conditional GET (If-None-Match with the ETag the last answer
carried): an unchanged run costs a 304, which GitHub's rate limit does not count. A change
is a new status or conclusion, reported once. A rate limit pauses the polling until it
says to come back; GitHub failing makes it back off. A run that disappears or becomes
unreadable (404, 403) is reported once more, as a change, and no longer polled: a read
of it then says why.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.services.shared.repo_facts import repo_path

RunState = tuple[str | None, str | None]  # (status, conclusion)
GONE_CODES = frozenset({ErrorCode.NOT_FOUND, ErrorCode.FORBIDDEN, ErrorCode.PERMISSION_DENIED})
MAX_BACKOFF_S = 300.0


@dataclass
class WatchedRun:
    key: str  # what the watcher is told on a change (a resource URI)
    full_name: str
    run_id: int
    state: RunState  # as last seen
    gone: bool = False


async def run_state(github: GitHubClient, full_name: str, run_id: int, fresh_s: float) -> RunState:
    """The run's status and conclusion, revalidated with its ETag once `fresh_s` passed."""
    run = await github.get_json(
        f"{repo_path(full_name)}/actions/runs/{run_id}", repo=full_name, ttl=fresh_s
    )
    return run.get("status"), run.get("conclusion")


async def watch_runs(
    github: GitHubClient,
    runs: Sequence[WatchedRun],
    changed: Callable[[WatchedRun], Awaitable[None]],
    *,
    interval_s: float,
) -> None:
    """Poll every run each `interval_s` and await `changed(run)` once per change, until
    cancelled (or no run is left to poll)."""
    wait, polls = interval_s, 0
    try:
        while any(not run.gone for run in runs):
            await asyncio.sleep(wait)
            failed, polls = await _round(github, runs, changed, interval_s / 2, polls)
            wait = interval_s if failed is None else _pause(failed, wait)
            if failed is not None:
                log_event("run_watch_paused", code=failed.code.value, wait_s=round(wait, 1))
    finally:
        log_event("run_watch_stopped", runs=len(runs), polls=polls)


async def _round(
    github: GitHubClient,
    runs: Sequence[WatchedRun],
    changed: Callable[[WatchedRun], Awaitable[None]],
    fresh_s: float,
    polls: int,
) -> tuple[GitHubMCPError | None, int]:
    """One poll of each run still watched; stops at a failure that is not the run's own
    (a rate limit, GitHub down) and returns it."""
    for run in runs:
        if run.gone:
            continue
        polls += 1
        try:
            state = await run_state(github, run.full_name, run.run_id, fresh_s)
        except GitHubMCPError as exc:
            if exc.code not in GONE_CODES:
                return exc, polls
            run.gone = True
            await changed(run)
            continue
        if state != run.state:
            run.state = state
            await changed(run)
    return None, polls


def _pause(exc: GitHubMCPError, wait: float) -> float:
    """How long to wait after a failed round: as a rate limit says, else twice as long as
    the last wait (GitHub down or slow), within MAX_BACKOFF_S."""
    if exc.code == ErrorCode.RATE_LIMITED:
        after = exc.details.get("retry_after")
        return float(after) if isinstance(after, int | float) and after > 0 else 60.0
    return min(wait * 2, MAX_BACKOFF_S)
