"""A replica SIGKILLed while it holds a branch's write lock does not hold up the retry for
the lock's lease. The lock names its holder's heartbeat; once that replica stops beating,
the client's retry on another replica (same idempotency key) takes the write's claim and
then the branch's lock over, and commits exactly once. Here neither the claim's lease nor
the lock's runs out by itself (made to last), so only the heartbeat can free them: before,
the retry waited out the lock (15 s by default; here for good, refused as a conflict).
Evidence: the branch's history on the forge. Real processes: redis-server and two
`main.py serve` replicas."""

from __future__ import annotations

import asyncio

import pytest

from tests.replicas.test_stalled_holder import _call, _held_write
from tests.test_tools_write import git


@pytest.mark.timeout(300)
async def test_a_dead_replicas_branch_lock_is_taken_over_by_the_retry(
    held_pair, forge, forge_token
):
    a, b = held_pair.replicas
    # A's tree is built under the branch's lock: held there, A holds the lock
    repo, start, args, key, store, rule, first = await _held_write(
        held_pair, forge, "lock", held=("POST", r"/git/trees$")
    )
    locks = list(store.scan_iter("ghmcp:lock:ref:*"))
    assert len(locks) == 1, locks
    assert (store.get(locks[0]) or b"").startswith(b"hb="), store.get(locks[0])

    a.kill()
    for made_to_last in [*locks, *store.scan_iter("ghmcp:idem:*:lease")]:
        assert store.persist(made_to_last), made_to_last
    forge.release_fault(rule)
    await asyncio.gather(first, return_exceptions=True)  # A's client sees A die

    is_error, retried = await _call(b.url, args, key)
    assert not is_error, retried
    log = b.log.read_text(errors="replace")
    assert '"event": "write_lock_orphaned"' in log and '"event": "write_claim_orphaned"' in log
    assert git(forge, repo, "rev-list", f"{start}..work").split() == [retried["commit_sha"]]
    assert store.exists(locks[0]) == 0  # B let the lock go when its write ended
