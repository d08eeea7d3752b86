"""Merge conflicts of a PR: GitHub's `mergeable` (waited for, within a bound) and, since
GitHub never names the conflicting files, a trial merge in a server-private scratch
repository that does (`workspace_rebase.ScratchRepos`)."""

from __future__ import annotations

import shlex
from typing import Literal

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient
from github_mcp.services.pulls._automation import (
    ProgressFn,
    pr_label,
    require_open,
    wait_mergeable,
)
from github_mcp.services.shared.suggested_calls import call_text
from github_mcp.services.workspace import ScratchRepos


class ConflictFile(BaseModel):
    path: str
    kinds: list[str] | None = None
    preview: str | None = None


class MergeConflicts(BaseModel):
    number: int
    base: str
    head: str
    head_sha: str
    verdict: Literal["clean", "conflicting"]
    mergeable: bool | None = None
    mergeable_state: str | None = None
    computed_by_github: bool
    conflicts: list[ConflictFile]
    resolve: list[str] | None = None
    then: str | None = None
    note: str | None = None


def resolve_commands(
    base: str, head: str, files: list[str], fork_pr: int | None = None
) -> list[str]:
    q = shlex.quote
    if fork_pr is not None:  # the head lives in a fork: GitHub mirrors it as pull/N/head
        fetch = [
            f"git fetch origin {q(base)} pull/{fork_pr}/head:{q(head)}",
            f"git switch {q(head)}",
        ]
    else:
        fetch = [
            f"git fetch origin {q(base)} {q(head)}",
            f"git switch -C {q(head)} origin/{q(head)}",
        ]
    return [
        *fetch,
        f"git merge origin/{q(base)}",
        "# resolve the conflict markers in: " + " ".join(files[:20]),
        "git add " + " ".join(q(f) for f in files[:20]) + " && git commit --no-edit",
        f"git push origin {q(head)}",
    ]


async def detect_conflicts(
    github: GitHubClient,
    scratch: ScratchRepos,
    full_name: str,
    number: int,
    *,
    timeout_s: float,
    interval_s: float,
    on_progress: ProgressFn | None = None,
) -> MergeConflicts:
    pr, computed = await wait_mergeable(
        github, full_name, number, timeout_s=timeout_s, interval_s=interval_s,
        on_progress=on_progress,
    )  # fmt: skip
    require_open(pr, full_name)
    base, head = pr["base"]["ref"], pr["head"]["ref"]
    found = MergeConflicts(
        number=number,
        base=base,
        head=head,
        head_sha=pr["head"]["sha"],
        mergeable=pr.get("mergeable"),
        mergeable_state=pr.get("mergeable_state"),
        computed_by_github=computed,
        verdict="clean",
        conflicts=[],
    )
    if pr.get("mergeable") is True:
        return found
    trial = await scratch.trial_merge(full_name, f"refs/heads/{base}", f"refs/pull/{number}/head")
    found.conflicts = [
        ConflictFile(path=c.path, kinds=c.kinds or None, preview=c.preview or None)
        for c in trial.conflicts
    ]
    if trial.clean:
        if pr.get("mergeable") is False:
            found.note = (
                "GitHub reports a conflict the trial merge of the current heads does not "
                "reproduce; GitHub's answer may be stale."
            )
        return found
    files = [c.path for c in trial.conflicts]
    found.verdict = "conflicting"
    repo = pr["head"].get("repo")  # None once the head's fork was deleted
    head_repo = (repo["full_name"] if repo else full_name).lower()
    fork = number if head_repo != full_name.lower() else None
    found.resolve = resolve_commands(base, head, files, fork)
    found.then = call_text("detect_merge_conflicts", pr=pr_label(full_name, number))
    return found
