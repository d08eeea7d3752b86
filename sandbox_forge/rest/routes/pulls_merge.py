"""PUT /pulls/{n}/merge: real merge, squash and rebase commits written to the base branch,
after GitHub's checks (head SHA, conflicts, draft, branch protection)."""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from sandbox_forge.git.pulls import commit_range, merge_tree, replay, web_flow_signature
from sandbox_forge.git.store import FORGE_SIGNATURE, Signature
from sandbox_forge.kernel.errors import ApiError, json_response
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import repo_role
from sandbox_forge.rest.routes.pulls import mark_merged
from sandbox_forge.rules.enforce import check_update, refusal
from sandbox_forge.rules.merge import MERGE_DOCS, merge_reasons, refuse_merge
from sandbox_forge.rules.protection import PROTECTION_DOCS, evaluate
from sandbox_forge.stores.collab import Issue
from sandbox_forge.stores.lookups import actor_login, get_pull
from sandbox_forge.stores.pull_heads import branch_tips
from sandbox_forge.stores.records import RefUpdate, RepoRecord
from sandbox_forge.stores.state import ForgeState

METHODS = ("merge", "squash", "rebase")
NOT_MERGEABLE = "Pull Request is not mergeable"
HEAD_MODIFIED = "Head branch was modified. Review and try the merge again."
BASE_MODIFIED = "Base branch was modified. Review and try the merge again."
BEHIND = "Head branch is out of date. Review and try the merge again."


def _person(state: ForgeState, login: str) -> Signature:
    user = state.ensure_user(login)
    sig = web_flow_signature()
    email = user.email or f"{user.login}@users.noreply.sandbox"
    return Signature(user.name or user.login, email, sig.timestamp, sig.tz)


def _message(title: str, body: str | None) -> str:
    return f"{title}\n\n{body}\n" if body else f"{title}\n"


def _squash_text(repo: RepoRecord, issue: Issue, shas: list[str]) -> tuple[str, str]:
    infos = repo.git.read_commits(shas)
    if len(infos) == 1:
        title, _, rest = infos[0].message.strip("\n").partition("\n")
        return f"{title} (#{issue.number})", rest.strip("\n")
    body = "\n\n".join(f"* {info.message.strip()}" for info in infos)
    return f"{issue.title} (#{issue.number})", body


def merge_pull_request(
    state: ForgeState,
    repo: RepoRecord,
    issue: Issue,
    user: str,
    method: str = "merge",
    sha: str | None = None,
    commit_title: str | None = None,
    commit_message: str | None = None,
    role: str | None = None,
) -> str:
    """Merge as GitHub does and return the new base tip; ApiError with GitHub's status
    (405, 409) when it may not."""
    pull = issue.pull
    assert pull is not None
    if method not in METHODS:
        raise ApiError(
            422,
            f"Invalid request.\n\nFor 'properties/merge_method', \"{method}\" is not one of "
            '["merge", "squash", "rebase"].',
        )
    if issue.state != "open":
        raise ApiError(405, NOT_MERGEABLE)
    with state.lock:
        head, base, tree = _check_mergeable(repo, issue, sha, method, role)
        shas = commit_range(repo.git, base, head)
        texts = (commit_title, commit_message)
        new = _merge_commit(state, repo, issue, user, method, (base, head, tree), shas, texts)
        ref = f"refs/heads/{pull.base_ref}"
        # The commits the merge brings (the forge signs its own) meet the base's ref rules.
        found = check_update(repo, ref, base, new, role, via="merge")
        if found:
            raise refusal(found, 405, MERGE_DOCS)
        if not repo.git.update_ref(ref, new, base):
            raise ApiError(405, BASE_MODIFIED)
        pull.head_sha = head
        mark_merged(repo, issue, new, base, state.ensure_user(user).login)
        state.fire_ref_update(RefUpdate(repo.full_name, ref, base, new, "api"))
        return new


def _check_mergeable(
    repo: RepoRecord, issue: Issue, sha: str | None, method: str, role: str | None
) -> tuple[str, str, str]:
    """(head, base, merged tree) when the pull request may merge now; else GitHub's refusal."""
    pull = issue.pull
    assert pull is not None
    tips = branch_tips(repo)
    head, base = tips.get(pull.head_ref), tips.get(pull.base_ref)
    if head is None or base is None:
        raise ApiError(405, NOT_MERGEABLE)
    if sha is not None and sha != head:
        raise ApiError(409, HEAD_MODIFIED)
    if pull.draft:
        raise ApiError(405, "Pull Request is still a draft")
    trial = merge_tree(repo.git, base, head)
    if not trial.clean:
        raise ApiError(405, NOT_MERGEABLE)
    assert trial.tree is not None
    verdict = evaluate(repo, issue, head, base)
    if verdict.reasons:
        raise ApiError(405, verdict.reasons[0], documentation_url=PROTECTION_DOCS)
    if verdict.behind:
        raise ApiError(405, BEHIND, documentation_url=PROTECTION_DOCS)
    refuse_merge(merge_reasons(repo, issue, head, method, role))
    return head, base, trial.tree


def _merge_commit(
    state: ForgeState,
    repo: RepoRecord,
    issue: Issue,
    user: str,
    method: str,
    tips: tuple[str, str, str],
    shas: list[str],
    texts: tuple[str | None, str | None],
) -> str:
    """The commit the base moves to: a merge commit, one squashed commit or the replayed
    commits' tip. tips is (base, head, merged tree); texts is (title, message)."""
    base, head, tree = tips
    commit_title, commit_message = texts
    committer = web_flow_signature()
    if method == "merge":
        pull = issue.pull
        assert pull is not None
        title = commit_title or (
            f"Merge pull request #{issue.number} from {repo.owner}/{pull.head_ref}"
        )
        text = _message(title, commit_message if commit_message is not None else issue.title)
        return repo.git.create_commit(
            tree, [base, head], text, _person(state, user), committer, FORGE_SIGNATURE
        )
    if method == "squash":
        default_title, default_body = _squash_text(repo, issue, shas)
        text = _message(
            commit_title or default_title,
            commit_message if commit_message is not None else default_body,
        )
        return repo.git.create_commit(
            tree, [base], text, _person(state, issue.user), committer, FORGE_SIGNATURE
        )
    replayed = replay(repo.git, base, shas, committer)
    if replayed is None:
        raise ApiError(405, "This branch can't be rebased")
    return replayed


def _optional_str(body: dict[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is not None and not isinstance(value, str):
        raise ApiError(
            422, f"Invalid request.\n\nFor 'properties/{name}', {value!r} is not a string."
        )
    return value


@endpoint
def merge_endpoint(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_pull(repo, ctx.params["number"])
    body = ctx.json()
    sha = merge_pull_request(
        ctx.state,
        repo,
        issue,
        actor_login(ctx.principal),
        method=body.get("merge_method") or "merge",
        sha=_optional_str(body, "sha"),
        commit_title=_optional_str(body, "commit_title"),
        commit_message=_optional_str(body, "commit_message"),
        role=repo_role(ctx.principal, repo),
    )
    return json_response(
        {"sha": sha, "merged": True, "message": "Pull Request successfully merged"}
    )


def routes(state: ForgeState) -> list[Route]:
    return [
        Route("/repos/{owner}/{repo}/pulls/{number:int}/merge", merge_endpoint, methods=["PUT"])
    ]
