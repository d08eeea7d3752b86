"""What rulesets demand of a pull request before it merges into a branch they cover: the
pull_request rule's approving reviews and resolved conversations, required status checks
on the head commit, and the allowed merge methods. GitHub refuses such a merge with 405
"Repository rule violations found" and the unmet rules."""

from __future__ import annotations

from typing import Any

from sandbox_forge.kernel.errors import ApiError
from sandbox_forge.rules.enforce import (
    required_checks_reason,
    rules_message,
    status_check_names,
)
from sandbox_forge.stores.access import at_least
from sandbox_forge.stores.checks import check_states
from sandbox_forge.stores.collab import Issue
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.reviews import review_summary, unresolved_threads
from sandbox_forge.stores.rulesets import rules_for_ref

MERGE_DOCS = "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request"


def _review_reasons(repo: RepoRecord, issue: Issue, head: str, params: dict[str, Any]) -> list:
    needed = params.get("required_approving_review_count") or 0
    stale = bool(params.get("dismiss_stale_reviews_on_push"))
    approvals, changes = review_summary(repo, issue, head if stale else None)
    reasons = []
    if changes:
        reasons.append("Changes have been requested.")
    if approvals < needed:
        plural = "reviews are" if needed > 1 else "review is"
        reasons.append(
            f"At least {needed} approving {plural} required by reviewers with write access."
        )
    if params.get("required_review_thread_resolution") and unresolved_threads(repo, issue):
        reasons.append("All comments must be resolved.")
    return reasons


def merge_reasons(
    repo: RepoRecord, issue: Issue, head: str, method: str, role: str | None
) -> list[str]:
    """The ruleset rules a merge of issue's pull request (head commit head) does not meet."""
    pull = issue.pull
    assert pull is not None
    reasons: list[str] = []
    for ruleset, rule in rules_for_ref(repo, f"refs/heads/{pull.base_ref}"):
        if ruleset.admin_bypass() and at_least(role, "admin"):
            continue
        params = rule.get("parameters") or {}
        found: list[str] = []
        if rule["type"] == "pull_request":
            found = _review_reasons(repo, issue, head, params)
            allowed = params.get("allowed_merge_methods")
            if allowed and method not in allowed:
                found.append(f"Merge method {method} is not allowed.")
        elif rule["type"] == "required_status_checks":
            names = status_check_names(rule)
            reason = required_checks_reason(names, check_states(repo, head)) if names else None
            found = [reason] if reason else []
        reasons += [r for r in found if r not in reasons]
    return reasons


def refuse_merge(reasons: list[str]) -> None:
    if reasons:
        raise ApiError(405, rules_message(reasons), documentation_url=MERGE_DOCS)
