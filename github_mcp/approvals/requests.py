"""Open approval requests: what the approval page shows and what a human's click decides.

A request belongs to one approval scope (the principal, plus its session). Its link is
unguessable (a random id and a random key), short-lived (GITHUB_MCP_APPROVAL_LINK_TTL_SECONDS)
and single-use: the first decision spends it. The key never reaches a log.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ErrorCode, GitHubMCPError
from ..observability import log_event
from ..principal import ApprovalScope
from .summary import WriteSummary, plain

if TYPE_CHECKING:
    from ..gate import WriteGate

Choice = Literal["approve", "approve_window", "deny"]
Status = Literal["pending", "approved", "approved_window", "denied", "declined", "expired"]
CHOICES: tuple[Choice, ...] = ("approve", "approve_window", "deny")
PAGE_PATH = "/approvals"


def fingerprint(
    tool: str, repo: str | None, branch: str | None, args: dict[str, Any], facts: Any = ()
) -> str:
    """What makes two calls the same write: tool, target, every argument and the remote
    facts the write was bound to (approvals/binding.py)."""
    parts = [tool, repo, branch, plain(args)] + ([plain(facts)] if facts else [])
    body = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()


@dataclass
class ApprovalRequest:
    id: str
    key: str  # the link's secret; emptied once spent
    csrf: str
    scope: ApprovalScope
    summary: WriteSummary | None  # None: the session's gated writes (authorize_write_actions)
    fingerprint: str | None  # the write's: its arguments and the remote facts it is bound to
    created_at: float
    expires_at: float
    window_minutes: int
    status: Status = "pending"
    decided_by: str | None = None
    call_fingerprint: str | None = None  # the arguments alone (to spot a state that moved)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def pending(self) -> bool:
        return self.status == "pending"


class RequestClosed(Exception):
    """The request was decided, declined or expired before this decision."""


class PendingApprovals:
    """Open requests in this process, bounded in number, forgotten once expired."""

    MAX_OPEN = 1000
    MAX_PER_SCOPE = 20

    def __init__(self, gate: WriteGate, clock: Callable[[], float] = time.monotonic) -> None:
        self._gate = gate
        self._clock = clock
        self._items: dict[str, ApprovalRequest] = {}
        # Set by the HTTP app: where the approval page is (None over stdio: no page).
        self.public_url: str | None = None
        # Signs the approval page's own browser session (OAuth mode); per process.
        self.cookie_key = secrets.token_bytes(32)

    @property
    def settings(self) -> Any:
        return self._gate.settings

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
        mine = [r for r in self._items.values() if r.scope == scope]
        for request in mine:
            if request.pending and request.fingerprint == write_fingerprint:
                return request
        if len(mine) >= self.MAX_PER_SCOPE or len(self._items) >= self.MAX_OPEN:
            raise GitHubMCPError(
                ErrorCode.RATE_LIMITED,
                "Too many approval requests are open; nothing new was asked.",
                hint="Let the human answer (or let the open links expire), then retry.",
            )
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
        self._items[request.id] = request
        log_event(
            "approval_requested",
            request=request.id,
            principal=scope.principal.key,
            tool=summary.tool if summary else None,
            repo=summary.repo if summary else None,
        )
        return request

    def link(self, request: ApprovalRequest, base_url: str) -> str:
        return f"{base_url.rstrip('/')}{PAGE_PATH}/{request.id}?key={request.key}"

    def find(self, request_id: str) -> ApprovalRequest | None:
        request = self._items.get(request_id)
        if request is not None and request.pending and self._clock() >= request.expires_at:
            self._close(request, "expired", None)
        return request

    @staticmethod
    def key_matches(request: ApprovalRequest, key: str) -> bool:
        return bool(request.key) and hmac.compare_digest(request.key.encode(), key.encode())

    def decide(self, request: ApprovalRequest, choice: Choice, decided_by: str) -> None:
        """Apply a human's decision: one write, the session's writes for N minutes, or
        nothing (deny). A request is decided once."""
        if self.find(request.id) is not request or not request.pending:
            raise RequestClosed(request.status)
        scope_key = request.scope.key
        if choice == "approve_window":
            self._gate.set_approval(scope_key, True, ttl_seconds=request.window_minutes * 60)
            status: Status = "approved_window"
        elif choice == "approve":
            if request.fingerprint is not None:
                ttl = max(1.0, request.expires_at - self._clock())
                self._gate.grant_once(scope_key, request.fingerprint, ttl)
            else:
                self._gate.set_approval(scope_key, True)
            status = "approved"
        else:
            status = "denied"
        self._close(request, status, decided_by)

    def decline(self, request: ApprovalRequest) -> None:
        """The client's user would not open the page: the request ends, nothing granted."""
        if request.pending:
            self._close(request, "declined", None)

    async def wait(self, request: ApprovalRequest, timeout_s: float) -> Status:
        """The request's outcome once decided, or `pending` when `timeout_s` ran out."""
        remaining = min(timeout_s, request.expires_at - self._clock())
        if request.pending and remaining > 0:
            try:
                async with asyncio.timeout(remaining):
                    await request.done.wait()
            except TimeoutError:
                pass
        self.find(request.id)
        return request.status

    def stale_approval(
        self, scope_key: str, call_fingerprint: str, write_fingerprint: str
    ) -> ApprovalRequest | None:
        """An approved, still unused request of this same call that was bound to other
        remote facts (the head moved after the human approved), or None."""
        for request in self._items.values():
            same_call = request.call_fingerprint == call_fingerprint
            if not (same_call and request.scope.key == scope_key and request.fingerprint):
                continue
            if request.status == "approved" and request.fingerprint != write_fingerprint:
                if self._gate.once_unused(scope_key, request.fingerprint):
                    return request
        return None

    def forget_scope(self, scope_key: str) -> None:
        """The scope's session ended: its links die with it."""
        for request in [r for r in self._items.values() if r.scope.key == scope_key]:
            if request.pending:
                self._close(request, "expired", None)
            self._items.pop(request.id, None)

    def __len__(self) -> int:
        self._sweep()
        return sum(1 for r in self._items.values() if r.pending)

    def _close(self, request: ApprovalRequest, status: Status, decided_by: str | None) -> None:
        request.status = status
        request.decided_by = decided_by
        request.key = ""  # single use: the link is spent
        request.done.set()
        log_event("approval_decided", request=request.id, status=status, decided_by=decided_by)

    def _sweep(self) -> None:
        """Forget requests closed or expired a link-lifetime ago (bounded memory)."""
        now = self._clock()
        for request in list(self._items.values()):
            self.find(request.id)
            if not request.pending and now >= request.expires_at:
                self._items.pop(request.id, None)
