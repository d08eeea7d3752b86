"""One approval request as data: what the store keeps and the page shows. Its own module
so the store (store.py) and the open-request book (requests.py) both build on it without
importing each other."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Literal

from github_mcp.approvals.summary import WriteSummary
from github_mcp.kernel.principal import ApprovalScope

Choice = Literal["approve", "approve_window", "deny"]
Status = Literal["pending", "approved", "approved_window", "denied", "declined", "expired"]
CHOICES: tuple[Choice, ...] = ("approve", "approve_window", "deny")


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
