"""Pull request mergeability, computed lazily with `git merge-tree` as GitHub computes it
in the background, and the live head and base commits it is computed for.

After a change to the head or base, GETs answer `mergeable: null` (state "unknown") a
configurable number of times (default once) before the computed answer appears.
"""

from __future__ import annotations

from typing import Any

from sandbox_forge.git.pulls import merge_tree, web_flow_signature
from sandbox_forge.rules.protection import evaluate, unstable
from sandbox_forge.stores.collab import Issue, Pull, settings
from sandbox_forge.stores.pull_heads import branch_tips, live_base, live_head
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


def live_ends(repo: RepoRecord, issue: Issue) -> tuple[str, str]:
    """(head, base): the commits a pull request's branches point at now."""
    tips = branch_tips(repo)
    return live_head(repo, issue, tips), live_base(repo, issue, tips)


def _delay(state: ForgeState, pull: Pull) -> int:
    return pull.delay if pull.delay is not None else int(settings(state)["mergeability_delay"])


def compute_mergeability(
    state: ForgeState, repo: RepoRecord, issue: Issue, head: str, base: str
) -> None:
    """Trial-merge head into base; remember the answer, conflicts and test merge commit."""
    pull = issue.pull
    assert pull is not None
    result = merge_tree(repo.git, base, head)
    merge_ref = f"refs/pull/{issue.number}/merge"
    test_merge = None
    if result.clean:
        assert result.tree is not None
        sig = web_flow_signature()
        message = f"Merge {head} into {base}\n"
        test_merge = repo.git.create_commit(result.tree, [base, head], message, sig, sig)
        repo.git.force_ref(merge_ref, test_merge)
    else:
        current = repo.git.read_ref(merge_ref)
        if current is not None:
            repo.git.delete_ref(merge_ref, current)
    with state.lock:
        pull.mergeable = result.clean
        pull.rebaseable = result.clean
        pull.conflicts = list(result.conflicts)
        pull.merge_commit_sha = test_merge
        pull.known_for = [head, base]


def mergeability(
    state: ForgeState,
    repo: RepoRecord,
    issue: Issue,
    *,
    count_get: bool,
    ends: tuple[str, str] | None = None,
) -> tuple[bool | None, bool | None, str]:
    """(mergeable, rebaseable, mergeable_state) as a GET shows them now; ends: the (head,
    base) the caller has just read with live_ends."""
    pull = issue.pull
    assert pull is not None
    if issue.state != "open":
        return None, None, "unknown"
    head, base = ends or live_ends(repo, issue)
    key = [head, base]
    with state.lock:
        if pull.known_for != key:
            if pull.pending_key != key:
                pull.pending_key = key
                pull.pending_gets = _delay(state, pull)
            if not count_get:
                return None, None, "unknown"
            if pull.pending_gets > 0:
                pull.pending_gets -= 1
                return None, None, "unknown"
    if pull.known_for != key:
        compute_mergeability(state, repo, issue, head, base)
    return pull.mergeable, pull.rebaseable, merge_state(repo, issue, head, base)


def merge_state(repo: RepoRecord, issue: Issue, head: str, base: str) -> str:
    pull = issue.pull
    assert pull is not None
    if pull.mergeable is False:
        return "dirty"
    if pull.draft:
        return "draft"
    verdict = evaluate(repo, issue, head, base)
    if verdict.blocked:
        return "blocked"
    if verdict.behind:
        return "behind"
    if unstable(repo, issue, head):
        return "unstable"
    return "clean"


def conflicts_now(state: ForgeState, repo: RepoRecord, issue: Issue) -> dict[str, Any]:
    """The trial merge's verdict right now (for the admin API and tests)."""
    head, base = live_ends(repo, issue)
    result = merge_tree(repo.git, base, head)
    return {
        "number": issue.number,
        "head": head,
        "base": base,
        "mergeable": result.clean,
        "conflicts": list(result.conflicts),
    }
