"""The cross-visibility guard's read record shared by replicas: which sources each
approval scope has read from, one Redis set per scope, so a private read through one
replica counts for a public write through another (stateless HTTP lands anywhere). A
member is the lower-cased name, followed by `|` and the visibility when an answer
stated it (`|` is in no repository, project or gist name).

Kept READS_TTL_S after the scope's last read (a session's end is seen only by its own
replica, so the key expires rather than being deleted; the same sources read again
are sent at most once a NOTE_AGAIN_S per replica, so the key may go that much
sooner). At most MAX_REPOS names; past that the set holds OVERFLOW, which the guard
treats as a private read. Each replica also keeps its own record (read_ledger.py), so
a Redis outage never forgets a local read.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from github_mcp.policy.read_ledger import MAX_REPOS, UNIDENTIFIED, merge
from github_mcp.state._connection import SharedState, pending

READS_TTL_S = 12 * 3600
OVERFLOW = b"\x00overflow"
# One command per noted call (the set, its expiry and the overflow mark): a pipeline of
# three cost the replica three commands' packing and parsing on every read.
_NOTE = """
redis.call('SADD', KEYS[1], unpack(ARGV, 4))
redis.call('EXPIRE', KEYS[1], ARGV[1])
if redis.call('SCARD', KEYS[1]) > tonumber(ARGV[2]) then
  redis.call('SADD', KEYS[1], ARGV[3])
end
"""


# A scope noting the same sources again within this long (far inside READS_TTL_S) is not
# sent again: the set holds them already. An agent re-reading its files noted them in
# Redis on every call. Any trip of the breaker (Redis down or restarted) forgets this.
NOTE_AGAIN_S = 60.0
_NOTED_MAX = 10_000


class SharedReads:
    def __init__(self, state: SharedState) -> None:
        self._state = state
        # (scope, members) -> (when noted, the breaker's trips then)
        self._noted: dict[tuple[str, tuple[str, ...]], tuple[float, int]] = {}

    def _fresh(self, key: tuple[str, tuple[str, ...]]) -> bool:
        noted = self._noted.get(key)
        breaker = self._state.breaker
        return (
            noted is not None
            and noted[1] == breaker.trips
            and not breaker.is_open
            and time.monotonic() - noted[0] < NOTE_AGAIN_S
        )

    def _key(self, scope: str | None) -> str:
        return self._state.key("reads", scope or UNIDENTIFIED)

    async def note(self, scope: str | None, sources: Mapping[str, str | None]) -> None:
        key = self._key(scope)
        members = sorted(
            name.lower() + (f"|{seen}" if seen else "") for name, seen in sources.items()
        )
        memo = (key, tuple(members))
        if self._fresh(memo):
            return
        trips = self._state.breaker.trips
        async with self._state.op("reads_note") as r:
            await pending(r.eval(_NOTE, 1, key, READS_TTL_S, MAX_REPOS, OVERFLOW, *members))
        if len(self._noted) >= _NOTED_MAX:
            self._noted.clear()
        self._noted[memo] = (time.monotonic(), trips)

    async def read_by(self, scope: str | None) -> tuple[dict[str, str | None], bool]:
        async with self._state.op("reads_get") as r:
            members = await pending(r.smembers(self._key(scope)))
        found: dict[str, str | None] = {}
        for member in sorted(m.decode() for m in members if m != OVERFLOW):
            name, _, seen = member.partition("|")
            merge(found, {name: seen or None})
        return found, OVERFLOW in members
