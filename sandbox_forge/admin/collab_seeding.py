"""In-process helpers for collaboration data; they mirror the /_sandbox/ admin routes in
admin/collab_routes.py. Every helper takes the Forge (or its ForgeState) first and a
repository's full name; most answer a small summary (ids, numbers, node ids) as a dict.

The HTTP app imports this module (through the admin routes), so it must not import forge.py,
which builds that app: a running Forge is named here structurally, as `HoldsForgeState`.
"""

from __future__ import annotations

from typing import Any, Protocol

from sandbox_forge.kernel.errors import ApiError
from sandbox_forge.rest.routes import protection as routes_protection
from sandbox_forge.rules import mergeability as pulls_mergeability
from sandbox_forge.rules import protection as rules_protection
from sandbox_forge.stores import (
    actions as actions_store,
)
from sandbox_forge.stores import (
    checks as checks_store,
)
from sandbox_forge.stores import (
    issues as issues_store,
)
from sandbox_forge.stores import (
    pulls as pulls_store,
)
from sandbox_forge.stores.collab import Issue, collab, settings
from sandbox_forge.stores.lookups import get_issue, get_pull, node_id
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.reviews import add_review as _add_review
from sandbox_forge.stores.reviews import add_review_comment, set_resolved
from sandbox_forge.stores.state import ForgeState


class HoldsForgeState(Protocol):
    """A running Forge: anything that carries its ForgeState."""

    state: ForgeState


ForgeTarget = HoldsForgeState | ForgeState


def forge_state(target: ForgeTarget) -> ForgeState:
    return target if isinstance(target, ForgeState) else target.state


def repo_named(target: ForgeTarget, full_name: str) -> RepoRecord:
    owner, _, name = full_name.partition("/")
    repo = forge_state(target).repo(owner, name)
    if repo is None:
        raise ApiError(404, f"Repository {full_name} not found")
    return repo


def commit_sha(repo: RepoRecord, ref: str) -> str:
    sha = repo.git.resolve_commit(ref)
    if sha is None:
        raise ValueError(f"no commit found for {ref!r} in {repo.full_name}")
    return sha


def _summary(repo: RepoRecord, issue: Issue) -> dict[str, Any]:
    data: dict[str, Any] = {
        "number": issue.number,
        "id": issue.id,
        "node_id": node_id("PR" if issue.pull else "I", repo, issue.id),
        "state": issue.state,
    }
    if issue.pull is not None:
        data.update(
            head=issue.pull.head_ref, base=issue.pull.base_ref, head_sha=issue.pull.head_sha
        )
    return data


# --- issues and pull requests ---------------------------------------------------------------


def create_issue(
    forge: ForgeTarget,
    full_name: str,
    title: str,
    *,
    user: str = "octocat",
    body: str | None = None,
    labels: list[str] | None = None,
    assignees: list[str] | None = None,
    state: str = "open",
    state_reason: str | None = None,
) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    for login in assignees or []:
        st.ensure_user(login)
    issue = issues_store.create_issue(st, repo, user, title, body, labels, assignees)
    if state == "closed":
        with st.lock:
            issues_store.set_state(issue, "closed", user, state_reason)
    return _summary(repo, issue)


def add_issue_comment(
    forge: ForgeTarget, full_name: str, number: int, body: str, *, user: str = "octocat"
) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    comment = issues_store.add_comment(st, repo, get_issue(repo, number), user, body)
    return {"id": comment.id, "number": number}


def create_pull(
    forge: ForgeTarget,
    full_name: str,
    head: str,
    base: str,
    title: str,
    *,
    user: str = "octocat",
    body: str | None = None,
    draft: bool = False,
) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    issue = pulls_store.create_pull(st, repo, user, title, head, base, body, draft)
    return _summary(repo, issue)


def add_review(
    forge: ForgeTarget,
    full_name: str,
    number: int,
    *,
    user: str,
    event: str | None = "COMMENT",
    body: str = "",
    comments: list[dict[str, Any]] | None = None,
    commit_id: str | None = None,
) -> dict[str, Any]:
    """A review; comments are {path, line, side?, body} and each starts a thread."""
    st, repo = forge_state(forge), repo_named(forge, full_name)
    review = _add_review(st, repo, get_pull(repo, number), user, event, body, comments, commit_id)
    threads = [
        node_id("PRRT", repo, c.thread_id)
        for c in collab(repo).review_comments.values()
        if c.review_id == review.id
    ]
    return {"id": review.id, "state": review.state, "thread_ids": threads}


def add_review_thread(
    forge: ForgeTarget,
    full_name: str,
    number: int,
    path: str,
    line: int | None,
    body: str,
    *,
    user: str = "octocat",
    side: str = "RIGHT",
    replies: list[dict[str, str]] | None = None,
    resolved: bool = False,
    resolved_by: str | None = None,
) -> dict[str, Any]:
    """A review thread: a first comment at path:line, replies ({user, body}), maybe resolved."""
    st, repo = forge_state(forge), repo_named(forge, full_name)
    issue = get_pull(repo, number)
    spec = {"path": path, "line": line, "side": side}
    if line is None:
        spec["subject_type"] = "file"
    first = add_review_comment(st, repo, issue, user, body, spec)
    ids = [first.id]
    for item in replies or []:
        ids.append(add_review_comment(st, repo, issue, item["user"], item["body"], {}, first.id).id)
    thread = collab(repo).threads[first.thread_id]
    if resolved:
        set_resolved(st, thread, True, resolved_by or user)
    return {
        "thread_id": node_id("PRRT", repo, thread.id),
        "thread_database_id": thread.id,
        "comment_ids": ids,
        "resolved": thread.resolved,
    }


def resolve_review_thread(
    forge: ForgeTarget,
    full_name: str,
    thread_id: str | int,
    resolved: bool = True,
    *,
    user: str = "octocat",
) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    data = collab(repo)
    ident = thread_id if isinstance(thread_id, int) else None
    if ident is None:
        ident = next(
            (t.id for t in data.threads.values() if node_id("PRRT", repo, t.id) == thread_id), -1
        )
    thread = data.threads.get(ident)
    if thread is None:
        raise ApiError(404, "Review thread not found")
    set_resolved(st, thread, resolved, user)
    return {"thread_id": node_id("PRRT", repo, thread.id), "resolved": thread.resolved}


def set_mergeability_delay(
    forge: ForgeTarget, gets: int, full_name: str | None = None, number: int | None = None
) -> None:
    """How many GETs answer `mergeable: null` after a change: forge-wide, or for one PR."""
    if gets < 0:
        raise ValueError("gets must be >= 0")
    st = forge_state(forge)
    if full_name is None or number is None:
        settings(st)["mergeability_delay"] = gets
        return
    pull = get_pull(repo_named(forge, full_name), number).pull
    assert pull is not None
    with st.lock:
        pull.delay = gets
        pull.pending_key = None  # the new delay applies from the next GET


def pull_conflicts(forge: ForgeTarget, full_name: str, number: int) -> dict[str, Any]:
    """The conflicting files a trial merge of the PR finds right now (not a GitHub field)."""
    repo = repo_named(forge, full_name)
    return pulls_mergeability.conflicts_now(forge_state(forge), repo, get_pull(repo, number))


# --- checks, statuses, Actions ----------------------------------------------------------------


def add_check_run(
    forge: ForgeTarget,
    full_name: str,
    ref: str,
    name: str,
    *,
    status: str = "completed",
    conclusion: str | None = "success",
    title: str | None = None,
    summary: str | None = None,
    text: str | None = None,
    app: str = "github-actions",
    details_url: str | None = None,
) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    sha = commit_sha(repo, ref)
    branch = ref if repo.git.read_ref(f"refs/heads/{ref}") else None
    run = checks_store.add_check_run(
        st,
        repo,
        sha,
        name,
        status,
        conclusion,
        head_branch=branch,
        app=app,
        title=title,
        summary=summary,
        text=text,
        details_url=details_url,
    )
    return {"id": run.id, "suite_id": run.suite_id, "head_sha": sha}


def add_status(
    forge: ForgeTarget,
    full_name: str,
    ref: str,
    state: str,
    *,
    context: str = "default",
    description: str | None = None,
    target_url: str | None = None,
    user: str = "octocat",
) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    sha = commit_sha(repo, ref)
    status = checks_store.add_status(st, repo, sha, state, context, user, description, target_url)
    return {"id": status.id, "sha": sha}


def add_workflow(forge: ForgeTarget, full_name: str, name: str, path: str) -> dict[str, Any]:
    workflow = actions_store.register_workflow(
        forge_state(forge), repo_named(forge, full_name), name, path
    )
    return {"id": workflow.id, "name": workflow.name, "path": workflow.path}


def add_workflow_run(
    forge: ForgeTarget,
    full_name: str,
    workflow: str | int,
    *,
    ref: str | None = None,
    head_sha: str | None = None,
    head_branch: str | None = None,
    event: str = "push",
    status: str = "completed",
    conclusion: str | None = None,
    actor: str = "octocat",
    display_title: str | None = None,
    jobs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A run of workflow (id, file name, path or name; registered when unknown) at ref or
    head_sha, with jobs [{name, status?, conclusion?, steps?: [name | {name, conclusion}],
    log?}]. Each job is also a check run on the head commit."""
    st, repo = forge_state(forge), repo_named(forge, full_name)
    found = actions_store.find_workflow(st, repo, workflow)
    if found is None:
        path = str(workflow) if "/" in str(workflow) else f".github/workflows/{workflow}"
        found = actions_store.register_workflow(st, repo, str(workflow), path)
    if head_sha is None:
        ref = ref or head_branch or repo.default_branch
        head_sha = commit_sha(repo, ref)
        if head_branch is None and repo.git.read_ref(f"refs/heads/{ref}"):
            head_branch = ref
    run = actions_store.add_workflow_run(
        st,
        repo,
        found,
        head_sha,
        head_branch,
        event=event,
        status=status,
        conclusion=conclusion,
        actor=actor,
        display_title=display_title,
        jobs=jobs,
    )
    return run_summary(repo, run)


def run_summary(repo: RepoRecord, run: Any) -> dict[str, Any]:
    jobs = {j.name: j.id for j in actions_store.latest_jobs(repo, run)}
    return {
        "id": run.id,
        "run_number": run.run_number,
        "run_attempt": run.run_attempt,
        "workflow_id": run.workflow_id,
        "check_suite_id": run.check_suite_id,
        "head_sha": run.head_sha,
        "status": run.status,
        "conclusion": run.conclusion,
        "jobs": jobs,
    }


def complete_workflow_run(
    forge: ForgeTarget,
    full_name: str,
    run_id: int,
    conclusion: str = "success",
    jobs: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Finish a queued or re-run attempt; jobs maps a job name to {conclusion, steps, log}."""
    st, repo = forge_state(forge), repo_named(forge, full_name)
    run = collab(repo).runs.get(run_id)
    if run is None:
        raise ApiError(404, "Workflow run not found")
    actions_store.complete_workflow_run(st, repo, run, conclusion, jobs)
    return run_summary(repo, run)


def set_branch_protection(
    forge: ForgeTarget,
    full_name: str,
    branch: str,
    protection: dict[str, Any] | None = None,
    *,
    required_approvals: int | None = None,
    required_checks: list[str] | None = None,
    strict: bool = False,
) -> dict[str, Any]:
    """Protect branch: `protection` is the body of GitHub's PUT …/protection, or use the
    shorthand keywords."""
    body = dict(protection or {})
    if required_approvals is not None:
        body["required_pull_request_reviews"] = {
            "required_approving_review_count": required_approvals,
        }
    if required_checks is not None:
        body["required_status_checks"] = {"strict": strict, "contexts": list(required_checks)}
    st, repo = forge_state(forge), repo_named(forge, full_name)
    prot = rules_protection.set_protection(st, repo, branch, body)
    return {"branch": branch, "summary": routes_protection.branch_summary(repo, prot.branch)}


def clear_branch_protection(forge: ForgeTarget, full_name: str, branch: str) -> bool:
    return rules_protection.clear_protection(
        forge_state(forge), repo_named(forge, full_name), branch
    )
