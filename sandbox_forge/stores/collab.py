"""Plain data for collaboration features: issues, pull requests, reviews, checks, Actions.

Everything lives in `RepoRecord.extra["collab"]` as dataclasses (so snapshots can dump
it), and forge-wide settings in `ForgeState.extensions["collab"]`. Mutations happen under
`state.lock`. The route modules (rest/routes/: issues, pulls, reviews, checks, actions,
protection) and the GraphQL endpoint share these records; the helpers to find, count and
show them are in `lookups.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

DEFAULT_LABEL_COLOR = "ededed"
EXTENSION = "collab"


# --- records --------------------------------------------------------------------------------


@dataclass
class Label:
    id: int
    name: str
    color: str = DEFAULT_LABEL_COLOR
    description: str | None = None
    default: bool = False


@dataclass
class Pull:
    head_ref: str
    base_ref: str
    head_sha: str
    base_sha: str
    draft: bool = False
    merged: bool = False
    merged_at: float | None = None
    merged_by: str | None = None
    merge_commit_sha: str | None = None
    maintainer_can_modify: bool = False
    requested_reviewers: list[str] = field(default_factory=list)
    requested_teams: list[str] = field(default_factory=list)  # team slugs of the base's org
    # Mergeability, computed lazily as GitHub does: `known_for` is the [head, base] pair
    # the stored answer belongs to; `pending_gets` GETs still answer null.
    known_for: list[str] | None = None
    pending_key: list[str] | None = None
    mergeable: bool | None = None
    rebaseable: bool | None = None
    conflicts: list[str] = field(default_factory=list)
    pending_gets: int = 0
    delay: int | None = None  # per-PR override of the forge-wide delay


@dataclass
class Issue:
    number: int
    id: int
    title: str
    user: str
    created_at: float
    updated_at: float
    body: str | None = None
    state: str = "open"
    state_reason: str | None = None
    labels: list[str] = field(default_factory=list)
    assignees: list[str] = field(default_factory=list)
    locked: bool = False
    closed_at: float | None = None
    closed_by: str | None = None
    pull: Pull | None = None
    milestone: int | None = None  # a number in stores/milestones.py


@dataclass
class IssueComment:
    id: int
    number: int
    user: str
    body: str
    created_at: float
    updated_at: float


@dataclass
class Review:
    id: int
    number: int
    user: str
    state: str  # APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
    body: str
    commit_id: str
    submitted_at: float | None


@dataclass
class ReviewComment:
    id: int
    number: int
    thread_id: int
    user: str
    body: str
    path: str
    line: int | None
    side: str
    original_line: int | None
    commit_id: str
    original_commit_id: str
    diff_hunk: str
    position: int | None
    created_at: float
    updated_at: float
    review_id: int | None = None
    in_reply_to_id: int | None = None
    start_line: int | None = None
    start_side: str | None = None
    subject_type: str = "line"


@dataclass
class Thread:
    id: int
    number: int
    path: str
    line: int | None
    side: str
    commit_id: str
    comment_ids: list[int] = field(default_factory=list)
    start_line: int | None = None
    start_side: str | None = None
    resolved: bool = False
    resolved_by: str | None = None


@dataclass
class CheckSuite:
    id: int
    head_sha: str
    head_branch: str | None
    app: str
    status: str
    conclusion: str | None
    created_at: float
    updated_at: float


@dataclass
class CheckRun:
    id: int
    suite_id: int
    head_sha: str
    name: str
    status: str
    conclusion: str | None
    started_at: float | None
    completed_at: float | None
    app: str = "github-actions"
    title: str | None = None
    summary: str | None = None
    text: str | None = None
    details_url: str | None = None
    external_id: str | None = None


@dataclass
class CommitStatus:
    id: int
    sha: str
    state: str
    context: str
    creator: str
    created_at: float
    updated_at: float
    description: str | None = None
    target_url: str | None = None


@dataclass
class Workflow:
    id: int
    name: str
    path: str
    created_at: float
    updated_at: float
    state: str = "active"


@dataclass
class Step:
    number: int
    name: str
    status: str
    conclusion: str | None
    started_at: float | None = None
    completed_at: float | None = None


@dataclass
class Job:
    id: int
    run_id: int
    run_attempt: int
    name: str
    status: str
    conclusion: str | None
    created_at: float
    started_at: float
    completed_at: float | None
    check_run_id: int
    steps: list[Step] = field(default_factory=list)
    log: str = ""
    labels: list[str] = field(default_factory=lambda: ["ubuntu-latest"])
    runner_id: int | None = None
    runner_name: str | None = None


@dataclass
class Run:
    id: int
    workflow_id: int
    run_number: int
    name: str
    event: str
    head_branch: str | None
    head_sha: str
    status: str
    conclusion: str | None
    actor: str
    created_at: float
    updated_at: float
    run_started_at: float
    check_suite_id: int
    display_title: str
    run_attempt: int = 1
    triggering_actor: str | None = None
    job_ids: list[int] = field(default_factory=list)
    # Earlier attempts: {"attempt", "status", "conclusion", "run_started_at", "updated_at"}.
    previous_attempts: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Protection:
    branch: str
    required_approving_review_count: int | None = None  # None: reviews not required
    dismiss_stale_reviews: bool = False
    require_code_owner_reviews: bool = False
    require_last_push_approval: bool = False
    required_checks: list[str] | None = None  # None: status checks not required
    strict: bool = False
    enforce_admins: bool = False
    required_linear_history: bool = False
    allow_force_pushes: bool = False
    allow_deletions: bool = False
    required_conversation_resolution: bool = False
    required_signatures: bool = False


@dataclass
class RepoCollab:
    issues: dict[int, Issue] = field(default_factory=dict)  # by number (PRs too)
    labels: dict[str, Label] = field(default_factory=dict)  # by lower-case name
    issue_comments: dict[int, IssueComment] = field(default_factory=dict)
    reviews: dict[int, Review] = field(default_factory=dict)
    review_comments: dict[int, ReviewComment] = field(default_factory=dict)
    threads: dict[int, Thread] = field(default_factory=dict)
    check_suites: dict[int, CheckSuite] = field(default_factory=dict)
    check_runs: dict[int, CheckRun] = field(default_factory=dict)
    statuses: dict[int, CommitStatus] = field(default_factory=dict)
    workflows: dict[int, Workflow] = field(default_factory=dict)
    runs: dict[int, Run] = field(default_factory=dict)
    jobs: dict[int, Job] = field(default_factory=dict)
    protection: dict[str, Protection] = field(default_factory=dict)
    next_run_number: dict[int, int] = field(default_factory=dict)


def collab(repo: RepoRecord) -> RepoCollab:
    data = repo.extra.get(EXTENSION)
    if data is None:
        data = repo.extra.setdefault(EXTENSION, RepoCollab())
    return data


def settings(state: ForgeState) -> dict[str, Any]:
    """Forge-wide knobs: mergeability_delay (GETs answering null after a change)."""
    return state.extensions.setdefault(EXTENSION, {"mergeability_delay": 1})
