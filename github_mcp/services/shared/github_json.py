"""GitHub's JSON as the services read it: TypedDicts of the fields actually used.

The client returns parsed JSON untyped; a service names the shape at the one place an answer
enters (`data: GitRef = await github.request_json(...)`), so every read below it is checked.
Only the fields something reads are declared; GitHub sends many more.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict


class GitObject(TypedDict):
    type: str
    sha: str


class GitRef(TypedDict):
    """GET /repos/{owner}/{repo}/git/ref/{ref}; also the object of an annotated tag."""

    object: GitObject


class GitTree(TypedDict):
    sha: str


class GitTreeItem(TypedDict):
    """An entry of GET /repos/{owner}/{repo}/git/trees/{sha}."""

    path: str
    mode: str
    type: str
    sha: str
    size: NotRequired[int]


class GitTreeListing(TypedDict):
    """GET /repos/{owner}/{repo}/git/trees/{sha}: its entries, and whether it was cut."""

    sha: str
    tree: list[GitTreeItem]
    truncated: bool


class RepoPermissions(TypedDict, total=False):
    admin: bool
    maintain: bool
    push: bool
    triage: bool
    pull: bool


class RepoParent(TypedDict):
    full_name: str


class Repository(TypedDict):
    """GET /repos/{owner}/{repo}."""

    id: int
    name: str
    full_name: str
    default_branch: str
    private: bool
    html_url: str
    visibility: NotRequired[str]
    description: NotRequired[str | None]
    archived: NotRequired[bool]
    fork: NotRequired[bool]
    pushed_at: NotRequired[str | None]
    permissions: NotRequired[RepoPermissions]
    parent: NotRequired[RepoParent]


class Account(TypedDict):
    login: str
    type: NotRequired[str]  # "User", "Bot", "Organization"


class RepoName(TypedDict):
    full_name: str


class PullRef(TypedDict):
    """A pull request's head or base: the branch, its commit and (None once deleted) repo."""

    ref: str
    sha: str
    label: NotRequired[str]
    repo: NotRequired[RepoName | None]


class PullRequest(TypedDict):
    """GET /repos/{owner}/{repo}/pulls/{number}."""

    number: int
    state: str
    title: str
    html_url: str
    head: PullRef
    base: PullRef
    body: NotRequired[str | None]
    draft: NotRequired[bool]
    merged: NotRequired[bool]
    merged_at: NotRequired[str | None]
    merge_commit_sha: NotRequired[str | None]
    merged_by: NotRequired[Account | None]
    mergeable: NotRequired[bool | None]
    mergeable_state: NotRequired[str]
    user: NotRequired[Account | None]
    node_id: NotRequired[str]


class PullReview(TypedDict):
    """A review of a pull request (GET or POST .../pulls/{number}/reviews)."""

    id: int
    state: str
    user: NotRequired[Account | None]
    submitted_at: NotRequired[str | None]


class Label(TypedDict):
    name: str


class Milestone(TypedDict):
    title: str


class IssueType(TypedDict):
    name: str


class Issue(TypedDict):
    """GET /repos/{owner}/{repo}/issues/{number} (a pull request is an issue too)."""

    number: int
    state: str
    title: str
    html_url: str
    body: NotRequired[str | None]
    user: NotRequired[Account | None]
    author_association: NotRequired[str]
    labels: NotRequired[list[Label]]
    assignees: NotRequired[list[Account] | None]
    milestone: NotRequired[Milestone | None]
    type: NotRequired[IssueType | None]
    comments: NotRequired[int]
    updated_at: NotRequired[str | None]
    pull_request: NotRequired[dict[str, object]]
    parent_issue_url: NotRequired[str | None]
    sub_issues_summary: NotRequired[SubIssuesSummary | None]


class SubIssuesSummary(TypedDict):
    total: int
    completed: int
    percent_completed: int


class IssueComment(TypedDict):
    """A conversation comment on an issue or a pull request."""

    id: int
    html_url: str
    body: NotRequired[str | None]
    user: NotRequired[Account | None]
    author_association: NotRequired[str]
    created_at: NotRequired[str | None]


class WorkflowRun(TypedDict):
    """GET /repos/{owner}/{repo}/actions/runs/{run_id}."""

    id: int
    name: NotRequired[str | None]
    display_title: NotRequired[str]
    run_number: NotRequired[int]
    run_attempt: NotRequired[int]
    event: NotRequired[str]
    status: NotRequired[str | None]
    conclusion: NotRequired[str | None]
    head_branch: NotRequired[str | None]
    head_sha: NotRequired[str]
    created_at: NotRequired[str]
    html_url: NotRequired[str]


class BranchCommit(TypedDict):
    sha: str


class Branch(TypedDict):
    """GET /repos/{owner}/{repo}/branches/{branch}."""

    name: str
    commit: BranchCommit
    protected: NotRequired[bool]


class JobStep(TypedDict):
    number: int
    name: str
    status: NotRequired[str]
    conclusion: NotRequired[str | None]


class Job(TypedDict):
    """GET /repos/{owner}/{repo}/actions/jobs/{job_id}."""

    id: int
    run_id: NotRequired[int]
    name: NotRequired[str]
    status: NotRequired[str]
    conclusion: NotRequired[str | None]
    started_at: NotRequired[str | None]
    completed_at: NotRequired[str | None]
    steps: NotRequired[list[JobStep] | None]


class CommitPerson(TypedDict, total=False):
    name: str | None
    date: str | None


class GitCommitInfo(TypedDict):
    message: str
    author: NotRequired[CommitPerson | None]


class CommitParent(TypedDict):
    sha: str


class CommitStats(TypedDict, total=False):
    additions: int
    deletions: int
    total: int


class CommitFile(TypedDict):
    filename: str
    status: str
    additions: NotRequired[int]
    deletions: NotRequired[int]
    patch: NotRequired[str]
    previous_filename: NotRequired[str]


class Commit(TypedDict):
    """GET /repos/{owner}/{repo}/commits/{ref}; also each commit of a comparison."""

    sha: str
    commit: GitCommitInfo
    html_url: NotRequired[str]
    author: NotRequired[Account | None]
    parents: NotRequired[list[CommitParent]]
    stats: NotRequired[CommitStats]
    files: NotRequired[list[CommitFile]]


class Comparison(TypedDict):
    """GET /repos/{owner}/{repo}/compare/{base}...{head}."""

    status: str
    ahead_by: int
    behind_by: int
    total_commits: NotRequired[int]
    merge_base_commit: NotRequired[CommitParent | None]
    commits: NotRequired[list[Commit]]
    files: NotRequired[list[CommitFile]]


class ReleaseJson(TypedDict):
    """GET /repos/{owner}/{repo}/releases/{id}, as a release write's gate reads it."""

    id: int
    tag_name: str
    draft: NotRequired[bool]
