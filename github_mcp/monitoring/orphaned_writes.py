"""Whether the write call in progress took over an orphaned idempotency claim: a retry
whose first attempt, on a replica that died, may have reached GitHub (see
state/_idempotency.py). Writes that are not idempotent by themselves (posting a comment)
ask `began()` and look for the first attempt's work before acting."""

from __future__ import annotations

import contextvars

from github_mcp.monitoring.observability import CURRENT_CALL_ID

_ORPHANED: contextvars.ContextVar[tuple[str, float] | None] = contextvars.ContextVar(
    "github_mcp_orphaned_write", default=None
)
UNKNOWN_START_LOOKBACK_S = 600.0


def mark(began: float | None, now: float) -> None:
    """The current call retries an orphaned attempt that began at `began` (if known)."""
    start = began if began is not None else now - UNKNOWN_START_LOOKBACK_S
    _ORPHANED.set((CURRENT_CALL_ID.get() or "", start))


def began() -> float | None:
    """When the orphaned first attempt of the current call began, or None."""
    found = _ORPHANED.get()
    if found is None or found[0] != (CURRENT_CALL_ID.get() or ""):
        return None
    return found[1]
