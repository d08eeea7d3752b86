"""The shared read record (state/_reads.py) in a real Redis: a scope's sources land in one
command, the same sources read again within NOTE_AGAIN_S are not sent again, new sources
and other scopes are, and a breaker trip (Redis down or restarted, its data perhaps lost)
makes the next read note them again. Past MAX_REPOS names the set overflows."""

from __future__ import annotations

from github_mcp.policy.read_ledger import MAX_REPOS
from github_mcp.state._connection import SharedState
from github_mcp.state._reads import READS_TTL_S, SharedReads
from tests.replicas.cluster import Redis


async def test_repeated_reads_are_noted_once_until_the_breaker_trips(tmp_path):
    server = Redis(tmp_path / "redis")
    state = SharedState(server.url)
    try:
        reads = SharedReads(state)
        await reads.note("scope-a", {"Org/Private": "private", "org/lib": None})
        assert await reads.read_by("scope-a") == (
            {"org/private": "private", "org/lib": None},
            False,
        )
        assert 0 < await state.redis.ttl(reads._key("scope-a")) <= READS_TTL_S
        before = state.round_trips
        await reads.note("scope-a", {"org/private": "private", "org/lib": None})
        assert state.round_trips == before  # already in the set: nothing sent
        await reads.note("scope-a", {"org/other": None})
        await reads.note("scope-b", {"org/private": "private"})
        assert state.round_trips == before + 2  # a new source, another scope
        assert "org/other" in (await reads.read_by("scope-a"))[0]

        await state.redis.delete(reads._key("scope-a"))  # Redis lost its data...
        state.breaker.trip("a test's restart")  # ...which a replica sees as a trip
        state.breaker.close()
        await reads.note("scope-a", {"org/private": "private", "org/lib": None})
        assert (await reads.read_by("scope-a"))[0] == {"org/private": "private", "org/lib": None}

        await reads.note("scope-c", {f"o/r{i}": None for i in range(MAX_REPOS)})
        assert (await reads.read_by("scope-c"))[1] is False
        await reads.note("scope-c", {"o/one-more": None})
        assert (await reads.read_by("scope-c"))[1] is True  # overflow: the guard fails closed
    finally:
        state.breaker.stop()
        await state.redis.aclose()
        server.stop()
