"""Stacked pull requests: a dependent PR whose base is another PR's head branch.

The plan says whether the stack holds, how many commits the dependent PR carries, and the
exact commands to bring it up to date:

- base PR open, dependent behind it: `git rebase origin/<base head>`;
- base PR merged with a merge commit: rebase onto the branch it was merged into;
- base PR squash- or rebase-merged: its original commits are not in the target branch, so
  a plain rebase would replay them; `git rebase --onto <target> <old base head>` carries
  only the dependent PR's own commits.

Executing runs the same rebase in a scratch work tree and pushes with a lease on the head
that was planned from; on conflict nothing is pushed.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from github_mcp.github.client import (
    GitHubClient,
)
from github_mcp.github.urls import encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, invalid_input
from github_mcp.kernel.params import parse_pr_ref
from github_mcp.services.pulls._automation import pr_label
from github_mcp.services.pulls._service import get_pull
from github_mcp.services.shared.approved_state import RemoteState, require_facts
from github_mcp.services.shared.github_json import Comparison, PullRequest
from github_mcp.services.shared.repo_facts import (
    repo_path,
)
from github_mcp.services.shared.suggested_calls import call_text
from github_mcp.services.workspace import RebaseOutcome, ScratchRepos


@dataclass
class StackPlan:
    full_name: str
    base_number: int
    dependent_number: int
    base: PullRequest
    dependent: PullRequest
    stacked: bool
    status: str  # up_to_date | needs_rebase | base_merged | base_closed | not_stacked
    detail: str
    strategy: str = "none"  # none | rebase | rebase_onto
    commits_to_carry: int | None = None
    base_commits_missing: int | None = None
    commands: list[str] = field(default_factory=list)
    retarget_to: str | None = None
    onto_ref: str | None = None
    upstream_ref: str | None = None

    @property
    def dependent_branch(self) -> str:
        return self.dependent["head"]["ref"]

    @property
    def dependent_sha(self) -> str:
        return self.dependent["head"]["sha"]

    @property
    def actionable(self) -> bool:
        return self.strategy != "none"


async def _compare(github: GitHubClient, full_name: str, base: str, head: str) -> Comparison:
    path = f"{repo_path(full_name)}/compare/{encode_path(base)}...{encode_path(head)}"
    data: Comparison = await github.request_json("GET", path, params={"per_page": 1})
    return data


def _rebase_commands(
    dep: str, dep_sha: str, onto: str, fetch: list[str], upstream: str | None
) -> list[str]:
    q = shlex.quote
    rebase = (
        f"git rebase --onto origin/{q(onto)} {upstream} {q(dep)}"
        if upstream
        else f"git rebase origin/{q(onto)}"
    )
    return [
        "git fetch origin " + " ".join(q(r) for r in fetch),
        f"git switch -C {q(dep)} origin/{q(dep)}",
        rebase,
        f"git push --force-with-lease={q(dep)}:{dep_sha} origin {q(dep)}",
    ]


def _require_two_pulls(base_number: int, dependent_number: int) -> None:
    if base_number == dependent_number:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "base_pr and dependent_pr are the same PR.",
            hint=(
                "Give the PR the other builds on as base_pr and the one to restack as dependent_pr."
            ),
        )


def _require_open_dependent(dep: PullRequest, full_name: str, dependent_number: int) -> None:
    if dep.get("state") != "open":
        raise GitHubMCPError(
            ErrorCode.UNPROCESSABLE,
            f"{pr_label(full_name, dependent_number)} is not open; there is nothing to restack.",
            hint="Reopen it with reopen_pull_request first, or restack another open PR.",
        )


def _is_stacked(base: PullRequest, dep: PullRequest) -> bool:
    """The dependent PR targets the base PR's head, or (base merged) the branch it went into."""
    dep_base = dep["base"]["ref"]
    merged = bool(base.get("merged_at"))
    return dep_base == base["head"]["ref"] or (merged and dep_base == base["base"]["ref"])


def _not_stacked(plan: StackPlan) -> StackPlan:
    """Explain the unrelated bases and suggest retargeting the dependent PR."""
    base_head, dep_base = plan.base["head"]["ref"], plan.dependent["base"]["ref"]
    plan.detail = (
        f"#{plan.dependent_number} targets {dep_base}, not #{plan.base_number}'s head {base_head}."
    )
    plan.commands = [
        call_text(
            "update_pull_request",
            pr=pr_label(plan.full_name, plan.dependent_number),
            base=base_head,
        )
    ]
    return plan


async def _plan_on_open_base(github: GitHubClient, plan: StackPlan) -> StackPlan:
    """Base PR open: up to date, or rebase onto its head."""
    base_head, base_sha = plan.base["head"]["ref"], plan.base["head"]["sha"]
    dep_branch, dep_sha = plan.dependent_branch, plan.dependent_sha
    cmp = await _compare(github, plan.full_name, base_sha, dep_sha)
    plan.commits_to_carry = int(cmp.get("ahead_by") or 0)
    plan.base_commits_missing = int(cmp.get("behind_by") or 0)
    if not plan.base_commits_missing:
        plan.status = "up_to_date"
        plan.detail = f"{dep_branch} already contains {base_head}; nothing to carry over."
        return plan
    plan.status, plan.strategy = "needs_rebase", "rebase"
    plan.detail = (
        f"{base_head} has {plan.base_commits_missing} commit(s) {dep_branch} lacks; "
        f"rebase its {plan.commits_to_carry} commit(s) onto it."
    )
    plan.onto_ref = plan.upstream_ref = f"refs/heads/{base_head}"
    plan.commands = _rebase_commands(dep_branch, dep_sha, base_head, [base_head, dep_branch], None)
    return plan


def _plan_on_closed_base(plan: StackPlan) -> StackPlan:
    plan.status = "base_closed"
    plan.detail = (
        f"#{plan.base_number} was closed without merging; retarget #{plan.dependent_number} "
        f"(for example to {plan.base['base']['ref']}) or reopen #{plan.base_number}."
    )
    return plan


async def _plan_on_merged_base(github: GitHubClient, plan: StackPlan) -> StackPlan:
    """Base PR merged: rebase onto the branch it went into, --onto when squash/rebase-merged."""
    base_number, dependent_number = plan.base_number, plan.dependent_number
    base_target, base_sha = plan.base["base"]["ref"], plan.base["head"]["sha"]
    dep_branch, dep_sha = plan.dependent_branch, plan.dependent_sha
    # A merge commit keeps the base PR's commits; squash and rebase merges do not.
    contained, carry = await asyncio.gather(
        _compare(github, plan.full_name, base_target, base_sha),
        _compare(github, plan.full_name, base_sha, dep_sha),
    )
    plan.commits_to_carry = int(carry.get("ahead_by") or 0)
    squashed = int(contained.get("ahead_by") or 0) > 0
    plan.status = "base_merged"
    plan.onto_ref = f"refs/heads/{base_target}"
    fetch = [base_target, dep_branch]
    if squashed:
        plan.strategy = "rebase_onto"
        plan.upstream_ref = f"refs/pull/{base_number}/head"
        fetch.append(f"pull/{base_number}/head")
        plan.detail = (
            f"#{base_number} was squash- or rebase-merged into {base_target}; its original "
            f"commits must not be replayed: move only #{dependent_number}'s "
            f"{plan.commits_to_carry} commit(s) onto {base_target}."
        )
        plan.commands = _rebase_commands(dep_branch, dep_sha, base_target, fetch, base_sha)
    else:
        plan.strategy = "rebase"
        plan.upstream_ref = plan.onto_ref
        plan.detail = (
            f"#{base_number} was merged into {base_target} with a merge commit; rebase "
            f"#{dependent_number}'s {plan.commits_to_carry} commit(s) onto {base_target}."
        )
        plan.commands = _rebase_commands(dep_branch, dep_sha, base_target, fetch, None)
    if plan.dependent["base"]["ref"] != base_target:
        plan.retarget_to = base_target
        plan.commands.append(
            call_text(
                "update_pull_request",
                pr=pr_label(plan.full_name, dependent_number),
                base=base_target,
            )
        )
    return plan


async def plan_stack(
    github: GitHubClient, full_name: str, base_number: int, dependent_number: int
) -> StackPlan:
    _require_two_pulls(base_number, dependent_number)
    base, dep = await asyncio.gather(
        get_pull(github, full_name, base_number), get_pull(github, full_name, dependent_number)
    )
    _require_open_dependent(dep, full_name, dependent_number)
    plan = StackPlan(
        full_name, base_number, dependent_number, base, dep, stacked=False,
        status="not_stacked", detail="",
    )  # fmt: skip
    if not _is_stacked(base, dep):
        return _not_stacked(plan)
    plan.stacked = True
    if base.get("state") == "open":
        return await _plan_on_open_base(github, plan)
    if not base.get("merged_at"):
        return _plan_on_closed_base(plan)
    return await _plan_on_merged_base(github, plan)


async def execute_stack(
    github: GitHubClient, scratch: ScratchRepos, plan: StackPlan
) -> tuple[RebaseOutcome, bool]:
    """Rebase and push the dependent branch as planned; retarget its PR when the plan says.

    Returns (outcome, retargeted)."""
    assert plan.onto_ref and plan.upstream_ref
    outcome = await scratch.rebase_and_push(
        plan.full_name,
        branch=plan.dependent_branch,
        onto_ref=plan.onto_ref,
        upstream_ref=plan.upstream_ref,
        expected_sha=plan.dependent_sha,
    )
    retargeted = False
    if outcome.status != "conflict" and plan.retarget_to:
        await github.request_json(
            "PATCH",
            f"{repo_path(plan.full_name)}/pulls/{plan.dependent_number}",
            json_body={"base": plan.retarget_to},
        )
        retargeted = True
    return outcome, retargeted


_NUMBER = re.compile(r"^#?(\d+)$")


def stack_refs(full_name: str | None, base_pr: str, dependent_pr: str) -> tuple[str, int, int]:
    """(full_name, base number, dependent number) from two PR references: 'owner/repo#N',
    a PR URL, or a bare number (then `full_name` names the repository)."""
    given = full_name
    repos = {given.lower()} if given else set()
    numbers: dict[str, int] = {}
    for role, ref in (("base", base_pr), ("dependent", dependent_pr)):
        ref = str(ref or "").strip()
        bare = _NUMBER.match(ref)
        if bare:
            numbers[role] = int(bare.group(1))
            continue
        repo, numbers[role] = parse_pr_ref(ref)
        repos.add(repo.lower())
        given = given or repo
    if not given:
        raise invalid_input(
            "give full_name, or the PRs as 'owner/repo#N'",
            hint="Give full_name 'owner/repo', or write the PRs as 'owner/repo#N'.",
        )
    if len(repos) > 1:
        raise invalid_input(
            "base_pr and dependent_pr must be in the same repository",
            hint="Stacked PRs live in one repository; name PRs of the same owner/repo.",
        )
    if min(numbers.values()) < 1:
        raise invalid_input(
            "PR numbers start at 1",
            hint="Give PR numbers of 1 or more; list_pull_requests shows them.",
        )
    return given, numbers["base"], numbers["dependent"]


@dataclass
class StackRun:
    """A stack's plan and, when executed, what the rebase did and what to call next."""

    plan: StackPlan
    outcome: RebaseOutcome | None = None
    retargeted: bool = False
    next: str | None = None


def plan_facts(plan: StackPlan) -> tuple[tuple[str, str], ...]:
    """What the plan rests on, for an approval to bind (pipeline/approval_binding.py): both PRs'
    heads, the dependent's base, and the base PR's state and target."""
    base, dep = plan.base, plan.dependent
    merged = f"merged {base.get('merge_commit_sha')}" if base.get("merged_at") else base["state"]
    return (
        ("head_sha", str(dep["head"]["sha"])),
        ("dependent_base", str(dep["base"]["ref"])),
        ("base_pr_head_sha", str(base["head"]["sha"])),
        ("base_pr_state", str(merged)),
        ("base_pr_target", str(base["base"]["ref"])),
    )


async def stack_state(
    github: GitHubClient, full_name: str, base_number: int, dependent_number: int
) -> RemoteState:
    """The state a gated stack operation is approved for, with the plan in words."""
    plan = await plan_stack(github, full_name, base_number, dependent_number)
    texts = (("plan", plan.detail), ("commands", "\n".join(plan.commands)))
    return RemoteState(plan_facts(plan), texts=tuple((k, v) for k, v in texts if v))


async def manage_stack(
    github: GitHubClient,
    scratch: Callable[[], ScratchRepos],
    full_name: str,
    base_number: int,
    dependent_number: int,
    *,
    execute: bool = False,
    approved: RemoteState | None = None,
) -> StackRun:
    """Plan the stack and, with `execute`, rebase and push it in a scratch clone (taken
    from `scratch` only then). With `approved` (a gated run), the plan must rest on the
    approved state, else `conflict` and nothing is pushed."""
    plan = await plan_stack(github, full_name, base_number, dependent_number)
    if execute and approved is not None:
        await require_facts(github, full_name, approved, dict(plan_facts(plan)))
    if not execute:
        nxt = None
        if plan.actionable:
            nxt = call_text(
                "manage_stacked_prs", full_name=full_name, base_pr=str(base_number),
                dependent_pr=str(dependent_number), execute=True,
            )  # fmt: skip
        return StackRun(plan, next=nxt)
    if not plan.stacked:
        raise GitHubMCPError(ErrorCode.UNPROCESSABLE, plan.detail, hint="Fix the stack first.")
    if not plan.actionable:
        return StackRun(plan)
    outcome, retargeted = await execute_stack(github, scratch(), plan)
    nxt = None
    if outcome.status == "conflict":
        nxt = (
            "Nothing was pushed. Rebase by hand with the commands above and resolve: "
            + ", ".join(outcome.conflicts[:10])
        )
    elif outcome.pushed:
        nxt = call_text("get_failing_tests", pr=pr_label(full_name, dependent_number), wait=True)
    return StackRun(plan, outcome, retargeted, nxt)
