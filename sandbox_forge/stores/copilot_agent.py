"""Copilot's coding agent, simulated: what an assignment leaves behind on GitHub.

GitHub's agent answers an assignment by opening a session: it pushes a `copilot/…` branch
with an "Initial plan" commit and opens a draft pull request by the `Copilot` bot, titled
"[WIP] <issue title>", whose body closes the issue ("Fixes #N"), then works on it. No
agent runs here: the forge makes that branch, commit and draft at once and stops there,
and says so in the pull request's body and the session record (`simulated: True`).
"""

from __future__ import annotations

import time
from typing import Any

from sandbox_forge.git.objects import Signature
from sandbox_forge.stores.collab import Issue
from sandbox_forge.stores.copilot import AGENT
from sandbox_forge.stores.pulls import create_pull
from sandbox_forge.stores.records import RefUpdate, RepoRecord
from sandbox_forge.stores.state import ForgeState

AGENT_EMAIL = "198982749+Copilot@users.noreply.github.com"
SIMULATED = (
    "_Simulated by the sandbox forge: Copilot's coding agent does not run here. This draft "
    'and its branch\'s "Initial plan" commit stand in for the session GitHub would start._'
)


def _free_branch(repo: RepoRecord, number: int) -> str:
    name, n = f"copilot/fix-{number}", 1
    while repo.git.read_ref(f"refs/heads/{name}") is not None:
        n += 1
        name = f"copilot/fix-{number}-{n}"
    return name


def start_session(
    state: ForgeState,
    issue_repo: RepoRecord,
    issue: Issue,
    target: RepoRecord,
    base_branch: str | None,
) -> dict[str, Any]:
    """Branch, "Initial plan" commit and draft pull request for an assignment; returns
    what the session record adds (branch, pull request number, state)."""
    base = base_branch or target.default_branch
    base_sha = target.git.read_ref(f"refs/heads/{base}")
    if base_sha is None:  # an empty repository: nothing to branch from
        return {"simulated": True, "state": "failed", "base_branch": base}
    tree = target.git.resolve_tree(base_sha)
    assert tree is not None
    who = Signature("Copilot", AGENT_EMAIL, int(time.time()))
    plan = f"Initial plan for issue #{issue.number}\n" if target is issue_repo else "Initial plan\n"
    sha = target.git.create_commit(tree, [base_sha], plan, who, who)
    branch = _free_branch(target, issue.number)
    ref = f"refs/heads/{branch}"
    target.git.update_ref(ref, sha, None)
    state.fire_ref_update(RefUpdate(target.full_name, ref, None, sha, "api"))
    closes = (
        f"#{issue.number}" if target is issue_repo else f"{issue_repo.full_name}#{issue.number}"
    )
    body = f"Fixes {closes}\n\n{SIMULATED}\n"
    pull = create_pull(state, target, AGENT, f"[WIP] {issue.title}", branch, base, body, draft=True)
    return {
        "simulated": True,
        "state": "in_progress",
        "base_branch": base,
        "head_branch": branch,
        "pull_request": pull.number,
    }
