"""Pull request records: opening one (with GitHub's 422s), freezing head and base when it
closes, marking it merged, and following pushes to its branches."""

from __future__ import annotations

from sandbox_forge.kernel.errors import ApiError, validation_failed
from sandbox_forge.stores.collab import Issue, Pull, collab
from sandbox_forge.stores.issues import new_issue
from sandbox_forge.stores.lookups import now, sync_open_count
from sandbox_forge.stores.pull_heads import branch_tips
from sandbox_forge.stores.records import RefUpdate, RepoRecord
from sandbox_forge.stores.state import ForgeState


def pull_error(message: str) -> ApiError:
    return validation_failed({"resource": "PullRequest", "code": "custom", "message": message})


def invalid_pull_field(field: str) -> ApiError:
    return validation_failed({"resource": "PullRequest", "field": field, "code": "invalid"})


def open_pull_for(repo: RepoRecord, head: str, base: str) -> Issue | None:
    for issue in collab(repo).issues.values():
        pull = issue.pull
        if pull and issue.state == "open" and pull.head_ref == head and pull.base_ref == base:
            return issue
    return None


def create_pull(
    state: ForgeState,
    repo: RepoRecord,
    user: str,
    title: str,
    head: str,
    base: str,
    body: str | None = None,
    draft: bool = False,
    maintainer_can_modify: bool = False,
) -> Issue:
    """Open a pull request, with GitHub's validation (422s for the usual mistakes)."""
    owner, colon, branch = head.rpartition(":")
    if colon:
        if owner.lower() != repo.owner.lower():
            raise invalid_pull_field("head")
        head = branch
    head_sha = repo.git.read_ref(f"refs/heads/{head}")
    base_sha = repo.git.read_ref(f"refs/heads/{base}")
    if base_sha is None:
        raise invalid_pull_field("base")
    if head_sha is None:
        raise invalid_pull_field("head")
    with state.lock:
        if open_pull_for(repo, head, base) is not None:
            raise pull_error(f"A pull request already exists for {repo.owner}:{head}.")
        if head == base or repo.git.is_ancestor(head_sha, base_sha):
            raise pull_error(f"No commits between {base} and {head}")
        pull = Pull(
            head_ref=head,
            base_ref=base,
            head_sha=head_sha,
            base_sha=base_sha,
            draft=draft,
            maintainer_can_modify=maintainer_can_modify,
        )
        issue = new_issue(state, repo, user, title, body, pull=pull)
        collab(repo).issues[issue.number] = issue
        repo.git.force_ref(f"refs/pull/{issue.number}/head", head_sha)
        sync_open_count(repo)
        return issue


def freeze(repo: RepoRecord, issue: Issue) -> None:
    """Pin head and base to their current commits, as a PR keeps them once closed."""
    pull = issue.pull
    assert pull is not None
    tips = branch_tips(repo)
    pull.head_sha = tips.get(pull.head_ref, pull.head_sha)
    pull.base_sha = tips.get(pull.base_ref, pull.base_sha)


def mark_merged(
    repo: RepoRecord, issue: Issue, merge_sha: str, base_before: str, by: str | None
) -> None:
    pull = issue.pull
    assert pull is not None
    stamp = now()
    pull.merged, pull.merged_at, pull.merged_by = True, stamp, by
    pull.merge_commit_sha = merge_sha
    pull.base_sha = base_before
    pull.mergeable = pull.rebaseable = None
    pull.known_for = pull.pending_key = None
    issue.state, issue.state_reason = "closed", None
    issue.closed_at, issue.closed_by = stamp, by
    issue.updated_at = stamp
    sync_open_count(repo)


def on_ref_update(state: ForgeState, update: RefUpdate) -> None:
    """Follow pushes: a PR's head moves with its branch; a base that now contains the
    head marks the PR merged, as GitHub does for a manual merge pushed to the base."""
    if not update.ref.startswith("refs/heads/") or update.new is None:
        return
    repo = state.repos.get(update.repo.lower())
    if repo is None or "collab" not in repo.extra:
        return
    branch = update.ref[len("refs/heads/") :]
    with state.lock:
        for issue in list(collab(repo).issues.values()):
            pull = issue.pull
            if pull is None or issue.state != "open":
                continue
            if pull.head_ref == branch:
                pull.head_sha = update.new
                repo.git.force_ref(f"refs/pull/{issue.number}/head", update.new)
                issue.updated_at = now()
            if pull.base_ref == branch:
                before = pull.base_sha
                pull.base_sha = update.new
                if repo.git.is_ancestor(pull.head_sha, update.new):
                    mark_merged(repo, issue, update.new, before, None)
