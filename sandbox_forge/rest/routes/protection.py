"""Branch protection: the REST endpoints and the summary branches report (the settings and
what they demand of a pull request are in rules/protection.py)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import json_response, not_found
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rules.protection import clear_protection, parse_protection, protection_for
from sandbox_forge.stores.collab import Protection, collab
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

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
