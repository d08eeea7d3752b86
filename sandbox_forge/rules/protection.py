"""Classic branch protection: the settings PUT /branches/{branch}/protection stores, and
what they demand of a pull request before it may merge."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sandbox_forge.kernel.errors import ApiError, missing_field
from sandbox_forge.rules.enforce import required_checks_reason
from sandbox_forge.stores.checks import check_states
from sandbox_forge.stores.collab import Issue, Protection, collab
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.reviews import review_summary, unresolved_threads
from sandbox_forge.stores.state import ForgeState

PROTECTION_DOCS = "https://docs.github.com/articles/about-protected-branches"
PUT_KEYS = (
    "required_status_checks",
    "enforce_admins",
    "required_pull_request_reviews",
    "restrictions",
)


def protection_for(repo: RepoRecord, branch: str) -> Protection | None:
    return collab(repo).protection.get(branch)


# --- settings -------------------------------------------------------------------------------


def _flag(body: dict[str, Any], name: str) -> bool:
    value = body.get(name)
    if isinstance(value, dict):
        value = value.get("enabled")
    if value is not None and not isinstance(value, bool):
        raise ApiError(
            422, f"Invalid request.\n\nFor 'properties/{name}', {value!r} is not a boolean."
        )
    return bool(value)


def parse_protection(
    branch: str, body: dict[str, Any], *, require_keys: bool = False
) -> Protection:
    """A Protection from the body of PUT /branches/{branch}/protection."""
    if require_keys:
        for key in PUT_KEYS:
            if key not in body:
                raise missing_field(key)
    prot = Protection(branch=branch)
    checks = body.get("required_status_checks")
    if checks is not None:
        _set_status_checks(prot, checks)
    reviews = body.get("required_pull_request_reviews")
    if reviews is not None:
        _set_reviews(prot, reviews)
    prot.enforce_admins = _flag(body, "enforce_admins")
    prot.required_linear_history = _flag(body, "required_linear_history")
    prot.allow_force_pushes = _flag(body, "allow_force_pushes")
    prot.allow_deletions = _flag(body, "allow_deletions")
    prot.required_conversation_resolution = _flag(body, "required_conversation_resolution")
    prot.required_signatures = _flag(body, "required_signatures")
    return prot


def _set_status_checks(prot: Protection, checks: Any) -> None:
    """required_status_checks: contexts (and checks' contexts) that must pass, and strict."""
    if not isinstance(checks, dict):
        raise ApiError(
            422,
            "Invalid request.\n\nFor 'properties/required_status_checks', is not an object.",
        )
    contexts = list(checks.get("contexts") or [])
    for item in checks.get("checks") or []:
        name = item.get("context") if isinstance(item, dict) else None
        if not isinstance(name, str):
            raise ApiError(422, "Invalid request.\n\nFor 'items', is not an object with a context.")
        if name not in contexts:
            contexts.append(name)
    if not all(isinstance(c, str) for c in contexts):
        raise ApiError(
            422, "Invalid request.\n\nFor 'properties/contexts', is not an array of strings."
        )
    prot.required_checks = contexts
    prot.strict = bool(checks.get("strict", False))


def _set_reviews(prot: Protection, reviews: Any) -> None:
    """required_pull_request_reviews: approvals needed (0-6) and how reviews count."""
    if not isinstance(reviews, dict):
        raise ApiError(
            422,
            "Invalid request.\n\nFor 'properties/required_pull_request_reviews', is not an object.",
        )
    count = reviews.get("required_approving_review_count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 6:
        raise ApiError(
            422, "Invalid request.\n\nrequired_approving_review_count must be between 0 and 6."
        )
    prot.required_approving_review_count = count
    prot.dismiss_stale_reviews = bool(reviews.get("dismiss_stale_reviews", False))
    prot.require_code_owner_reviews = bool(reviews.get("require_code_owner_reviews", False))
    prot.require_last_push_approval = bool(reviews.get("require_last_push_approval", False))


def set_protection(
    state: ForgeState, repo: RepoRecord, branch: str, body: dict[str, Any]
) -> Protection:
    prot = parse_protection(branch, body)
    with state.lock:
        collab(repo).protection[branch] = prot
    return prot


def clear_protection(state: ForgeState, repo: RepoRecord, branch: str) -> bool:
    with state.lock:
        return collab(repo).protection.pop(branch, None) is not None


# --- what protection demands of a pull request ---------------------------------------------


@dataclass
class Verdict:
    reasons: list[str] = field(default_factory=list)  # why a merge is refused (405 messages)
    behind: bool = False

    @property
    def blocked(self) -> bool:
        return bool(self.reasons)


def evaluate(repo: RepoRecord, issue: Issue, head: str, base: str) -> Verdict:
    pull = issue.pull
    assert pull is not None
    verdict = Verdict()
    prot = protection_for(repo, pull.base_ref)
    if prot is None:
        return verdict
    needed = prot.required_approving_review_count
    if needed is not None:
        approvals, changes = review_summary(
            repo, issue, head if prot.dismiss_stale_reviews else None
        )
        if changes:
            verdict.reasons.append("Changes have been requested.")
        if approvals < needed:
            plural = "reviews are" if needed > 1 else "review is"
            verdict.reasons.append(
                f"At least {needed} approving {plural} required by reviewers with write access."
            )
    if prot.required_checks:
        reason = required_checks_reason(prot.required_checks, check_states(repo, head))
        if reason:
            verdict.reasons.append(reason)
    if prot.required_conversation_resolution and unresolved_threads(repo, issue):
        verdict.reasons.append("All comments must be resolved.")
    if prot.required_checks is not None and prot.strict:
        verdict.behind = not repo.git.is_ancestor(base, head)
    return verdict


def unstable(repo: RepoRecord, issue: Issue, head: str) -> bool:
    """Non-required checks that failed or are still running (GitHub's "unstable")."""
    pull = issue.pull
    assert pull is not None
    prot = protection_for(repo, pull.base_ref)
    required = set(prot.required_checks or []) if prot else set()
    return any(
        value != "success"
        for name, value in check_states(repo, head).items()
        if name not in required
    )
