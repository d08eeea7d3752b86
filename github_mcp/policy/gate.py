"""Write policy: allow-list, effective ref, protected branches, approvals.

Only this module and the registry decide whether a write may happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from github_mcp.config import Settings
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import Metrics, log_event
from github_mcp.policy.flow_guard import FlowDecision
from github_mcp.policy.read_ledger import ReadLedger

DefaultBranchLookup = Callable[[str], Awaitable[str]]
# Asks a human about one gated write (auto mode); True when they approved it, else it
# raises the refusal to report. Given the gate's reason for asking.
HumanApproval = Callable[[str], Awaitable[bool]]


@dataclass
class Approval:
    approved: bool
    expires_at: float | None  # time.monotonic() deadline; None lasts until dropped


class ApprovalStore(Protocol):
    """Where approvals (grants) live, keyed by an approval scope key. The in-process
    store below is the default; a shared store (Redis) implements the same calls."""

    def get(self, key: str) -> Approval | None: ...

    def set(self, key: str, approved: bool, ttl_seconds: float | None) -> Approval: ...

    def drop(self, key: str) -> None: ...

    def take(self, key: str) -> bool: ...

    def grants(self) -> list[tuple[str, float | None]]: ...

    def count_approved(self) -> int: ...


class MemoryApprovalStore:
    """Approvals in a dict; an expired entry is dropped when next read or counted."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._items: dict[str, Approval] = {}

    def get(self, key: str) -> Approval | None:
        approval = self._items.get(key)
        if approval is not None and self._expired(approval):
            self._items.pop(key, None)
            return None
        return approval

    def set(self, key: str, approved: bool, ttl_seconds: float | None) -> Approval:
        expires = self._clock() + ttl_seconds if (approved and ttl_seconds) else None
        approval = Approval(approved=approved, expires_at=expires)
        self._items[key] = approval
        return approval

    def drop(self, key: str) -> None:
        self._items.pop(key, None)

    def take(self, key: str) -> bool:
        """Spend a one-time grant: True for the one caller that finds it approved."""
        approval = self.get(key)
        self._items.pop(key, None)
        return approval is not None and approval.approved

    def grants(self) -> list[tuple[str, float | None]]:
        """Each live approved key with its seconds left (None: no expiry)."""
        self.count_approved()
        now = self._clock()
        return [
            (key, None if a.expires_at is None else a.expires_at - now)
            for key, a in self._items.items()
            if a.approved
        ]

    def count_approved(self) -> int:
        for key, approval in list(self._items.items()):
            if self._expired(approval):
                self._items.pop(key, None)
        return sum(1 for a in self._items.values() if a.approved)

    def _expired(self, approval: Approval) -> bool:
        return approval.expires_at is not None and self._clock() >= approval.expires_at


class KeyedLocks:
    """One asyncio lock per key, forgotten when nobody holds or awaits it. Writes on
    the same pull request take one, so a retarget cannot land between the gate
    reading a PR's base and the merge into it."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                self._locks.pop(key, None)

    def __len__(self) -> int:
        return len(self._locks)


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
        self.approvals.set(_once_key(scope, fingerprint), True, ttl_seconds)
        log_event("write_approved_once", scope=_short(scope), write=fingerprint[:12])

    def take_once(self, scope: str | None, fingerprint: str | None) -> bool:
        if scope is None or fingerprint is None:
            return False
        return self.approvals.take(_once_key(scope, fingerprint))

    def once_unused(self, scope: str, fingerprint: str) -> bool:
        """A one-time approval of this write is there and not yet taken."""
        grant = self.approvals.get(_once_key(scope, fingerprint))
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
        raise self._refusal(tool, full_name, branch, reason, flow, approve_each)

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
            approved = await ask(_why(reason, flow))
        except GitHubMCPError as refused:
            # refused while asking (no channel, declined, timed out): still a denial
            self._deny(reason, detail)
            refused.details.update(_flow_details(flow))
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

    def _refusal(
        self,
        tool: str,
        full_name: str | None,
        branch: str | None,
        reason: str,
        flow: FlowDecision | None,
        approve_each: bool,
    ) -> GitHubMCPError:
        where = {
            "unscoped_write": "This write is not scoped to a branch",
            "default_branch": f"{branch} is the default branch of {full_name}",
            "controller_branch": f"{branch} is the controller branch",
            "protected_glob": f"{branch} matches a protected-branch pattern",
            "cross_visibility": "This write publishes to a public place",
        }[reason]
        return GitHubMCPError(
            ErrorCode.WRITE_NOT_ALLOWED,
            f"{where}; it needs approval.",
            hint=EACH_CALL_HINT.format(tool=tool) if approve_each else self.approval_hint(reason),
            reason=reason,
            **_flow_details(flow),
        )

    def _cross_visibility(
        self, flow: FlowDecision, reason: str | None, detail: dict[str, Any]
    ) -> str:
        """A write the guard refuses (`deny`) raises here; one it asks about is gated, as
        `cross_visibility` when nothing else gates it."""
        if flow.action == "deny":
            self.metrics.record_gate("deny", "cross_visibility", detail)
            log_event("gate_decision", decision="deny", reason="cross_visibility", **detail)
            raise GitHubMCPError(
                ErrorCode.WRITE_NOT_ALLOWED,
                f"Refused: {flow.explain()}.",
                hint="GITHUB_MCP_CROSS_VISIBILITY=deny: a session that read a private "
                "repository cannot publish to a public one. Start a new session for the "
                "public work, or ask the operator.",
                reason="cross_visibility",
                **_flow_details(flow),
            )
        return reason or "cross_visibility"

    def approval_hint(self, reason: str) -> str:
        branch_hint = (
            "Write to a feature branch (create_branch) and open a pull request, or "
            if reason not in ("unscoped_write", "cross_visibility")
            else ""
        )
        mode = self.settings.approval_mode
        if mode == "env":
            how = "an operator must set GITHUB_MCP_AUTO_APPROVE=true."
        elif mode == "auto":
            how = (
                "ask the human to approve: call authorize_write_actions(approved=true), "
                "which asks them (or which your client confirms with them)."
            )
        elif mode == "elicit":
            how = "call authorize_write_actions(approved=true) so the human is asked."
        else:
            how = "ask the human to approve, then call authorize_write_actions(approved=true)."
        return branch_hint + how


EACH_CALL_HINT = (
    "Each {tool} call is approved on its own: the human is asked about this very call "
    "(the approval page, or the client's form); an approval window does not cover it."
)


def _why(reason: str, flow: FlowDecision | None) -> str:
    """The reason the human is shown: the guard's, naming the private repositories read,
    when it asks (with the branch's own reason, if any)."""
    if flow is None or flow.action != "ask":
        return reason
    also = "" if reason == "cross_visibility" else f"; also {reason}"
    return f"cross_visibility: {flow.explain()}{also}"


def _flow_details(flow: FlowDecision | None) -> dict[str, Any]:
    if flow is None or flow.action == "allow":
        return {}
    return {"private_repos_read": list(flow.private_read)}


def holds_window(scope_key: str) -> bool:
    """Whether a scope may hold an approval window: a server-issued session, or the
    stdio process (one client). A principal alone is every client it has."""
    return "/session:" in scope_key or scope_key.startswith("process:")


def owner_of(key: str) -> str:
    """The principal key a grant or scope key belongs to."""
    return key.split("/", 1)[0]


def _once_key(scope: str, fingerprint: str) -> str:
    return f"{scope}/write:{fingerprint}"


def _short(scope: str) -> str:
    return scope if len(scope) <= 24 else scope[:24] + "…"
