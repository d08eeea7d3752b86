"""Grants: the approvals a human gave, where they are kept, and what their keys say.

A grant is keyed by an approval scope key (`principal/session:…`, see kernel/principal.py),
or, for one write approved on its own, by that key plus the write's fingerprint.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


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


def owner_of(key: str) -> str:
    """The principal key a grant or scope key belongs to."""
    return key.split("/", 1)[0]


def once_key(scope: str, fingerprint: str) -> str:
    """The key of one write approved on its own: its scope and its fingerprint."""
    return f"{scope}/write:{fingerprint}"
