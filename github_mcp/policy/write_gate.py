"""The gate's state: the caller's approval windows and one-time grants, the per-PR write
locks, the read ledger, and the default-branch lookup. What a write may do is decided by
the pure rules in `gate`; the pipeline (pipeline/gatekeeper.py) fetches the facts they ask
for, from here among others.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from github_mcp.config import Settings
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import Metrics, log_event
from github_mcp.policy import gate
from github_mcp.policy.gate import Allow, Known, LookUpDefaultBranch, Refuse, holds_window
from github_mcp.policy.grants import (
    Approval,
    ApprovalStore,
    MemoryApprovalStore,
    once_key,
    owner_of,
)
from github_mcp.policy.keyed_locks import KeyedLocks
from github_mcp.policy.read_ledger import ReadLedger

DefaultBranchLookup = Callable[[str], Awaitable[str]]


class GrantListener(Protocol):
    """Told when a session's approval or a principal's grants end."""

    def forget_scope(self, scope: str) -> None: ...

    def forget_principal(self, principal_key: str) -> None: ...


class WriteGate:
    def __init__(
        self,
        settings: Settings,
        metrics: Metrics,
        default_branch_of: DefaultBranchLookup,
        approvals: ApprovalStore | None = None,
        clock: Callable[[], float] = time.monotonic,  # injected by tests of approval expiry
        requests: Any = None,  # the open approval requests' store (approvals.store)
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self._default_branch_of = default_branch_of
        self.clock = clock
        self.approvals: ApprovalStore = approvals or MemoryApprovalStore(clock)
        self.pr_locks = KeyedLocks()
        self.reads = ReadLedger()  # what each scope read: the cross-visibility guard
        self.requests_store = requests
        # who else holds per-scope state to drop with a grant (the open approval requests)
        self.listeners: list[GrantListener] = []

    # -- 1. allow-list ------------------------------------------------------
    def repo_allowed(self, full_name: str) -> bool:
        return gate.repo_allowed(self.settings, full_name)

    def check_repo_allowed(self, full_name: str) -> None:
        if not self.repo_allowed(full_name):
            self.metrics.record_gate("deny", "repo_not_allowed", {"repo": full_name})
            raise gate.not_allowed(full_name)

    # -- 2. effective ref and protected branches, with GitHub's default branch when the
    # rules ask for it
    def is_controller_repo(self, full_name: str) -> bool:
        return gate.is_controller_repo(self.settings, full_name)

    async def default_branch(self, full_name: str) -> str:
        found = gate.default_branch(self.settings, full_name, Known())
        if isinstance(found, LookUpDefaultBranch):
            return await self._default_branch_of(full_name)
        return found

    async def effective_ref(self, full_name: str, ref: str | None) -> str:
        found = gate.effective_ref(self.settings, full_name, ref, Known())
        if isinstance(found, LookUpDefaultBranch):
            known = Known(default_branch=await self._default_branch_of(found.repo))
            found = gate.effective_ref(self.settings, full_name, ref, known)
        assert isinstance(found, str)
        return found

    async def protection_reason(self, full_name: str | None, branch: str | None) -> str | None:
        reason = gate.protection(self.settings, full_name, branch, Known())
        if isinstance(reason, LookUpDefaultBranch):
            known = Known(default_branch=await self._default_branch_of(reason.repo))
            reason = gate.protection(self.settings, full_name, branch, known)
        assert not isinstance(reason, LookUpDefaultBranch)
        return reason

    async def look_up_default_branch(self, full_name: str) -> str:
        return await self._default_branch_of(full_name)

    # -- 3. approvals -------------------------------------------------------
    # A scope is an ApprovalScope key (see principal.py): the authenticated
    # principal, plus the session the server issued to it. None means nothing
    # identifies the caller, so only GITHUB_MCP_AUTO_APPROVE applies.
    def is_approved(self, scope: str | None) -> bool:
        if self.settings.approval_mode == "env" or scope is None:
            return self.settings.auto_approve
        approval = self.approvals.get(scope)
        if approval is None:
            return self.settings.auto_approve
        return approval.approved

    def active_approvals(self) -> int:
        """How many scopes hold an unexpired approval (for the status page)."""
        return self.approvals.count_approved()

    def approval_expires_in(self, scope: str | None) -> float | None:
        approval = self.approvals.get(scope) if scope else None
        if approval is None or approval.expires_at is None:
            return None
        return max(0.0, round(approval.expires_at - self.clock(), 1))

    def set_approval(
        self, scope: str, approved: bool, ttl_seconds: float | None = None
    ) -> Approval:
        """Approve (or revoke) a scope's gated writes for a window: `ttl_seconds` (an
        'approve for N minutes' choice) or GITHUB_MCP_APPROVAL_TTL_SECONDS; never
        unbounded. A window needs a session: a sessionless client is approved per call."""
        if approved:
            self.require_window(scope)
        ttl = ttl_seconds if ttl_seconds is not None else self.settings.approval_ttl_seconds
        approval = self.approvals.set(scope, approved, ttl if approved else None)
        log_event("write_approval_changed", scope=_short(scope), approved=approved, ttl_s=ttl)
        return approval

    @staticmethod
    def require_window(scope: str) -> None:
        if not holds_window(scope):
            raise GitHubMCPError(
                ErrorCode.WRITE_NOT_ALLOWED,
                "This client has no session, so no approval window can be bound to it; "
                "each gated write is approved on its own.",
                hint="Make the write: the human is asked about that one call. Or connect "
                "with a stateful HTTP session to be offered a window.",
            )

    # One write a human approved on its own: keyed on the scope and the write's
    # fingerprint (tool and arguments), taken by the first call that matches it.
    def grant_once(self, scope: str, fingerprint: str, ttl_seconds: float) -> None:
        self.approvals.set(once_key(scope, fingerprint), True, ttl_seconds)
        log_event("write_approved_once", scope=_short(scope), write=fingerprint[:12])

    def take_once(self, scope: str | None, fingerprint: str | None) -> bool:
        if scope is None or fingerprint is None:
            return False
        return self.approvals.take(once_key(scope, fingerprint))

    def once_unused(self, scope: str, fingerprint: str) -> bool:
        """A one-time approval of this write is there and not yet taken."""
        grant = self.approvals.get(once_key(scope, fingerprint))
        return grant is not None and grant.approved

    def drop_approval(self, scope: str) -> None:
        """Forget a scope's approval (its session ended)."""
        if self.approvals.get(scope) is not None:
            log_event("write_approval_dropped", scope=_short(scope))
        self.approvals.drop(scope)
        for listener in self.listeners:
            listener.forget_scope(scope)
        self.reads.drop(scope)

    def grants(self) -> list[tuple[str, float | None]]:
        """Open grants (windows and approved-once writes) with their seconds left."""
        return sorted(self.approvals.grants())

    def revoke_grant(self, key: str) -> None:
        self.approvals.drop(key)
        log_event("write_grant_revoked", scope=_short(key))

    def revoke_principal(self, principal_key: str) -> int:
        """End every grant and open approval request of one principal (it signed out
        or signed in again). Returns how many grants ended."""
        mine = [k for k, _ in self.approvals.grants() if owner_of(k) == principal_key]
        for key in mine:
            self.approvals.drop(key)
        for listener in self.listeners:
            listener.forget_principal(principal_key)
        log_event("write_grants_revoked", principal=principal_key, grants=len(mine))
        return len(mine)

    def record(self, decision: Allow | Refuse, detail: dict[str, Any]) -> None:
        """Count and log the gate's final word on one write."""
        if isinstance(decision, Allow):
            self.metrics.record_gate("allow", decision.why)
            reason = decision.logged or decision.why
            log_event("gate_decision", decision="allow", reason=reason, **detail)
        else:
            self.metrics.record_gate("deny", decision.reason, detail)
            log_event("gate_decision", decision="deny", reason=decision.reason, **detail)


def _short(scope: str) -> str:
    return scope if len(scope) <= 24 else scope[:24] + "…"
