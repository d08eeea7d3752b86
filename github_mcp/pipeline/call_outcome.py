"""What happens around a tool call's result: a write's after-effects (cached reads dropped,
a clean clone fast-forwarded), the answer on success and the error envelope on failure, and,
with replicas, a write's idempotency claim and the first call's result replayed to a retry.
registry.py's pipeline calls these; none of them decides whether a call may run."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from github_mcp.kernel.effects import ReportsRefresh, ReportsWrite, Written
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring import orphaned_writes
from github_mcp.monitoring.observability import log_event, redact
from github_mcp.pipeline.answer import ToolAnswer

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.spec import Call
    from github_mcp.pipeline.tool_spec import ToolSpec
    from github_mcp.state import WriteClaim


async def after_write(rt: Runtime, call: Call, result: BaseModel) -> Written | None:
    """The one place a write's effects happen, after it succeeded: the repository's cached
    reads go, and a clean workspace clone of the branch that moved is fast-forwarded. The
    write happened, so nothing here may turn the answer into a failure."""
    if isinstance(result, ReportsWrite):
        written = result.written(call.repo) if call.repo else None
    else:
        written = Written(call.repo) if call.repo else None
    if written is None:
        return None
    await rt.cache.bump_repo(written.repo)  # every replica's next read sees the write
    if written.branch is None:
        return written
    try:
        state = await rt.refresh_clone(written.repo, written.branch)
    except Exception as exc:  # a clone that cannot follow stays as it is
        state = "refresh_failed"
        log_event("clone_refresh_failed", repo=written.repo, detail=safe_detail(exc))
    if isinstance(result, ReportsRefresh):
        result.clone_refreshed(state)
    return written


def envelope_error(result: Any) -> dict[str, Any]:
    if isinstance(result, ToolAnswer) and result.is_error:
        error = result.structured.get("error")
        return error if isinstance(error, dict) else {"code": "internal"}
    return {}


async def claim_write(
    rt: Runtime, call: Call, spec: ToolSpec, kwargs: dict[str, Any]
) -> WriteClaim | None:
    """Replicas: the write's idempotency claim (or the first call's result to replay);
    `unavailable` when Redis cannot coordinate it."""
    assert rt.shared is not None
    client_key = call.peer.meta.get("idempotency_key")
    valid = isinstance(client_key, str) and 0 < len(client_key) <= 200
    if client_key is not None and not valid:
        raise GitHubMCPError(
            ErrorCode.INVALID_INPUT,
            "_meta.idempotency_key must be a string of 1-200 characters.",
            hint=("Give _meta.idempotency_key as a string of 1-200 characters, or leave it out."),
        )
    claim = await rt.shared.claim_write(call.principal.key, spec.name, kwargs, client_key)
    if claim is not None and claim.replay is None and claim.orphaned_since is not None:
        orphaned_writes.mark(claim.orphaned_since, time.time())
    return claim


def replayed(payload: dict[str, Any]) -> ToolAnswer:
    """The first call's result, for a retry of the same write (nothing written again)."""
    log_event("write_replayed", tool_result_size=len(payload))
    return ToolAnswer.of(payload, meta={"idempotent_replay": True})


async def keep_result(rt: Runtime, claim: WriteClaim, payload: dict[str, Any]) -> None:
    assert rt.shared is not None
    try:
        await rt.shared.writes.complete(claim, payload)
    except GitHubMCPError:  # the write happened: its answer stands
        log_event("write_result_not_kept")


def outcome_refs(payload: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key in (
        "commit_sha",
        "sha",
        "number",
        "url",
        "html_url",
        "thread_id",
        "resolved",
        "changed",
    ):
        if key in payload and isinstance(payload[key], str | int):
            found[key] = payload[key]
    # a retry that found the work done (already_merged, ...) did not do it itself
    found |= {k: True for k, v in payload.items() if k.startswith("already_") and v is True}
    return found


def as_tool_error(exc: BaseException, call_id: str) -> GitHubMCPError:
    if isinstance(exc, GitHubMCPError):
        return exc
    if isinstance(exc, TimeoutError):
        return GitHubMCPError(
            ErrorCode.TIMEOUT,
            "The operation timed out.",
            hint=("Retry; if it keeps timing out, ask for less (a smaller page, range or file)."),
        )
    return GitHubMCPError(
        ErrorCode.INTERNAL,
        "Internal error; details are in the server log under this call_id.",
        hint=f"call_id {call_id}",
    )


def safe_detail(exc: BaseException) -> str | None:
    """Exception text for the stderr log only, with secrets redacted."""
    return redact(str(exc))[:500] if str(exc) else None
