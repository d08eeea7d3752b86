"""Check suites, check runs and commit statuses: creating them, and what they add up to
(a suite's status, the combined status, each check's verdict for branch protection)."""

from __future__ import annotations

from sandbox_forge.stores.collab import CheckRun, CheckSuite, CommitStatus, collab
from sandbox_forge.stores.lookups import now
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

RUN_STATUSES = ("queued", "in_progress", "completed", "waiting", "requested", "pending")
CONCLUSIONS = (
    "success",
    "failure",
    "neutral",
    "cancelled",
    "skipped",
    "timed_out",
    "action_required",
)
PASSING = ("success", "neutral", "skipped")
STATUS_STATES = ("error", "failure", "pending", "success")


def add_check_suite(
    state: ForgeState,
    repo: RepoRecord,
    head_sha: str,
    head_branch: str | None = None,
    app: str = "github-actions",
) -> CheckSuite:
    with state.lock:
        stamp = now()
        suite = CheckSuite(
            id=state.next_id(),
            head_sha=head_sha,
            head_branch=head_branch,
            app=app,
            status="queued",
            conclusion=None,
            created_at=stamp,
            updated_at=stamp,
        )
        collab(repo).check_suites[suite.id] = suite
        return suite


def refresh_suite(repo: RepoRecord, suite_id: int) -> None:
    """A suite's status and conclusion follow its runs, as GitHub derives them."""
    data = collab(repo)
    suite = data.check_suites.get(suite_id)
    if suite is None:
        return
    runs = latest_by_name([r for r in data.check_runs.values() if r.suite_id == suite_id])
    suite.updated_at = now()
    if not runs or any(r.status != "completed" for r in runs):
        started = any(r.status != "queued" for r in runs)
        suite.status, suite.conclusion = ("in_progress" if started else "queued"), None
        return
    suite.status = "completed"
    conclusions = [r.conclusion or "neutral" for r in runs]
    for worst in ("action_required", "cancelled", "timed_out", "failure"):
        if worst in conclusions:
            suite.conclusion = worst
            return
    suite.conclusion = "success" if "success" in conclusions else conclusions[0]


def add_check_run(
    state: ForgeState,
    repo: RepoRecord,
    head_sha: str,
    name: str,
    status: str = "completed",
    conclusion: str | None = None,
    *,
    suite_id: int | None = None,
    head_branch: str | None = None,
    app: str = "github-actions",
    title: str | None = None,
    summary: str | None = None,
    text: str | None = None,
    details_url: str | None = None,
    external_id: str | None = None,
    started_at: float | None = None,
    completed_at: float | None = None,
) -> CheckRun:
    if status not in RUN_STATUSES:
        raise ValueError(f"check run status must be one of {RUN_STATUSES}")
    if status == "completed" and conclusion not in CONCLUSIONS:
        raise ValueError(f"a completed check run needs a conclusion in {CONCLUSIONS}")
    if status != "completed":
        conclusion = None
    with state.lock:
        if suite_id is None:
            suite_id = add_check_suite(state, repo, head_sha, head_branch, app).id
        stamp = now()
        run = CheckRun(
            id=state.next_id(),
            suite_id=suite_id,
            head_sha=head_sha,
            name=name,
            status=status,
            conclusion=conclusion,
            started_at=started_at
            if started_at is not None
            else (None if status == "queued" else stamp),
            completed_at=completed_at
            if completed_at is not None
            else (stamp if status == "completed" else None),
            app=app,
            title=title,
            summary=summary,
            text=text,
            details_url=details_url,
            external_id=external_id,
        )
        collab(repo).check_runs[run.id] = run
        refresh_suite(repo, suite_id)
        return run


def add_status(
    state: ForgeState,
    repo: RepoRecord,
    sha: str,
    state_value: str,
    context: str = "default",
    creator: str = "octocat",
    description: str | None = None,
    target_url: str | None = None,
) -> CommitStatus:
    if state_value not in STATUS_STATES:
        raise ValueError(f"status state must be one of {STATUS_STATES}")
    with state.lock:
        stamp = now()
        status = CommitStatus(
            id=state.next_id(),
            sha=sha,
            state=state_value,
            context=context,
            creator=state.ensure_user(creator).login,
            created_at=stamp,
            updated_at=stamp,
            description=description,
            target_url=target_url,
        )
        collab(repo).statuses[status.id] = status
        return status


def latest_by_name(runs: list[CheckRun]) -> list[CheckRun]:
    latest: dict[tuple[str, str], CheckRun] = {}
    for run in sorted(runs, key=lambda r: r.id):
        latest[(run.app, run.name)] = run
    return sorted(latest.values(), key=lambda r: r.id, reverse=True)


def latest_statuses(repo: RepoRecord, sha: str) -> list[CommitStatus]:
    latest: dict[str, CommitStatus] = {}
    for status in sorted(collab(repo).statuses.values(), key=lambda s: s.id):
        if status.sha == sha:
            latest[status.context] = status
    return sorted(latest.values(), key=lambda s: s.id, reverse=True)


def combined_state(statuses: list[CommitStatus]) -> str:
    states = {s.state for s in statuses}
    if states & {"error", "failure"}:
        return "failure"
    if not statuses or "pending" in states:
        return "pending"
    return "success"


def check_states(repo: RepoRecord, sha: str) -> dict[str, str]:
    """Name or context -> success / failure / pending, from the latest runs and statuses."""
    found: dict[str, str] = {}
    runs = [r for r in collab(repo).check_runs.values() if r.head_sha == sha]
    for run in latest_by_name(runs):
        if run.status != "completed":
            found.setdefault(run.name, "pending")
        else:
            found.setdefault(run.name, "success" if run.conclusion in PASSING else "failure")
    for status in latest_statuses(repo, sha):
        value = {"error": "failure"}.get(status.state, status.state)
        found.setdefault(status.context, value)
    return found
