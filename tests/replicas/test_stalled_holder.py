"""A replica that stalls past its write's lease and then resumes sends nothing once a retry
has taken the write over (the claim is a fence, checked before every request that changes
something on GitHub).

Replica A starts a commit; its first read of the branch after claiming the write is held
at the forge, and A is frozen (SIGSTOP) until its lease has run out in Redis. The client's
retry with the same idempotency key on replica B takes the claim over and commits. Then
A's read is let go and A resumes: it must answer `unavailable` without one more changing
request reaching the forge (without the fence it goes on to POST blobs and a tree).
Evidence: the forge's request log and the branch's history. Real processes: redis-server
and two `main.py serve` replicas."""

from __future__ import annotations

import asyncio
import signal
import uuid
from typing import Any

import pytest
import redis

from tests.replicas.cluster import client
from tests.test_tools_write import git, head

CHANGES = ("POST", "PUT", "PATCH", "DELETE")


async def _call(url: str, args: dict[str, Any], key: str) -> tuple[bool, Any]:
    async with client(url) as c:
        result = await c.call_tool(
            "commit_files", args, raise_on_error=False, meta={"idempotency_key": key}
        )
        return result.is_error, result.structured_content


async def _held_write(
    held_pair: Any, forge: Any, name: str, held: tuple[str, str] = ("GET", r"/branches/work$")
) -> tuple[Any, ...]:
    """A commit started on replica A with an idempotency key, its request `held` (by
    default its first read of the branch: A has claimed the write and waits) held at the
    forge: (repo, the branch's head, the arguments, the key, Redis, the held rule, A's
    call)."""
    repo = f"octo-org/{name}-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"README.md": "x\n"}, branches={"work": {}})
    start = head(forge, repo, "work")
    args = {
        "full_name": repo,
        "branch": "work",
        "message": "once " + uuid.uuid4().hex,
        "files": [{"path": "once.txt", "content": "once\n"}],
    }
    key = f"{name}-{uuid.uuid4().hex}"
    store = redis.Redis.from_url(held_pair.redis.url)
    rule = forge.add_fault(method=held[0], path=held[1], hold=True, times=1)
    first = asyncio.create_task(_call(held_pair.replicas[0].url, args, key))
    while not [e for e in forge.requests() if e.get("fault") == rule]:
        await asyncio.sleep(0.02)
    return repo, start, args, key, store, rule, first


def _changes(forge, repo: str) -> list[str]:
    return [
        f"{e.get('method')} {e.get('path')}"
        for e in forge.requests()
        if e.get("method") in CHANGES and repo in str(e.get("path"))
    ]


@pytest.mark.timeout(240)
async def test_a_holder_that_stalled_past_its_lease_writes_nothing_after_the_takeover(
    held_pair, forge, forge_token
):
    held = await _held_write(held_pair, forge, "stall")
    repo, start, args, key, store, rule, first = held
    a, b = held_pair.replicas
    leases = [k for k in store.scan_iter("ghmcp:idem:*:lease")]
    assert len(leases) == 1  # A holds the write's claim, and waits on its read
    a.proc.send_signal(signal.SIGSTOP)
    while store.exists(leases[0]):  # A renews no more: its lease runs out
        await asyncio.sleep(0.1)

    is_error, taken_over = await _call(b.url, args, key)
    assert not is_error, taken_over
    assert head(forge, repo, "work") == taken_over["commit_sha"]
    sent_before = _changes(forge, repo)

    forge.release_fault(rule)
    a.proc.send_signal(signal.SIGCONT)
    is_error, stalled = await first
    assert is_error and stalled["error"]["code"] == "unavailable", stalled
    assert "took the write over" in stalled["error"]["message"]
    assert _changes(forge, repo) == sent_before  # A sent nothing once it resumed
    assert git(forge, repo, "rev-list", f"{start}..work").split() == [taken_over["commit_sha"]]
    assert '"event": "write_claim_lost"' in a.log.read_text(errors="replace")


@pytest.mark.timeout(240)
async def test_a_holder_killed_before_its_write_left_is_finished_once_by_the_retry(
    held_pair, forge, forge_token
):
    """The other half of a replica dying mid-call (test_replica_death.py has the writes
    that reached GitHub first): killed before its write left, the retry with the same key
    on another replica takes the claim over once the dead holder's heartbeat has stopped
    (its lease is made to last here: only the heartbeat can free it) and writes exactly
    once, answering with the write's result."""
    held = await _held_write(held_pair, forge, "killed")
    repo, start, args, key, store, rule, first = held
    a, b = held_pair.replicas
    a.kill()
    leases = [k for k in store.scan_iter("ghmcp:idem:*:lease")]
    assert len(leases) == 1 and store.persist(leases[0])  # never runs out by itself
    forge.release_fault(rule)
    await asyncio.gather(first, return_exceptions=True)  # A's client sees A die
    assert _changes(forge, repo) == []  # nothing of A's write left

    is_error, retried = await _call(b.url, args, key)
    assert not is_error, retried
    assert store.exists(leases[0]) == 0  # B's claim replaced the dead holder's
    taken = [line for line in b.log.read_text().splitlines() if "write_claim_orphaned" in line]
    assert len(taken) == 1 and '"holder": "' in taken[0], taken
    assert git(forge, repo, "rev-list", f"{start}..work").split() == [retried["commit_sha"]]
    is_error, again = await _call(b.url, args, key)  # and once more: the first result
    assert not is_error and again["commit_sha"] == retried["commit_sha"], again
    assert git(forge, repo, "rev-list", f"{start}..work").split() == [retried["commit_sha"]]
