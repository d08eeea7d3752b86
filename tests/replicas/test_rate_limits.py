"""Replicas back off together: a secondary rate limit one replica is told about holds
the others too. Evidence is the forge's request log: no request reaches it from any
replica while the back-off lasts."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
import redis

from tests.conftest import traversable
from tests.replicas.cluster import Cluster, wait_for
from tests.replicas.test_replicas import _call

# Long enough that a loaded test machine still sees the shared back-off in Redis before it
# ends (its key lives as long as the back-off), short enough that the replicas wait it out.
MAX_RETRY_WAIT_S = 12


@pytest.fixture
def cluster(forge, forge_token, tmp_path):
    cluster = Cluster(
        tmp_path,
        api_url=forge.base_url,
        token=forge_token,
        workspace_dir=traversable(tmp_path),
        extra_env={"GITHUB_MAX_RETRY_WAIT": str(MAX_RETRY_WAIT_S)},
    )
    yield cluster
    cluster.close()


def _repos(forge, count: int) -> list[str]:
    names = [f"octo-org/limits-{uuid.uuid4().hex[:8]}" for _ in range(count)]
    for name in names:
        forge.seed_repo(name, {"README.md": f"{name}\n"})
    return names


def _read(repo: str) -> dict[str, str]:
    return {"full_name": repo, "path": "README.md"}


def _fault_hit(forge, fault_id: int) -> dict | None:
    return next((r for r in forge.requests() if r.get("fault") == fault_id), None)


async def test_a_long_secondary_limit_on_one_replica_refuses_on_the_others(cluster, forge):
    r1, r2, r3 = (r.url for r in cluster.replicas)
    first, second, third = _repos(forge, 3)
    forge.clear_requests()
    fault = forge.add_fault(path=".", preset="secondary_rate_limit", retry_after=30, times=1)

    failed, payload, _ = await _call(r1, "get_file_contents", _read(first))
    assert failed and payload["error"]["code"] == "rate_limited", payload
    hit = _fault_hit(forge, fault)
    assert hit is not None and hit["status"] == 403

    for url, repo in ((r2, second), (r3, third)):
        failed, payload, _ = await _call(url, "get_file_contents", _read(repo))
        assert failed and payload["error"]["code"] == "rate_limited", payload
        assert payload["error"]["retry_after"] > MAX_RETRY_WAIT_S
    # the forge saw nothing after the 403: the other replicas never sent their reads
    later = [r for r in forge.requests() if r["ts"] > hit["ts"]]
    assert later == [], later


async def test_a_short_secondary_limit_makes_every_replica_wait_it_out(cluster, forge):
    r1, r2, r3 = (r.url for r in cluster.replicas)
    first, second, third = _repos(forge, 3)
    forge.clear_requests()
    retry_after = 8
    fault = forge.add_fault(
        path=".", preset="secondary_rate_limit", retry_after=retry_after, times=1
    )

    limited = asyncio.create_task(_call(r1, "get_file_contents", _read(first)))
    deadline = time.monotonic() + 60
    while _fault_hit(forge, fault) is None or _fault_hit(forge, fault)["status"] is None:
        assert time.monotonic() < deadline, "replica 1's request never reached the forge"
        assert not limited.done(), limited.result()
        await asyncio.sleep(0.02)
    hit = _fault_hit(forge, fault)
    # the back-off is published before replica 1 sleeps: wait until Redis holds it
    store = redis.Redis.from_url(cluster.redis.url)
    wait_for(lambda: store.keys("ghmcp:ratelimit:*"), "the shared back-off")

    outcomes = await asyncio.gather(
        limited,
        _call(r2, "get_file_contents", _read(second)),
        _call(r3, "get_file_contents", _read(third)),
    )
    for (failed, payload, _), repo in zip(outcomes, (first, second, third), strict=True):
        assert not failed, payload
        assert repo in str(payload)
    later = [r for r in forge.requests() if r["ts"] > hit["ts"]]
    assert later, "the reads were sent once the back-off ended"
    # every request after the 403, from any replica, came after the back-off
    early = [r for r in later if r["ts"] < hit["ts"] + retry_after]
    assert early == [], early
