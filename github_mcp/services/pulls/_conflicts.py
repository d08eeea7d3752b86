"""Merge conflicts of a PR: GitHub's `mergeable` (waited for, within a bound) and, since
GitHub never names the conflicting files, a trial merge in a server-private scratch
repository that does (`workspace_rebase.ScratchRepos`)."""

from __future__ import annotations

import shlex
from typing import Any

from github_mcp.github.client import (
    GitHubClient,
)
from github_mcp.services.pulls._automation import (
    ProgressFn,
    call_text,
    pr_label,
    require_open,
    wait_mergeable,
)
from github_mcp.services.workspace import ScratchRepos


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
) -> dict[str, Any]:
    pr, computed = await wait_mergeable(
        github, full_name, number, timeout_s=timeout_s, interval_s=interval_s,
        on_progress=on_progress,
    )  # fmt: skip
    require_open(pr, full_name)
    base, head = pr["base"]["ref"], pr["head"]["ref"]
    result: dict[str, Any] = {
        "number": number,
        "base": base,
        "head": head,
        "head_sha": pr["head"]["sha"],
        "mergeable": pr.get("mergeable"),
        "mergeable_state": pr.get("mergeable_state"),
        "computed_by_github": computed,
    }
    if pr.get("mergeable") is True:
        result.update(conflicts=[], verdict="clean")
        return result
    trial = await scratch.trial_merge(full_name, f"refs/heads/{base}", f"refs/pull/{number}/head")
    result["trial_merge"] = {"base_sha": trial.base_sha, "head_sha": trial.head_sha}
    result["conflicts"] = [{k: v for k, v in vars(c).items() if v} for c in trial.conflicts]
    if trial.clean:
        result["verdict"] = "clean"
        if pr.get("mergeable") is False:
            result["note"] = (
                "GitHub reports a conflict the trial merge of the current heads does not "
                "reproduce; GitHub's answer may be stale."
            )
        return result
    files = [c.path for c in trial.conflicts]
    result["verdict"] = "conflicting"
    repo = pr["head"].get("repo")  # None once the head's fork was deleted
    head_repo = (repo["full_name"] if repo else full_name).lower()
    fork = number if head_repo != full_name.lower() else None
    result["resolve"] = resolve_commands(base, head, files, fork)
    result["then"] = call_text("detect_merge_conflicts", pr=pr_label(full_name, number))
    return result
