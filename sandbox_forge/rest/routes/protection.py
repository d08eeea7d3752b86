"""Branch protection: the REST endpoints, the summary branches report, and what it demands
of a pull request before it may merge."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.rest.api import Ctx, Urls, endpoint
from sandbox_forge.rest.errors import ApiError, json_response, missing_field, not_found
from sandbox_forge.rest.routes.checks import check_states
from sandbox_forge.rest.routes.reviews import review_summary, unresolved_threads
from sandbox_forge.rules.enforce import required_checks_reason
from sandbox_forge.stores.collab import Issue, Protection, collab
from sandbox_forge.stores.state import ForgeState, RepoRecord

PROTECTION_DOCS = "https://docs.github.com/articles/about-protected-branches"
PUT_KEYS = (
    "required_status_checks",
    "enforce_admins",
    "required_pull_request_reviews",
    "restrictions",
)


def protection_for(repo: RepoRecord, branch: str) -> Protection | None:
    return collab(repo).protection.get(branch)


# --- shapes ---------------------------------------------------------------------------------


def protection_json(urls: Urls, repo: RepoRecord, prot: Protection) -> dict[str, Any]:
    url = f"{urls.repo(repo.full_name)}/branches/{quote(prot.branch, safe='')}/protection"
    data: dict[str, Any] = {"url": url}
    if prot.required_checks is not None:
        data["required_status_checks"] = {
            "url": f"{url}/required_status_checks",
            "strict": prot.strict,
            "contexts": list(prot.required_checks),
            "checks": [{"context": c, "app_id": None} for c in prot.required_checks],
            "contexts_url": f"{url}/required_status_checks/contexts",
        }
    if prot.required_approving_review_count is not None:
        data["required_pull_request_reviews"] = {
            "url": f"{url}/required_pull_request_reviews",
            "dismiss_stale_reviews": prot.dismiss_stale_reviews,
            "require_code_owner_reviews": prot.require_code_owner_reviews,
            "required_approving_review_count": prot.required_approving_review_count,
            "require_last_push_approval": prot.require_last_push_approval,
        }
    data.update(
        {
            "required_signatures": {
                "url": f"{url}/required_signatures",
                "enabled": prot.required_signatures,
            },
            "enforce_admins": {"url": f"{url}/enforce_admins", "enabled": prot.enforce_admins},
            "required_linear_history": {"enabled": prot.required_linear_history},
            "allow_force_pushes": {"enabled": prot.allow_force_pushes},
            "allow_deletions": {"enabled": prot.allow_deletions},
            "block_creations": {"enabled": False},
            "required_conversation_resolution": {
                "enabled": prot.required_conversation_resolution,
            },
            "lock_branch": {"enabled": False},
            "allow_fork_syncing": {"enabled": False},
        }
    )
    return data


def branch_summary(repo: RepoRecord, branch: str) -> dict[str, Any] | None:
    """The `protection` object GET /branches reports for a protected branch."""
    prot = protection_for(repo, branch)
    if prot is None:
        return None
    contexts = list(prot.required_checks or [])
    level = (
        "off"
        if prot.required_checks is None
        else ("everyone" if prot.enforce_admins else "non_admins")
    )
    return {
        "enabled": True,
        "required_status_checks": {
            "enforcement_level": level,
            "contexts": contexts,
            "checks": [{"context": c, "app_id": None} for c in contexts],
        },
    }


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


# --- endpoints ------------------------------------------------------------------------------


def _branch(ctx: Ctx, repo: RepoRecord) -> str:
    branch = ctx.params["branch"]
    if repo.git.read_ref(f"refs/heads/{branch}") is None:
        raise not_found("Branch not found")
    return branch


@endpoint
def get_protection(ctx: Ctx):
    repo = ctx.repo(write=True)
    branch = _branch(ctx, repo)
    prot = protection_for(repo, branch)
    if prot is None:
        raise not_found("Branch not protected")
    return json_response(protection_json(ctx.urls, repo, prot))


@endpoint
def put_protection(ctx: Ctx):
    repo = ctx.repo(need="admin")  # GitHub: "Must have admin rights to Repository."
    branch = _branch(ctx, repo)
    prot = parse_protection(branch, ctx.json(), require_keys=True)
    with ctx.state.lock:
        collab(repo).protection[branch] = prot
    return json_response(protection_json(ctx.urls, repo, prot))


@endpoint
def delete_protection(ctx: Ctx):
    repo = ctx.repo(need="admin")  # GitHub: "Must have admin rights to Repository."
    branch = _branch(ctx, repo)
    if not clear_protection(ctx.state, repo, branch):
        raise not_found("Branch not protected")
    return Response(status_code=204)


def _signatures_json(ctx: Ctx, repo: RepoRecord, prot: Protection) -> dict[str, Any]:
    url = f"{ctx.urls.repo(repo.full_name)}/branches/{quote(prot.branch, safe='')}/protection"
    return {"url": f"{url}/required_signatures", "enabled": prot.required_signatures}


def _protected(ctx: Ctx, repo: RepoRecord) -> Protection:
    prot = protection_for(repo, _branch(ctx, repo))
    if prot is None:
        raise not_found("Branch not protected")
    return prot


@endpoint
def get_signatures(ctx: Ctx):
    repo = ctx.repo(write=True)
    return json_response(_signatures_json(ctx, repo, _protected(ctx, repo)))


@endpoint
def set_signatures(ctx: Ctx):
    """POST turns required signatures on, DELETE off (GitHub answers 200 and 204)."""
    repo = ctx.repo(need="admin")
    prot = _protected(ctx, repo)
    with ctx.state.lock:
        prot.required_signatures = ctx.request.method == "POST"
    if not prot.required_signatures:
        return Response(status_code=204)
    return json_response(_signatures_json(ctx, repo, prot))


def setup(state: ForgeState) -> None:
    state.branch_protection = branch_summary


def routes(state: ForgeState) -> list[Route]:
    path = "/repos/{owner}/{repo}/branches/{branch:refpath}/protection"
    return [
        Route(path, get_protection, methods=["GET"]),
        Route(path, put_protection, methods=["PUT"]),
        Route(path, delete_protection, methods=["DELETE"]),
        Route(f"{path}/required_signatures", get_signatures, methods=["GET"]),
        Route(f"{path}/required_signatures", set_signatures, methods=["POST", "DELETE"]),
    ]
