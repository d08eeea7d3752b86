"""Merge readiness of a PR: one verdict, and every blocking item with the action that
clears it.

What GitHub enforces comes from the base branch's protection (required approvals, against
each reviewer's latest deciding review; required status checks; strict up-to-date). What a
careful engineer also waits for is added: no conflicts, not a draft, no changes requested,
no unresolved review threads, and (when no check is required) no failing checks. When the
protection cannot be read (it needs admin rights), the branch's public summary and
GitHub's `reviewDecision` stand in for it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from github_mcp.github.client import (
    GitHubClient,
)
from github_mcp.github.graphql import (
    review_threads,
)
from github_mcp.github.urls import encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services import actions as ci
from github_mcp.services.pulls._automation import (
    ProgressFn,
    latest_reviews,
    pr_label,
    pull_reviews,
    wait_mergeable,
)
from github_mcp.services.pulls._service import get_pull
from github_mcp.services.shared.github_json import PullRequest, PullReview
from github_mcp.services.shared.repo_facts import (
    repo_path,
)
from github_mcp.services.shared.suggested_calls import call_text

# Where the merge rules came from, said as a reader would want it said.
SOURCES = {
    "protection": "branch protection rules",
    "branch_summary": "branch summary (the rules need admin rights to read)",
    "none": "base branch unprotected",
}


@dataclass
class Protection:
    source: str  # protection | branch_summary | none
    required_approvals: int | None = None
    dismiss_stale: bool = False
    code_owners: bool = False
    required_checks: list[str] = field(default_factory=list)
    strict: bool = False
    conversation_resolution: bool = False


async def read_protection(github: GitHubClient, full_name: str, branch: str) -> Protection:
    """The branch's protection; when it cannot be read (it needs admin rights), the
    branch's public summary. Both are asked at once: one round trip either way."""
    path = f"{repo_path(full_name)}/branches/{encode_path(branch)}"
    answers: tuple[Any, Any] = await asyncio.gather(
        github.request_json("GET", f"{path}/protection"),
        github.request_json("GET", path),
        return_exceptions=True,
    )
    detailed, summary = answers
    if isinstance(detailed, BaseException):
        unreadable = (ErrorCode.NOT_FOUND, ErrorCode.FORBIDDEN, ErrorCode.PERMISSION_DENIED)
        if not isinstance(detailed, GitHubMCPError) or detailed.code not in unreadable:
            raise detailed
        detailed = None
    if detailed is not None:
        return _from_protection(detailed)
    # Unprotected, or protection unreadable without admin rights: the branch says which.
    if isinstance(summary, BaseException):
        raise summary
    if not summary.get("protected"):
        return Protection(source="none")
    checks = ((summary.get("protection") or {}).get("required_status_checks")) or {}
    return Protection(source="branch_summary", required_checks=list(checks.get("contexts") or []))


def _from_protection(data: dict[str, Any]) -> Protection:
    reviews = data.get("required_pull_request_reviews") or None
    checks = data.get("required_status_checks") or {}
    names = list(checks.get("contexts") or [])
    names += [c["context"] for c in checks.get("checks") or [] if c["context"] not in names]
    return Protection(
        source="protection",
        required_approvals=(reviews or {}).get("required_approving_review_count")
        if reviews
        else None,
        dismiss_stale=bool((reviews or {}).get("dismiss_stale_reviews")),
        code_owners=bool((reviews or {}).get("require_code_owner_reviews")),
        required_checks=names,
        strict=bool(checks.get("strict")),
        conversation_resolution=bool(
            (data.get("required_conversation_resolution") or {}).get("enabled")
        ),
    )


@dataclass
class Readiness:
    verdict: str  # ready | pending | blocked
    facts: dict[str, Any]
    blocking: list[dict[str, str]]
    warnings: list[dict[str, str]]


def _item(kind: str, detail: str, action: str) -> dict[str, str]:
    return {"kind": kind, "detail": detail, "action": action}


@dataclass
class _Reads:
    """Everything the verdict is made of, read at once."""

    settled: PullRequest  # the PR, with its mergeability once GitHub has computed it
    protection: Protection
    reviews: list[PullReview]
    checks: list[ci.Check]
    compare: dict[str, Any]
    threads: list[dict[str, Any]]
    decision: str | None


async def _read_all(
    github: GitHubClient,
    full_name: str,
    pr: PullRequest,
    *,
    timeout_s: float,
    interval_s: float,
    on_progress: ProgressFn | None,
) -> _Reads:
    number, base, sha = pr["number"], pr["base"]["ref"], pr["head"]["sha"]

    async def mergeability() -> PullRequest:
        if pr.get("mergeable") is not None:
            return pr
        # GitHub computes it in the background: asked again while the rest is read
        waited, _ = await wait_mergeable(
            github, full_name, number, timeout_s=timeout_s, interval_s=interval_s,
            on_progress=on_progress,
        )  # fmt: skip
        return waited if waited["head"]["sha"] == sha else pr

    settled, protection, reviews, checks, compare, threads = await asyncio.gather(
        mergeability(),
        read_protection(github, full_name, base),
        pull_reviews(github, full_name, number),
        ci.commit_checks(github, full_name, sha),
        github.request_json(
            "GET", f"{repo_path(full_name)}/compare/{encode_path(base)}...{sha}",
            params={"per_page": 1},
        ),
        review_threads(github, full_name, number),
    )  # fmt: skip
    nodes, decision, _ = threads
    return _Reads(settled, protection, reviews, checks, compare, nodes, decision)


def _state(
    pr: PullRequest,
    settled: PullRequest,
    label: str,
    facts: dict[str, Any],
    blocking: list[dict[str, str]],
    warnings: list[dict[str, str]],
) -> None:
    """Draft, and conflicts with the base branch (or not known yet)."""
    if pr.get("draft"):
        blocking.append(
            _item(
                "draft",
                "The PR is a draft.",
                f"Mark it ready for review (gh pr ready {pr['number']}).",
            )
        )
    mergeable = settled.get("mergeable")
    facts.update(draft=bool(pr.get("draft")), mergeable=mergeable)
    if mergeable is False:
        blocking.append(
            _item(
                "conflicts",
                f"The PR conflicts with {pr['base']['ref']}.",
                call_text("detect_merge_conflicts", pr=label) + " names the files.",
            )
        )
    elif mergeable is None:
        warnings.append(
            _item(
                "mergeability_unknown",
                "GitHub has not computed mergeability yet.",
                call_text("detect_merge_conflicts", pr=label),
            )
        )


def _behind(
    reads: _Reads,
    base: str,
    facts: dict[str, Any],
    blocking: list[dict[str, str]],
    warnings: list[dict[str, str]],
) -> None:
    """Commits of the base not in the PR: blocking only when protection is strict."""
    behind = int(reads.compare.get("behind_by") or 0)
    facts["behind_by"] = behind
    if behind:
        update = _item(
            "behind",
            f"{behind} commit(s) on {base} are not in the PR.",
            f"git fetch origin {base} && git merge origin/{base} && git push "
            "(or GitHub's 'Update branch').",
        )
        (blocking if reads.protection.strict else warnings).append(update)


def _threads(
    reads: _Reads, label: str, facts: dict[str, Any], blocking: list[dict[str, str]]
) -> None:
    unresolved = [n for n in reads.threads if not n.get("isResolved")]
    facts["unresolved_threads"] = len(unresolved)
    if unresolved:
        enforced = " (required by protection)" if reads.protection.conversation_resolution else ""
        blocking.append(
            _item(
                "unresolved_threads",
                f"{len(unresolved)} review thread(s) unresolved{enforced}.",
                call_text("find_unresolved_comments", pr=label),
            )
        )


def _verdict(blocking: list[dict[str, str]]) -> str:
    """Ready with nothing blocking; pending when only checks still running block."""
    pending_only = blocking and all(b["kind"] == "checks_pending" for b in blocking)
    return "ready" if not blocking else ("pending" if pending_only else "blocked")


async def check_readiness(
    github: GitHubClient,
    full_name: str,
    number: int,
    *,
    timeout_s: float,
    interval_s: float,
    on_progress: ProgressFn | None = None,
) -> Readiness:
    pr = await get_pull(github, full_name, number)
    label = pr_label(full_name, number)
    base, head, sha = pr["base"]["ref"], pr["head"]["ref"], pr["head"]["sha"]
    facts: dict[str, Any] = {"number": number, "head": head, "base": base, "head_sha": sha}
    if pr.get("state") != "open":
        state = "merged" if pr.get("merged_at") else "closed"
        facts["state"] = state
        return Readiness(
            "blocked", facts, [_item("state", f"The PR is {state}.", "Nothing to merge.")], []
        )
    reads = await _read_all(
        github, full_name, pr, timeout_s=timeout_s, interval_s=interval_s, on_progress=on_progress
    )
    blocking: list[dict[str, str]] = []
    warnings: list[dict[str, str]] = []
    _state(pr, reads.settled, label, facts, blocking, warnings)
    _reviews(reads.protection, reads.reviews, reads.decision, sha, label, facts, blocking)
    _checks(reads.protection, reads.checks, label, facts, blocking, warnings)
    _behind(reads, base, facts, blocking, warnings)
    _threads(reads, label, facts, blocking)
    facts["protection"] = SOURCES[reads.protection.source]
    return Readiness(_verdict(blocking), facts, blocking, warnings)


def _reviews(
    protection: Protection,
    reviews: list[PullReview],
    decision: str | None,
    sha: str,
    label: str,
    facts: dict[str, Any],
    blocking: list[dict[str, str]],
) -> None:
    latest = latest_reviews(reviews)
    approved = sorted(
        login
        for login, r in latest.items()
        if r.get("state") == "APPROVED"
        and (not protection.dismiss_stale or r.get("commit_id") == sha)
    )
    changes = sorted(login for login, r in latest.items() if r.get("state") == "CHANGES_REQUESTED")
    required = protection.required_approvals
    facts["approvals"] = {
        k: v
        for k, v in {
            "required": required,
            "approved_by": approved,
            "changes_requested_by": changes or None,
            "review_decision": decision if protection.source != "protection" else None,
        }.items()
        if v is not None
    }
    if changes:
        blocking.append(
            _item(
                "changes_requested",
                "Changes requested by " + ", ".join(changes) + ".",
                f"Address them ({call_text('find_unresolved_comments', pr=label)}), "
                "then ask " + ", ".join(changes) + " to re-review.",
            )
        )
    if required is not None and len(approved) < required:
        blocking.append(
            _item(
                "approvals",
                f"{len(approved)} of {required} required approving review(s).",
                f"Ask a reviewer with write access to approve (gh pr edit {label.split('#')[1]} "
                "--add-reviewer LOGIN).",
            )
        )
    elif (
        required is None
        and protection.source == "branch_summary"
        and (decision == "REVIEW_REQUIRED")
    ):
        blocking.append(
            _item(
                "approvals",
                "GitHub reports a review is required (reviewDecision REVIEW_REQUIRED).",
                "Ask a reviewer with write access to approve.",
            )
        )
    if protection.code_owners:
        facts["approvals"]["code_owners_required"] = True


def _checks(
    protection: Protection,
    checks: list[ci.Check],
    label: str,
    facts: dict[str, Any],
    blocking: list[dict[str, str]],
    warnings: list[dict[str, str]],
) -> None:
    by_name = {c.name: c for c in checks}
    required = protection.required_checks
    if required:
        states = {
            name: (by_name[name].state if name in by_name else "expected") for name in required
        }
        facts["required_checks"] = states
        failing = [n for n, s in states.items() if s == "failed"]
        waiting = [n for n, s in states.items() if s in ("pending", "expected")]
        others = [c for c in checks if c.name not in states and c.state == "failed"]
    else:
        failing = [c.name for c in checks if c.state == "failed"]
        waiting = [c.name for c in checks if c.state == "pending"]
        others = []
        counts = ci.count_checks(checks)
        facts["checks"] = {
            "passed": counts.passed,
            "failed": counts.failed,
            "pending": counts.pending,
        }
    kind = "required checks" if required else "checks"
    if failing:
        blocking.append(
            _item(
                "checks_failing",
                f"Failing {kind}: " + ", ".join(failing) + ".",
                call_text("get_failing_tests", pr=label)
                + " names the tests and how to rerun them.",
            )
        )
    if waiting:
        blocking.append(
            _item(
                "checks_pending",
                f"Not finished {kind}: " + ", ".join(waiting) + ".",
                call_text("get_failing_tests", pr=label, wait=True),
            )
        )
    for check in others:
        warnings.append(
            _item(
                "check_failing",
                f"{check.name} failed (not required)"
                + (f": {check.detail}" if check.detail else "")
                + ".",
                call_text("get_failing_tests", pr=label) if check.kind == "job" else "Optional.",
            )
        )
