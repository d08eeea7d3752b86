"""The pipeline's side of the cross-visibility guard: note what each call read, and gather
the facts a write's decision needs (the destination's visibility, the visibility of every
repository the session read) for flow_guard.decide. Visibility comes from the cached
repository facts the gate's default-branch lookup already fills."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from github_mcp.kernel.effects import Target
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.policy.flow_guard import Destination, FlowDecision, decide
from github_mcp.services.repos import repo_visibility

if TYPE_CHECKING:
    from github_mcp.pipeline.spec import Call

LOOKUPS_AT_ONCE = 8


async def note_reads(call: Call) -> None:
    """After any call, read or write, that named repositories: remember them for the
    caller's approval scope. Only allowed repositories (nothing else was read). With
    replicas, in Redis too; a failure there is logged and the local record stands."""
    gate = call.rt.gate
    repos = {*call.read_repos, *([call.repo] if call.repo else [])}
    allowed = {repo for repo in repos if isinstance(repo, str) and gate.repo_allowed(repo)}
    if not allowed:
        return
    gate.reads.note(call.scope, allowed)
    if call.rt.shared is not None:
        try:
            await call.rt.shared.reads.note(call.scope, allowed)
        except GitHubMCPError:
            log_event("cross_visibility_record_unshared", call_id=call.call_id)


async def _read_by(call: Call) -> tuple[tuple[str, ...], bool]:
    """What the scope read, here and (with replicas) through any replica. When Redis
    cannot say, the record counts as overflowing: the guard fails closed."""
    read, overflow = call.rt.gate.reads.read_by(call.scope)
    if call.rt.shared is None:
        return read, overflow
    try:
        shared, shared_overflow = await call.rt.shared.reads.read_by(call.scope)
    except GitHubMCPError:
        return read, True
    known = {repo.lower() for repo in read}
    merged = read + tuple(repo for repo in shared if repo not in known)
    return merged, overflow or shared_overflow


async def flow_decision(call: Call, target: Target) -> FlowDecision | None:
    """The guard's decision for this write, or None when it cannot apply (mode `allow`,
    or the session read nothing yet)."""
    mode = call.rt.settings.cross_visibility
    if mode == "allow":
        return None
    read, overflow = await _read_by(call)
    # reading and writing one repository never crosses: a one-repository session asks
    # GitHub nothing more
    here = (target.repo or call.repo or "").lower()
    read = tuple(repo for repo in read if repo.lower() != here)
    if not (read or overflow):
        return None
    destination = await _destination(call, target)
    if destination.visibility not in ("public", "unknown"):
        return decide(mode, destination, {})  # nothing to learn about the reads
    reads = await _visibilities(call, read)
    decision = decide(mode, destination, reads, overflow=overflow)
    log_event(
        "cross_visibility",
        call_id=call.call_id,
        action=decision.action,
        reason=decision.reason,
        repo=destination.repo,
        private_read=list(decision.private_read),
    )
    return decision


async def _destination(call: Call, target: Target) -> Destination:
    """A target that declares its own visibility (a gist) is taken at its word; a write
    to a repository has that repository's; a write with neither is unknown (public)."""
    if target.visibility is not None:
        return Destination(target.repo or call.repo, target.visibility)
    if not call.repo:
        return Destination(None, "unknown")
    return Destination(call.repo, await _visibility(call, call.repo))


async def _visibilities(call: Call, repos: tuple[str, ...]) -> dict[str, str]:
    limit = asyncio.Semaphore(LOOKUPS_AT_ONCE)

    async def one(repo: str) -> str:
        async with limit:
            return await _visibility(call, repo)

    found = await asyncio.gather(*(one(repo) for repo in repos))
    return dict(zip(repos, found, strict=True))


async def _visibility(call: Call, repo: str) -> str:
    try:
        return await repo_visibility(call.rt.github, repo)
    except GitHubMCPError as exc:
        log_event("visibility_unknown", repo=repo, code=exc.code.value)
        return "unknown"
