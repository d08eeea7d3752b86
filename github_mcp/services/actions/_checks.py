"""A commit's checks: check runs (the latest per name) and commit statuses, as one list
with passed/failed/pending counts."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from github_mcp.github.client import GitHubClient
from github_mcp.services.actions._models import CheckCountsOut
from github_mcp.services.actions._runs import FAILED_CONCLUSIONS
from github_mcp.services.shared.repo_facts import repo_path

MAX_CHECKS = 300
ACTIONS_APP = "github-actions"


@dataclass
class Check:
    """One check on a commit: an Actions job, another app's check run, or a commit status."""

    name: str
    kind: str  # job | check | status
    state: str  # passed | failed | pending
    conclusion: str | None = None
    id: int | None = None
    detail: str | None = None
    url: str | None = None


def _check_state(status: str | None, conclusion: str | None) -> str:
    if status != "completed":
        return "pending"
    return "failed" if conclusion in FAILED_CONCLUSIONS else "passed"


def checks_from(runs: list[dict[str, Any]], statuses: list[dict[str, Any]]) -> list[Check]:
    latest: dict[str, dict[str, Any]] = {}
    for run in runs:  # the newest check run per name wins (re-runs add new ones)
        name = run.get("name") or "check"
        if name not in latest or int(run.get("id", 0)) > int(latest[name].get("id", 0)):
            latest[name] = run
    out = []
    for run in latest.values():
        app = (run.get("app") or {}).get("slug")
        output = run.get("output") or {}
        out.append(
            Check(
                name=run.get("name") or "check",
                kind="job" if app == ACTIONS_APP else "check",
                state=_check_state(run.get("status"), run.get("conclusion")),
                conclusion=run.get("conclusion") or run.get("status"),
                id=run.get("id"),
                detail=(output.get("title") or None) if app != ACTIONS_APP else None,
            )
        )
    for status in statuses:
        state = status.get("state")
        out.append(
            Check(
                name=status.get("context") or "status",
                kind="status",
                state={"pending": "pending", "success": "passed"}.get(state or "", "failed"),
                conclusion=state,
                detail=status.get("description") or None,
                url=status.get("target_url") or None,
            )
        )
    return sorted(out, key=lambda c: (c.state != "failed", c.state != "pending", c.name))


async def commit_checks(github: GitHubClient, full_name: str, sha: str) -> list[Check]:
    """Check runs (latest per name) and commit statuses (latest per context) of a commit."""
    base = f"{repo_path(full_name)}/commits/{sha}"
    runs, combined = await asyncio.gather(
        github.collect(f"{base}/check-runs", items_key="check_runs", max_items=MAX_CHECKS),
        github.request_json("GET", f"{base}/status", params={"per_page": 100}),
    )
    return checks_from(runs, (combined or {}).get("statuses") or [])


@dataclass
class CheckCounts:
    total: int = 0
    passed: int = 0
    failed: int = 0
    pending: int = 0
    failing: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)

    @property
    def state(self) -> str:
        if not self.total:
            return "none"
        if self.failed:
            return "failure"
        return "pending" if self.pending else "success"

    def out(self) -> CheckCountsOut:
        """The counts as the tools show them."""
        return CheckCountsOut(
            total=self.total, passed=self.passed, failed=self.failed, pending=self.pending
        )


def count_checks(checks: list[Check]) -> CheckCounts:
    counts = CheckCounts(total=len(checks))
    for check in checks:
        if check.state == "failed":
            counts.failed += 1
            counts.failing.append(check.name)
        elif check.state == "pending":
            counts.pending += 1
            counts.waiting.append(check.name)
        else:
            counts.passed += 1
    return counts
