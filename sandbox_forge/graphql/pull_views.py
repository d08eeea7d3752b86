"""What a pull request shows in one GraphQL query: its changed files and size, its commits
with the head's `statusCheckRollup` (check runs and commit statuses), and the latest
review per reviewer. Attached to PullRequest and Commit by endpoint.build()."""

from __future__ import annotations

from typing import Any

from sandbox_forge.git.pulls import commit_range, diff_base
from sandbox_forge.graphql.context import Context, connection
from sandbox_forge.graphql.git_objects import CommitView
from sandbox_forge.graphql.views import PullRequestView, ReviewView
from sandbox_forge.stores.checks import PASSING, latest_by_name, latest_statuses
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.lookups import node_id
from sandbox_forge.stores.records import RepoRecord

# git's diff status -> GitHub's PatchStatus
PATCH_STATUS = {
    "added": "ADDED",
    "removed": "DELETED",
    "modified": "MODIFIED",
    "renamed": "RENAMED",
    "copied": "COPIED",
    "changed": "CHANGED",
}
# Review states that give an opinion (latestOpinionatedReviews keeps only these).
OPINIONS = {"APPROVED", "CHANGES_REQUESTED", "DISMISSED"}


def _diffs(pr: PullRequestView) -> list[Any]:
    """The PR's diff between the ends the view read, once however many fields ask for it."""
    cached = pr.__dict__.get("_diffs")
    if cached is None:
        head, base = pr.headRefOid, pr.baseRefOid
        start = diff_base(pr.repo.git, base, head)
        cached = pr.__dict__["_diffs"] = pr.repo.git.diff_stats(start, head)
    return cached


def pull_files(pr: PullRequestView, info: Any, **page: Any) -> dict[str, Any]:
    files = [
        {
            "path": d.path,
            "additions": d.additions,
            "deletions": d.deletions,
            "changeType": PATCH_STATUS.get(d.status, "CHANGED"),
        }
        for d in _diffs(pr)
    ]
    return connection(files, "files", **_page(page))


def pull_additions(pr: PullRequestView, info: Any) -> int:
    return sum(d.additions for d in _diffs(pr))


def pull_deletions(pr: PullRequestView, info: Any) -> int:
    return sum(d.deletions for d in _diffs(pr))


def pull_changed_files(pr: PullRequestView, info: Any) -> int:
    return len(_diffs(pr))


class PullCommitView:
    typename = "PullRequestCommit"

    def __init__(self, ctx: Context, repo: RepoRecord, number: int, sha: str):
        self.commit = CommitView(ctx, repo, sha)
        self.id = node_id("PURC", repo, number) + sha[:7]
        self.resourcePath = f"/{repo.full_name}/pull/{number}/commits/{sha}"
        self.url = ctx.urls.repo_html(repo.full_name) + self.resourcePath[len(repo.full_name) + 1 :]


def pull_commits(pr: PullRequestView, info: Any, **page: Any) -> dict[str, Any]:
    head, base = pr.headRefOid, pr.baseRefOid
    shas = commit_range(pr.repo.git, base, head)  # oldest first, as GitHub (last = head)
    views = [PullCommitView(pr.ctx, pr.repo, pr.number, sha) for sha in shas]
    return connection(views, "commits", **_page(page))


def _latest(pr: PullRequestView, opinionated: bool) -> list[ReviewView]:
    latest: dict[str, Any] = {}
    reviews = collab(pr.repo).reviews.values()
    for review in sorted(reviews, key=lambda r: r.id):
        if review.number != pr.number or review.state == "PENDING":
            continue
        if opinionated and review.state not in OPINIONS:
            continue
        latest[review.user.lower()] = review
    ordered = sorted(latest.values(), key=lambda r: r.id)
    return [ReviewView(pr.ctx, pr.repo, r.id) for r in ordered]


def latest_reviews(pr: PullRequestView, info: Any, **page: Any) -> dict[str, Any]:
    return connection(_latest(pr, False), "latestReviews", **_page(page))


def latest_opinionated_reviews(
    pr: PullRequestView, info: Any, writersOnly: bool = False, **page: Any
) -> dict[str, Any]:
    return connection(_latest(pr, True), "latestOpinionatedReviews", **_page(page))


class CheckRunView:
    typename = "CheckRun"

    def __init__(self, repo: RepoRecord, run: Any):
        self.id = node_id("CR", repo, run.id)
        self.databaseId = run.id
        self.name = run.name
        self.status = run.status.upper()
        self.conclusion = run.conclusion.upper() if run.conclusion else None


class StatusContextView:
    typename = "StatusContext"

    def __init__(self, repo: RepoRecord, status: Any):
        self.id = node_id("SC", repo, status.id)
        self.context = status.context
        self.state = status.state.upper()
        self.description = status.description
        self.targetUrl = status.target_url


class StatusRollupView:
    typename = "StatusCheckRollup"

    def __init__(self, repo: RepoRecord, sha: str, contexts: list[Any]):
        self.id = node_id("SCR", repo, int(sha[:8], 16))
        self._contexts = contexts
        states = set()
        for item in contexts:
            if isinstance(item, CheckRunView):
                if item.status != "COMPLETED":
                    states.add("PENDING")
                else:
                    passed = (item.conclusion or "").lower() in PASSING
                    states.add("SUCCESS" if passed else "FAILURE")
            else:
                states.add({"ERROR": "FAILURE"}.get(item.state, item.state))
        self.state = next((s for s in ("FAILURE", "PENDING", "EXPECTED") if s in states), "SUCCESS")

    def contexts(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self._contexts, "contexts", **_page(page))


def status_check_rollup(commit: CommitView, info: Any) -> StatusRollupView | None:
    """Null when the commit has neither check runs nor statuses, as on GitHub."""
    repo, sha = commit.repo, commit.oid
    runs = [r for r in collab(repo).check_runs.values() if r.head_sha == sha]
    contexts: list[Any] = [CheckRunView(repo, r) for r in reversed(latest_by_name(runs))]
    contexts += [StatusContextView(repo, s) for s in reversed(latest_statuses(repo, sha))]
    return StatusRollupView(repo, sha, contexts) if contexts else None


def _page(args: dict[str, Any]) -> dict[str, Any]:
    return {
        "first": args.get("first"),
        "last": args.get("last"),
        "after": args.get("after"),
        "before": args.get("before"),
    }
