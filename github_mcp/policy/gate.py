"""Write policy: allow-list, effective ref, protected branches, approvals.

Only this module and the registry decide whether a write may happen. The grants it
consults live in `grants`, and what it says when a write needs a human in `refusals`.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from github_mcp.config import Settings
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import Metrics, log_event
from github_mcp.policy.flow_guard import FlowDecision
from github_mcp.policy.grants import (
    Approval,
    ApprovalStore,
    MemoryApprovalStore,
    once_key,
    owner_of,
)
from github_mcp.policy.keyed_locks import KeyedLocks
from github_mcp.policy.read_ledger import ReadLedger
from github_mcp.policy.refusals import (
    cross_visibility_refusal,
    flow_details,
    needs_approval,
    reason_shown,
)

DefaultBranchLookup = Callable[[str], Awaitable[str]]
# Asks a human about one gated write (auto mode); True when they approved it, else it
# raises the refusal to report. Given the gate's reason for asking.
HumanApproval = Callable[[str], Awaitable[bool]]


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
        allow = self.settings.allowlist
        if not allow:
            return True
        name = full_name.lower()
        owner = name.split("/", 1)[0]
        return name in allow or f"{owner}/*" in allow

    def check_repo_allowed(self, full_name: str) -> None:
        if not self.repo_allowed(full_name):
            self.metrics.record_gate("deny", "repo_not_allowed", {"repo": full_name})
            raise GitHubMCPError(
                ErrorCode.REPO_NOT_ALLOWED,
                f"Repository {full_name} is not in this server's allow-list.",
                hint="Ask the operator to add it to GITHUB_MCP_REPO_ALLOWLIST.",
            )

    # -- 2. effective ref ---------------------------------------------------
    def is_controller_repo(self, full_name: str) -> bool:
        repo = self.settings.controller_repo
        return bool(repo and full_name.lower() == repo.lower())

    async def default_branch(self, full_name: str) -> str:
        override = self.settings.repo_default_overrides.get(full_name.lower())
        if override:
            return override
        return await self._default_branch_of(full_name)

    async def effective_ref(self, full_name: str, ref: str | None) -> str:
        if self.is_controller_repo(full_name) and (not ref or ref == "main"):
            return self.settings.controller_branch
        if ref:
            return ref
        return await self.default_branch(full_name)

    # -- 3. protected branches ------------------------------------------------
    async def protection_reason(self, full_name: str | None, branch: str | None) -> str | None:
        if branch is None or full_name is None:
            return "unscoped_write"
        if self.is_controller_repo(full_name) and branch == self.settings.controller_branch:
            return "controller_branch"
        if branch == await self.default_branch(full_name):
            return "default_branch"
        for glob in self.settings.protected_globs:
            if fnmatch.fnmatchcase(branch, glob):
                return "protected_glob"
        return None

    # -- 4. approvals -------------------------------------------------------
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

    async def authorize(
        self,
        *,
        tool: str,
        full_name: str | None,
        branch: str | None,
        scope: str | None,
        call_id: str,
        fingerprint: str | None = None,
        ask: HumanApproval | None = None,
        flow: FlowDecision | None = None,
        approve_each: bool = False,
    ) -> None:
        """Raise write_not_allowed unless this write may proceed. A gated write passes
        with its scope's approval, with a one-time approval of this very write
        (`fingerprint`), or when `ask` (auto mode) gets a human's approval. `flow` is the
        cross-visibility guard's decision: `ask` gates even a feature-branch write.
        `approve_each`: no approval window covers this write, only the operator's
        GITHUB_MCP_AUTO_APPROVE or an approval of this very call."""
        reason = await self.protection_reason(full_name, branch)
        detail: dict[str, Any] = {"tool": tool, "repo": full_name, "ref": branch}
        detail["call_id"] = call_id
        if flow is not None and flow.action != "allow":
            reason = self._cross_visibility(flow, reason, detail)
        if reason is None:
            self._allow("feature_branch", detail)
            return
        if self._granted(scope, fingerprint, approve_each, reason, detail):
            return
        if ask is not None and await self._human_approves(ask, reason, flow, detail):
            return
        self._deny(reason, detail)
        raise needs_approval(
            tool=tool, full_name=full_name, branch=branch, reason=reason, flow=flow,
            approve_each=approve_each, approval_mode=self.settings.approval_mode,
        )  # fmt: skip

    def _granted(
        self,
        scope: str | None,
        fingerprint: str | None,
        approve_each: bool,
        reason: str,
        detail: dict[str, Any],
    ) -> bool:
        """The scope's approval window (unless each call needs its own approval), or a
        one-time approval of this very write."""
        if self.is_approved(scope) and (not approve_each or self.settings.auto_approve):
            self._allow(f"approved_{reason}", detail)
            return True
        if self.take_once(scope, fingerprint):
            self._allow(f"approved_once_{reason}", detail)
            return True
        return False

    async def _human_approves(
        self,
        ask: HumanApproval,
        reason: str,
        flow: FlowDecision | None,
        detail: dict[str, Any],
    ) -> bool:
        try:
            approved = await ask(reason_shown(reason, flow))
        except GitHubMCPError as refused:
            # refused while asking (no channel, declined, timed out): still a denial
            self._deny(reason, detail)
            refused.details.update(flow_details(flow))
            raise
        if approved:
            self._allow(f"human_approved_{reason}", detail, logged=f"human_{reason}")
        return bool(approved)

    def _allow(self, why: str, detail: dict[str, Any], logged: str | None = None) -> None:
        self.metrics.record_gate("allow", why)
        log_event("gate_decision", decision="allow", reason=logged or why, **detail)

    def _deny(self, reason: str, detail: dict[str, Any]) -> None:
        self.metrics.record_gate("deny", reason, detail)
        log_event("gate_decision", decision="deny", reason=reason, **detail)

    def _cross_visibility(
        self, flow: FlowDecision, reason: str | None, detail: dict[str, Any]
    ) -> str:
        """A write the guard refuses (`deny`) raises here; one it asks about is gated, as
        `cross_visibility` when nothing else gates it."""
        if flow.action == "deny":
            self._deny("cross_visibility", detail)
            raise cross_visibility_refusal(flow)
        return reason or "cross_visibility"


def holds_window(scope_key: str) -> bool:
    """Whether a scope may hold an approval window: a server-issued session, or the
    stdio process (one client). A principal alone is every client it has."""
    return "/session:" in scope_key or scope_key.startswith("process:")


def _short(scope: str) -> str:
    return scope if len(scope) <= 24 else scope[:24] + "…"
