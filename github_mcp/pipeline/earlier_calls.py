"""Finding this principal's earlier call that already did what a retry asks for.

A client whose answer was lost retries. When the retry finds the work done (the pull
request merged, closed, the branch gone), the truthful answer says so, and says whether
it was this principal's own earlier call, by the audit record: this process's latest
entries, and with replicas the shared audit stream (so an earlier call on another replica
counts too). No record found means no earlier successful call of this principal that the
server remembers; someone or something else did it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from github_mcp.kernel.principal import Principal
    from github_mcp.pipeline.runtime import Runtime

SHARED_ENTRIES = 500  # how far back the shared stream is searched


async def earlier_call(
    rt: Runtime, principal: Principal, tool: str, repo: str, **recorded: Any
) -> dict[str, Any] | None:
    """The audit entry (call_id, result) of this principal's latest successful `tool`
    call on `repo` that has every `recorded` field, or None."""

    def matches(entry: dict[str, Any]) -> bool:
        return (
            entry.get("principal") == principal.name
            and entry.get("tool") == tool
            and str(entry.get("repo") or "").lower() == repo.lower()
            and entry.get("outcome") == "ok"
            and not any(key.startswith("already_") for key in entry)
            and all(entry.get(key) == value for key, value in recorded.items())
        )

    for entry in list(rt.audit.recent)[::-1]:  # a copy: other calls append meanwhile
        if matches(entry):
            return entry
    if rt.shared is not None:
        for entry in await rt.shared.audit.latest(SHARED_ENTRIES):
            if matches(entry):
                return entry
    return None
