"""Plain data for collaboration features: issues, pull requests, reviews, checks, Actions.

Everything lives in `RepoRecord.extra["collab"]` as dataclasses (so snapshots can dump
it), and forge-wide settings in `ForgeState.extensions["collab"]`. Mutations happen under
`state.lock`. The route modules (rest/routes/: issues, pulls, reviews, checks, actions,
protection) and the GraphQL endpoint share these helpers.
"""

from __future__ import annotations

import base64
import binascii
import time
from dataclasses import dataclass, field
from typing import Any

from starlette.convertors import Convertor, register_url_convertor

from sandbox_forge.kernel.errors import ApiError, not_found
from sandbox_forge.kernel.formats import iso, simple_user
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.stores import access
from sandbox_forge.stores.state import ForgeState, RepoRecord

DEFAULT_LABEL_COLOR = "ededed"
EXTENSION = "collab"


class RefPathConvertor(Convertor[str]):
    """A path parameter that may hold slashes (a branch like feature/x) but, unlike
    `:path`, is not sorted behind every catch-all route by the app assembly."""

    regex = ".+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("refpath", RefPathConvertor())


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


# --- small helpers --------------------------------------------------------------------------


def now() -> float:
    return time.time()


def iso_or_none(ts: float | None) -> str | None:
    return iso(ts) if ts is not None else None


def user_json(state: ForgeState, urls: Urls, login: str) -> dict[str, Any]:
    return simple_user(urls, state.ensure_user(login))


def user_or_none(state: ForgeState, urls: Urls, login: str | None) -> dict[str, Any] | None:
    return user_json(state, urls, login) if login else None


def author_association(state: ForgeState, repo: RepoRecord, login: str | None) -> str:
    """OWNER, MEMBER (of the owning organisation), COLLABORATOR (a direct role on
    the repository) or NONE, from the repository roles the forge keeps."""
    return access.association(state, repo, login)


def node_id(prefix: str, repo: RepoRecord, ident: int) -> str:
    """GitHub's newer opaque node ids (PR_kwDO…, PRRT_kwDO…): prefix plus repo and id."""
    raw = base64.urlsafe_b64encode(f"{repo.id}:{ident}".encode()).decode().rstrip("=")
    return f"{prefix}_kwDO{raw}"


def parse_node_id(value: str) -> tuple[str, int, int] | None:
    """(prefix, repo id, record id) from node_id(), or None for anything else."""
    prefix, sep, rest = value.partition("_kwDO")
    if not sep or not prefix or not rest:
        return None
    try:
        text = base64.urlsafe_b64decode(rest + "=" * (-len(rest) % 4)).decode()
        repo_id, ident = (int(part) for part in text.split(":"))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return prefix, repo_id, ident


def repo_by_id(state: ForgeState, repo_id: int) -> RepoRecord | None:
    return next((r for r in state.repos.values() if r.id == repo_id), None)


def sync_open_count(repo: RepoRecord) -> None:
    """GitHub's open_issues_count counts open issues and open pull requests."""
    data = collab(repo)
    repo.extra["open_issues_count"] = sum(1 for i in data.issues.values() if i.state == "open")


def get_issue(repo: RepoRecord, number: Any) -> Issue:
    try:
        issue = collab(repo).issues.get(int(number))
    except (TypeError, ValueError):
        issue = None
    if issue is None:
        raise not_found()
    return issue


def get_pull(repo: RepoRecord, number: Any) -> Issue:
    issue = get_issue(repo, number)
    if issue.pull is None:
        raise not_found()
    return issue


def ensure_label(state: ForgeState, repo: RepoRecord, name: str) -> Label:
    """Labels are created on first use, as when GitHub applies an unknown label name."""
    data = collab(repo)
    label = data.labels.get(name.lower())
    if label is None:
        label = Label(id=state.next_id(), name=name)
        data.labels[name.lower()] = label
    return label


def label_json(urls: Urls, repo: RepoRecord, label: Label) -> dict[str, Any]:
    return {
        "id": label.id,
        "node_id": node_id("LA", repo, label.id),
        "url": f"{urls.repo(repo.full_name)}/labels/{label.name}",
        "name": label.name,
        "description": label.description,
        "color": label.color,
        "default": label.default,
    }


def actor_login(principal: Any) -> str:
    """The login a write is attributed to; App JWTs cannot act on repositories."""
    login = getattr(principal, "login", None)
    if not login:
        raise ApiError(403, "Resource not accessible by integration")
    return login


def page_window(items: list[Any], page: int, per_page: int) -> list[Any]:
    return items[(page - 1) * per_page : page * per_page]
