"""Three replicas behind nginx sharing state in Redis (all real processes on loopback).

Evidence comes from the forge: branch heads and file contents through its REST API,
and its request log (ref updates actually made)."""

from __future__ import annotations

import asyncio
import base64
import uuid
from typing import Any

import httpx2 as httpx
import pytest

from tests.conftest import requests_matching, traversable
from tests.replicas.cluster import Cluster, client, wait_for


@pytest.fixture(scope="module")
def stateless_cluster(forge, forge_token, tmp_path_factory):
    """One deployment for the module (starting three replicas is most of each test's
    time): every test writes to a repository of its own, and Redis is checked to answer
    before each test (the outage test restarts it)."""
    tmp_path = tmp_path_factory.mktemp("replicas")
    cluster = Cluster(
        tmp_path, api_url=forge.base_url, token=forge_token, workspace_dir=traversable(tmp_path)
    )
    yield cluster
    cluster.close()


@pytest.fixture(autouse=True)
def _redis_answers(stateless_cluster):
    redis = stateless_cluster.redis
    if not redis.answers():  # a test that failed mid-outage must not fail the next ones
        redis.stop()
        redis.start()
    yield


def _repo(forge, files: dict[str, str] | None = None) -> str:
    name = f"octo-org/replicas-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(name, files or {"README.md": "hello\n"})
    return name


def _forge_get(forge, token: str, path: str) -> Any:
    response = httpx.get(
        forge.base_url + path, headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    response.raise_for_status()
    return response.json()


def _head(forge, token: str, repo: str, branch: str = "main") -> str:
    return _forge_get(forge, token, f"/repos/{repo}/git/ref/heads/{branch}")["object"]["sha"]


def _file(forge, token: str, repo: str, path: str, ref: str = "main") -> str:
    data = _forge_get(forge, token, f"/repos/{repo}/contents/{path}?ref={ref}")
    return base64.b64decode(data["content"]).decode()


async def _call(
    url: str, tool: str, args: dict[str, Any], *, retry: bool = True, **kw: Any
) -> tuple[bool, Any, Any]:
    """One call; retried as its hint asks while the answer is a retryable `unavailable`
    (on a loaded machine a PONG later than the breaker's 200 ms opens it for a moment, and
    nothing was written), unless `retry` is off."""
    for _ in range(40):
        async with client(url) as c:
            result = await c.call_tool(tool, args, raise_on_error=False, **kw)
        payload = result.structured_content
        error = (payload or {}).get("error") if result.is_error else None
        if not (retry and error and error.get("code") == "unavailable" and error["retryable"]):
            break
        await asyncio.sleep(0.5)
    return result.is_error, payload, result.meta


def _commit(repo: str, path: str, content: str, branch: str = "main") -> dict[str, Any]:
    return {
        "full_name": repo,
        "branch": branch,
        "message": f"write {path}",
        "files": [{"path": path, "content": content}],
    }


async def test_no_replica_grants_a_sessionless_client_an_approval_window(
    stateless_cluster, forge, forge_token
):
    """The stateless transport has no sessions, so an approval window would be the
    principal's on every client it has: no replica grants one (per-write approvals are
    in tests/replicas/test_approvals_across_replicas.py)."""
    repo = _repo(forge)
    r1, r2, r3 = (r.url for r in stateless_cluster.replicas)
    before = _head(forge, forge_token, repo)
    failed, payload, _ = await _call(r2, "commit_files", _commit(repo, "a.txt", "one\n"))
    assert failed and payload["error"]["code"] == "write_not_allowed"

    failed, payload, _ = await _call(r1, "authorize_write_actions", {"approved": True})
    assert failed and payload["error"]["code"] == "write_not_allowed", payload
    assert "no session" in payload["error"]["message"]

    for url, name in ((r2, "b.txt"), (r3, "c.txt")):
        failed, payload, _ = await _call(url, "commit_files", _commit(repo, name, name))
        assert failed and payload["error"]["code"] == "write_not_allowed", payload
    assert _head(forge, forge_token, repo) == before


async def test_write_through_one_replica_is_read_through_another(
    stateless_cluster, forge, forge_token
):
    repo = _repo(forge, {"notes.md": "old\n"})
    r1, r2, _ = (r.url for r in stateless_cluster.replicas)
    await _call(r1, "create_branch", {"full_name": repo, "branch": "feature"})
    read = {"full_name": repo, "path": "notes.md", "ref": "feature"}
    failed, first, _ = await _call(r2, "get_file_contents", read)
    assert not failed and "old" in str(first)  # replica 2 has it cached now

    change = _commit(repo, "notes.md", "new\n", "feature")
    failed, wrote, _ = await _call(r1, "commit_files", change)
    assert not failed, wrote
    assert _file(forge, forge_token, repo, "notes.md", "feature") == "new\n"

    failed, second, _ = await _call(r2, "get_file_contents", read)
    assert not failed and "new" in str(second) and "old" not in str(second)


async def test_twenty_concurrent_writers_over_the_load_balancer(
    stateless_cluster, forge, forge_token
):
    repo = _repo(forge, {"shared.txt": "start\n"})
    lb = stateless_cluster.nginx.url
    await _call(lb, "create_branch", {"full_name": repo, "branch": "busy"})
    own = [_commit(repo, f"file{i}.txt", f"writer {i}\n", "busy") for i in range(14)]
    same = [_commit(repo, "shared.txt", f"same-file writer {i}\n", "busy") for i in range(6)]
    outcomes = await asyncio.gather(*(_call(lb, "commit_files", args) for args in own + same))

    for i, (failed, payload, _) in enumerate(outcomes[:14]):
        assert not failed, payload  # every different-file write lands
        assert _file(forge, forge_token, repo, f"file{i}.txt", "busy") == f"writer {i}\n"
    landed_same = []
    for failed, payload, _ in outcomes[14:]:
        if failed:
            assert payload["error"]["code"] == "conflict", payload
        else:
            landed_same.append(payload["commit_sha"])
    assert landed_same, "at least one same-file writer lands"
    # no lost update: every acknowledged commit is in the branch's history
    history = {
        c["sha"]
        for c in _forge_get(forge, forge_token, f"/repos/{repo}/commits?sha=busy&per_page=100")
    }
    acknowledged = {p["commit_sha"] for failed, p, _ in outcomes if not failed}
    assert acknowledged <= history
    # and the shared file holds the content of the last same-file writer that landed
    last = next(
        c
        for c in _forge_get(
            forge, forge_token, f"/repos/{repo}/commits?sha=busy&path=shared.txt&per_page=100"
        )
        if c["sha"] in landed_same
    )
    text = _file(forge, forge_token, repo, "shared.txt", "busy")
    assert text == _file(forge, forge_token, repo, "shared.txt", last["sha"])
    # the audit stream in Redis holds one entry per write, from every replica
    import redis

    stream = redis.Redis.from_url(stateless_cluster.redis.url).xrange("ghmcp:audit")
    tools = [
        e for _, e in stream if b'"commit_files"' in e[b"entry"] and repo.encode() in e[b"entry"]
    ]
    assert len(tools) == 20  # this test's writes (the module's tests share the deployment)


async def test_retried_write_with_the_same_key_through_another_replica_writes_once(
    stateless_cluster, forge, forge_token
):
    repo = _repo(forge)
    r1, r2, _ = (r.url for r in stateless_cluster.replicas)
    await _call(r1, "create_branch", {"full_name": repo, "branch": "retry"})
    forge.clear_requests()
    args = _commit(repo, "once.txt", "exactly once\n", "retry")
    meta = {"idempotency_key": "client-key-" + uuid.uuid4().hex}
    failed, first, first_meta = await _call(r1, "commit_files", args, meta=meta)
    assert not failed, first
    failed, again, again_meta = await _call(r2, "commit_files", args, meta=meta)
    assert not failed, again
    assert again == first and (again_meta or {}).get("idempotent_replay") is True
    updates = requests_matching(forge, "PATCH", f"/repos/{repo}/git/refs/heads/retry")
    assert len(updates) == 1
    commits = requests_matching(forge, "POST", f"/repos/{repo}/git/commits")
    assert len(commits) == 1
    assert _head(forge, forge_token, repo, "retry") == first["commit_sha"]


async def test_redis_down_refuses_writes_then_service_resumes(
    stateless_cluster, forge, forge_token
):
    repo = _repo(forge, {"doc.md": "v1\n"})
    r1, r2, _ = (r.url for r in stateless_cluster.replicas)
    await _call(r1, "create_branch", {"full_name": repo, "branch": "outage"})
    read = {"full_name": repo, "path": "doc.md", "ref": "outage"}
    assert not (await _call(r2, "get_file_contents", read))[0]
    head = _head(forge, forge_token, repo, "outage")

    stateless_cluster.redis.stop()
    commit = _commit(repo, "x.txt", "x", "outage")
    failed, payload, _ = await _call(r1, "commit_files", commit, retry=False)
    assert failed and payload["error"]["code"] == "unavailable", payload
    assert _head(forge, forge_token, repo, "outage") == head  # nothing written
    assert httpx.get(r1 + "/readyz", timeout=10).status_code == 503
    failed, payload, _ = await _call(r2, "get_file_contents", read)  # reads degrade
    assert not failed and "v1" in str(payload)

    stateless_cluster.redis.start()
    wait_for(lambda: httpx.get(r1 + "/readyz", timeout=10).status_code == 200, "readiness")
    failed, payload, _ = await _call(r1, "commit_files", _commit(repo, "x.txt", "x", "outage"))
    assert not failed, payload
    assert _head(forge, forge_token, repo, "outage") == payload["commit_sha"]
