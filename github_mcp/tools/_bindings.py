"""Binders shared by write tools in several modules: what a gated write's approval is
bound to (pipeline/approval_binding.py reads it before the gate decides, the page shows
it, and the handler enforces it), and the helpers handlers enforce it with."""

from __future__ import annotations

from typing import Any

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.pipeline.registry import Call
from github_mcp.services.shared import approved_records, approved_state
from github_mcp.services.shared.approved_state import RemoteState


async def branch_at(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """The branch's head commit: the commit is made on exactly that head (the diffs shown
    are read against it)."""
    return await approved_state.branch_state(call.rt.github, kwargs["full_name"], kwargs["branch"])


def bound_head(call: Call, expected: str | None) -> str | None:
    """The head a commit is made on: the approved head of a gated call (a caller's own
    expected head must agree with it), else the caller's."""
    approved = call.bound.get("head_sha") if call.bound is not None else None
    if approved == "absent":
        approved = None  # the branch is made by this write: nothing to hold it to
    if expected and approved and expected != approved:
        raise GitHubMCPError(
            ErrorCode.CONFLICT,
            f"expected head {expected[:12]} is not the head {approved[:12]} this call is "
            "bound to; nothing was written.",
            hint="Re-read the branch (list_branches) and pass its current head.",
        )
    return expected or approved


async def from_ref_commit(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """The commit the new branch will point at (from_ref resolved now)."""
    ref = kwargs["from_ref"]
    commit = await approved_records.commit_of(call.rt.github, kwargs["full_name"], ref)
    return RemoteState((("from_ref", ref), ("from_sha", commit)))


async def head_commits(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """The head branch's commit and the commits it brings since the base (what the pull
    request proposes)."""
    return await approved_state.branch_state(
        call.rt.github, kwargs["full_name"], kwargs["head"], since=kwargs["base"]
    )


async def release_as_published(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """The release's notes and name in full, its tag and the commit the tag names or will
    be made at."""
    return await approved_records.release_state(
        call.rt.github, kwargs["full_name"], kwargs["release_id"]
    )


async def gist_files(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """The gist's files and description as they are (what stays published beside the
    change), and whether it is public."""
    return await approved_records.gist_state(call.rt.github, kwargs["gist_id"])


async def issue_text(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """The issue's title, body and state, which the assigned agent works from."""
    return await approved_records.issue_text_state(
        call.rt.github, kwargs["full_name"], kwargs["number"]
    )


async def issue_field_values(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """The issue's field values as they are (a replace drops those not given)."""
    return await approved_records.issue_fields_state(
        call.rt.github, kwargs["full_name"], kwargs["number"]
    )


async def project_item_field(call: Call, kwargs: dict[str, Any]) -> RemoteState:
    """The project (and whether it is public), the item's issue or pull request, the
    field's name and its value now: the page names them where the call gives ids."""
    return await approved_records.project_item_state(
        call.rt.github, kwargs["item_id"], kwargs["field_id"]
    )


async def still_as_approved(call: Call, binder: Any, kwargs: dict[str, Any]) -> None:
    """Just before a write whose endpoint has no precondition: read the bound state again
    and refuse (`conflict`, nothing written) if it is not what was approved."""
    if call.bound is None:
        return
    now = await binder(call, kwargs)
    await approved_records.require_same(call.rt.github, call.repo, call.bound, now)
