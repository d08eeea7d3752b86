"""Open approval requests: what the approval page shows and what a human's click decides.

A request belongs to one approval scope (the principal, plus its session). Its link is
unguessable (a random id and a random key), short-lived (GITHUB_MCP_APPROVAL_LINK_TTL_SECONDS)
and single-use: the first decision spends it. The key never reaches a log, nor a URL a
proxy logs: it travels in the link's fragment (see page.py). Where requests are kept is
the store's business (store.py: this process, or Redis shared by replicas).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from github_mcp.approvals.record import ApprovalRequest, Choice, Status
from github_mcp.approvals.store import Caps, MemoryRequestStore, RequestStore, admit
from github_mcp.approvals.summary import WriteSummary, plain
from github_mcp.kernel.principal import ApprovalScope
from github_mcp.monitoring.observability import log_event
from github_mcp.policy.gate import holds_window

if TYPE_CHECKING:
    from github_mcp.policy.write_gate import WriteGate

PAGE_PATH = "/approvals"


def fingerprint(
    tool: str, repo: str | None, branch: str | None, args: dict[str, Any], facts: Any = ()
) -> str:
    """What makes two calls the same write: tool, target, every argument and the remote
    facts the write was bound to (pipeline/approval_binding.py)."""
    parts = [tool, repo, branch, plain(args)] + ([plain(facts)] if facts else [])
    body = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()


class RequestClosed(Exception):
    """The request was decided, declined or expired before this decision."""


class PendingApprovals:
    """Open requests, in this process or (with replicas) in the shared store, bounded
    per session, per principal and in all (see store.py)."""

    POLL_S = 0.25  # a request decided on another replica is seen this soon

    def __init__(
        self,
        gate: WriteGate,
        clock: Callable[[], float] = time.monotonic,
        store: RequestStore | None = None,
    ) -> None:
        self._gate = gate
        self._clock = clock
        self.store: RequestStore = store or MemoryRequestStore(clock)
        self.caps = Caps()
        # Set by the HTTP app: where the approval page is (None over stdio: no page).
        self.public_url: str | None = None
        gate.listeners.append(self)  # a revoked grant drops its open requests too

    @property
    def settings(self) -> Any:
        return self._gate.settings

    @property
    def cookie_key(self) -> bytes:
        """Signs the approval page's own browser session (OAuth mode); every replica
        shares it, so the page may be served by any of them."""
        return self.store.secret("approval-cookie")

    def open(
        self,
        scope: ApprovalScope,
        summary: WriteSummary | None,
        write_fingerprint: str | None,
        call_fingerprint: str | None = None,
    ) -> ApprovalRequest:
        """A request for this write (or for the session's writes), reusing the open one
        when the same write is asked about again."""
        self._sweep()
        for request in self.store.live():
            if (
                request.scope == scope
                and request.pending
                and request.fingerprint == write_fingerprint
                and self._clock() < request.expires_at
            ):
                return request
        admit(self.store.counts(scope), self.caps)
        now = self._clock()
        request = ApprovalRequest(
            id=secrets.token_urlsafe(12),
            key=secrets.token_urlsafe(32),
            csrf=secrets.token_urlsafe(32),
            scope=scope,
            summary=summary,
            fingerprint=write_fingerprint,
            created_at=now,
            expires_at=now + self.settings.approval_link_ttl_seconds,
            window_minutes=self.settings.approval_window_minutes,
            call_fingerprint=call_fingerprint,
        )
        self.store.put(request)
        log_event(
            "approval_requested",
            request=request.id,
            principal=scope.principal.key,
            tool=summary.tool if summary else None,
            repo=summary.repo if summary else None,
        )
        return request

    def link(self, request: ApprovalRequest, base_url: str) -> str:
        """The page's address; its key is in the fragment, which a browser never sends,
        so no proxy or server log sees it (the page posts it)."""
        return f"{base_url.rstrip('/')}{PAGE_PATH}/{request.id}#key={request.key}"

    def find(self, request_id: str) -> ApprovalRequest | None:
        request = self.store.get(request_id)
        if request is not None and request.pending and self._clock() >= request.expires_at:
            self._close(request, "expired", None)
        return request

    @staticmethod
    def key_matches(request: ApprovalRequest, key: str) -> bool:
        return bool(request.key) and hmac.compare_digest(request.key.encode(), key.encode())

    def offers_window(self, request: ApprovalRequest) -> bool:
        """Only a session (or the stdio process) can hold an approval window."""
        return holds_window(request.scope.key)

    def decide(self, request: ApprovalRequest, choice: Choice, decided_by: str) -> None:
        """Apply a human's decision: one write, the session's writes for N minutes, or
        nothing (deny). A request is decided once, on whichever replica."""
        current = self.find(request.id)
        if current is None or not current.pending:
            raise RequestClosed(current.status if current else "expired")
        if choice == "approve_window" and not self.offers_window(current):
            raise RequestClosed("not_offered")
        status: Status = {"approve_window": "approved_window", "approve": "approved"}.get(
            choice, "denied"
        )  # type: ignore[assignment]
        if not self._close(current, status, decided_by):
            raise RequestClosed("decided")
        request.status, request.decided_by, request.key = status, decided_by, ""
        scope_key = current.scope.key
        if choice == "approve_window":
            self._gate.set_approval(scope_key, True, ttl_seconds=current.window_minutes * 60)
        elif choice == "approve" and current.fingerprint is not None:
            ttl = max(1.0, current.expires_at - self._clock())
            self._gate.grant_once(scope_key, current.fingerprint, ttl)
        elif choice == "approve":
            self._gate.set_approval(scope_key, True)

    def decline(self, request: ApprovalRequest) -> None:
        """The client's user would not open the page: the request ends, nothing granted."""
        if request.pending:
            self._close(request, "declined", None)

    async def wait(self, request: ApprovalRequest, timeout_s: float) -> Status:
        """The request's outcome once decided (here or on another replica), or
        `pending` when `timeout_s` ran out."""
        deadline = self._clock() + min(timeout_s, request.expires_at - self._clock())
        while True:
            current = self.find(request.id)
            status: Status = current.status if current is not None else "expired"
            remaining = deadline - self._clock()
            if status != "pending" or remaining <= 0:
                request.status = status
                return status
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(self.POLL_S, remaining)):
                    await request.done.wait()

    def stale_approval(
        self, scope_key: str, call_fingerprint: str, write_fingerprint: str
    ) -> ApprovalRequest | None:
        """An approved, still unused request of this same call that was bound to other
        remote facts (the head moved after the human approved), or None."""
        for request in self.store.live():
            same_call = request.call_fingerprint == call_fingerprint
            if not (same_call and request.scope.key == scope_key and request.fingerprint):
                continue
            if request.status == "approved" and request.fingerprint != write_fingerprint:
                if self._gate.once_unused(scope_key, request.fingerprint):
                    return request
        return None

    def forget_scope(self, scope_key: str) -> None:
        """The scope's session ended on this replica: its decided requests go. A pending
        one stays open (and on /status) until decided or expired: the human may already
        be on its page, and the session may carry on elsewhere; a decision for a scope no
        one holds any more grants nothing."""
        for request in [r for r in self.store.live() if r.scope.key == scope_key]:
            if not request.pending:
                self.store.drop(request)

    def forget_principal(self, principal_key: str) -> None:
        """The principal signed out or in again: all its links die."""
        self._forget(lambda r: r.scope.principal.key == principal_key)

    def _forget(self, which: Callable[[ApprovalRequest], bool]) -> None:
        for request in [r for r in self.store.live() if which(r)]:
            if request.pending:
                self._close(request, "expired", None)
            self.store.drop(request)

    def open_requests(self) -> list[ApprovalRequest]:
        """Pending, unexpired requests, oldest first (for the status page)."""
        self._sweep()
        return sorted((r for r in self.store.live() if r.pending), key=lambda r: r.created_at)

    def age_s(self, request: ApprovalRequest) -> float:
        return max(0.0, self._clock() - request.created_at)

    def __len__(self) -> int:
        return len(self.open_requests())

    def _close(self, request: ApprovalRequest, status: Status, decided_by: str | None) -> bool:
        if not self.store.settle(request, status, decided_by):
            return False
        request.done.set()
        log_event("approval_decided", request=request.id, status=status, decided_by=decided_by)
        return True

    def _sweep(self) -> None:
        """Forget requests closed or expired a link-lifetime ago (bounded memory)."""
        now = self._clock()
        for request in self.store.live():  # one read of them all, not one per request
            if request.pending and now >= request.expires_at:
                self._close(request, "expired", None)
                request.status = "expired"
            if not request.pending and now >= request.expires_at:
                self.store.drop(request)
