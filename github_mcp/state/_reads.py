"""The cross-visibility guard's read record shared by replicas: which repositories each
approval scope has read from, one Redis set per scope, so a private read through one
replica counts for a public write through another (stateless HTTP lands anywhere).

Kept READS_TTL_S after the scope's last read (a session's end is seen only by its own
replica, so the key expires rather than being deleted). At most MAX_REPOS names; past
that the set holds OVERFLOW, which the guard treats as a private read. Each replica also
keeps its own record (read_ledger.py), so a Redis outage never forgets a local read.
"""

from __future__ import annotations

from github_mcp.policy.read_ledger import MAX_REPOS, UNIDENTIFIED
from github_mcp.state._connection import SharedState, pending

READS_TTL_S = 12 * 3600
OVERFLOW = b"\x00overflow"


class SharedReads:
    def __init__(self, state: SharedState) -> None:
        self._state = state

    def _key(self, scope: str | None) -> str:
        return self._state.key("reads", scope or UNIDENTIFIED)

    async def note(self, scope: str | None, repos: set[str]) -> None:
        key = self._key(scope)
        async with self._state.op("reads_note") as r:
            pipe = r.pipeline(transaction=False)
            pipe.sadd(key, *sorted(repo.lower() for repo in repos))
            pipe.expire(key, READS_TTL_S)
            pipe.scard(key)
            _, _, count = await pending(pipe.execute())
            if int(count) > MAX_REPOS:
                await pending(r.sadd(key, OVERFLOW))

    async def read_by(self, scope: str | None) -> tuple[tuple[str, ...], bool]:
        async with self._state.op("reads_get") as r:
            members = await pending(r.smembers(self._key(scope)))
        names = sorted(m.decode() for m in members if m != OVERFLOW)
        return tuple(names), OVERFLOW in members
