"""The pipeline's side of the cross-visibility guard: note what each call read, and gather
the facts a write's decision needs (the destination's visibility, the visibility of every
source the session read) for flow_guard.decide.

What a call read is what GitHub's answers to it named (the client notes it on the call:
github/provenance.py), with the visibility an answer stated; plus the repository its
arguments name, when allowed. A source read without a stated visibility is looked up
through the cached repository facts the gate's default-branch lookup already fills (an
allowed repository), or counts as private (anything else: nothing may be asked about it).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from github_mcp.github import provenance
from github_mcp.kernel.effects import Target
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.policy.flow_guard import Destination, FlowDecision, decide
from github_mcp.policy.read_ledger import merge
from github_mcp.services.shared.repo_facts import repo_visibility

if TYPE_CHECKING:
    from github_mcp.pipeline.spec import Call

LOOKUPS_AT_ONCE = 8


async def note_reads(call: Call) -> None:
    """After any call, read or write: remember for the caller's approval scope every
    source GitHub's answers named, and the allowed repository the arguments name, except
    those an answer stated public. With replicas, in Redis too; a failure there is
    logged and the local record stands."""
    if call.recording is not None:
        provenance.stop(call.recording)
        call.recording = None
    sources = call.reads.sources()
    if call.repo and call.rt.gate.repo_allowed(call.repo):
        merge(sources, {call.repo: None})
    # what an answer stated public can never make a write cross: not kept, so a long
    # listing of public repositories does not fill the record
    sources = {name: seen for name, seen in sources.items() if seen != "public"}
    if not sources:
        return
    call.rt.gate.reads.note(call.scope, sources)
    if call.rt.shared is not None:
        try:
            await call.rt.shared.reads.note(call.scope, sources)
        except GitHubMCPError:
            log_event("cross_visibility_record_unshared", call_id=call.call_id)


async def _read_by(call: Call) -> tuple[dict[str, str | None], bool]:
    """What the scope read, here and (with replicas) through any replica. When Redis
    cannot say, the record counts as overflowing: the guard fails closed."""
    read, overflow = call.rt.gate.reads.read_by(call.scope)
    if call.rt.shared is None:
        return read, overflow
    try:
        shared, shared_overflow = await call.rt.shared.reads.read_by(call.scope)
    except GitHubMCPError:
        return read, True
    merge(read, shared)
    return read, overflow or shared_overflow


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
    read = {name: seen for name, seen in read.items() if name.lower() != here}
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


async def _visibilities(call: Call, read: dict[str, str | None]) -> dict[str, str]:
    """Each source's visibility: as an answer stated it, else looked up (an allowed
    repository), else `unknown`, which counts as private."""
    limit = asyncio.Semaphore(LOOKUPS_AT_ONCE)

    async def one(name: str, stated: str | None) -> str:
        if stated is not None:
            return stated
        if ":" in name or not call.rt.gate.repo_allowed(name):
            return "unknown"
        async with limit:
            return await _visibility(call, name)

    found = await asyncio.gather(*(one(name, seen) for name, seen in read.items()))
    return dict(zip(read, found, strict=True))


async def _visibility(call: Call, repo: str) -> str:
    try:
        return await repo_visibility(call.rt.github, repo)
    except GitHubMCPError as exc:
        log_event("visibility_unknown", repo=repo, code=exc.code.value)
        return "unknown"
