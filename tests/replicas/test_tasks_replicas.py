"""MCP tasks across replicas: real redis-server and two `main.py serve` replicas sharing
one task queue in it (GITHUB_MCP_STATE_URL), and real SDK clients.

- A task created on replica A is the same task on replica B: `tasks/get` there reports
  it and, once done, its result.
- A replica killed (SIGKILL) while its worker runs a write as a task: another worker takes
  the task over once its lease lapses and marks it failed, saying the write's outcome is
  unknown; the command is never started a second time (evidence from the workspace: the
  command appends one line to a file in the clone each time it starts).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastmcp_tasks import ToolTask, call_tool_task

from tests.conftest import traversable
from tests.replicas.cluster import Cluster, client
from tests.replicas.test_sigkill import _descendant_cmdlines
from tests.test_tools_write import head
from tests.test_workspace_freshness import forge_commit


@pytest.fixture(scope="module")
def _shared_pair(forge, forge_token, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("pair")
    cluster = Cluster(
        tmp_path,
        api_url=forge.base_url,
        token=forge_token,
        count=2,
        stateless=True,
        workspace_dir=traversable(tmp_path),
        extra_env={"GITHUB_MCP_TASKS_LEASE_SECONDS": "5"},
    )
    yield cluster
    cluster.close()


@pytest.fixture
def pair(_shared_pair):
    """Two replicas shared by the module's tests, each working in a repository of its own;
    a replica a test killed is started again (on its port) before the next test."""
    return _shared_pair.revive()


def _repo(forge) -> str:
    name = f"octo-org/task-replicas-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(name, {"README.md": "x\n"}, branches={"work": {"README.md": "x\n"}})
    return name


@pytest.mark.timeout(300)
async def test_a_task_made_on_one_replica_is_read_on_the_other(pair, forge):
    repo = _repo(forge)
    a, b = pair.replicas
    marker = uuid.uuid4().hex
    args = {"full_name": repo, "ref": "work", "command": f"echo {marker}"}
    async with client(a.url) as on_a, client(b.url) as on_b:
        task = await call_tool_task(on_a, "terminal_command", args)
        seen_on_b = ToolTask(on_b, "terminal_command", task.create_result)
        final = await seen_on_b.wait(timeout=240)
        assert final.task_id == task.task_id
        assert final.status == "completed", final
        assert final.result["structuredContent"]["stdout"] == f"{marker}\n"
        on_a_too = await task.status()
        assert on_a_too.status == "completed" and on_a_too.result == final.result


@pytest.mark.timeout(300)
async def test_a_killed_replicas_write_task_fails_cleanly_and_never_runs_twice(pair, forge):
    repo = _repo(forge)
    marker = uuid.uuid4().hex
    # each start of the command leaves a line in the clone, then it runs for a minute
    command = f"echo {marker} >> runs.log; sleep 60; echo {marker}"
    args = {"full_name": repo, "ref": "work", "command": command, "timeout_seconds": 120}
    a, b = pair.replicas
    async with client(a.url) as on_a:
        task = await call_tool_task(on_a, "terminal_command", args)
    victim = None
    started = time.monotonic()
    while victim is None:
        assert time.monotonic() - started < 120, "the command never started"
        for replica in pair.replicas:
            if marker in _descendant_cmdlines(replica.proc.pid):
                victim = replica
        await asyncio.sleep(0.1)
    survivor = b if victim is a else a
    victim.kill()
    async with client(survivor.url) as on_survivor:
        handle = ToolTask(on_survivor, "terminal_command", task.create_result)
        final = await handle.wait(timeout=240)
    assert final.status == "failed", final
    assert "not run again" in (final.error or {}).get("message", ""), final
    runs = [p for p in traversable(pair.directory).rglob("runs.log") if "/.git/" not in str(p)]
    assert len(runs) == 1 and runs[0].read_text() == f"{marker}\n"


@pytest.fixture
def own_clones(forge, forge_token, tmp_path):
    """Two replicas whose workers run one task at a time, each with clones on its own disk."""
    base = traversable(tmp_path)
    cluster = Cluster(
        tmp_path,
        api_url=forge.base_url,
        token=forge_token,
        count=2,
        stateless=True,
        workspace_dirs=[base / "ws0", base / "ws1"],
        extra_env={"GITHUB_MCP_TASKS_LEASE_SECONDS": "5", "GITHUB_MCP_TASKS_CONCURRENCY": "1"},
    )
    yield cluster, [base / "ws0", base / "ws1"]
    cluster.close()


def _clones(workspace: Path) -> list[Path]:
    return [p.parent for p in workspace.rglob(".git") if p.is_dir()] if workspace.exists() else []


@pytest.mark.timeout(300)
async def test_a_task_on_a_worker_without_the_clone_makes_it_at_the_branch_head(own_clones, forge):
    """Workers keep their own clones: while one worker is busy, the next task goes to the
    other, which has no clone and makes one at the branch's head as it is then (evidence:
    each worker's clone directory, and the HEAD each command printed, against the forge's
    branch before and after a commit made while the first task ran)."""
    cluster, workspaces = own_clones
    repo = _repo(forge)
    a, _ = cluster.replicas
    slow, quick = uuid.uuid4().hex, uuid.uuid4().hex

    def head_of(command: str) -> dict[str, Any]:
        return {"full_name": repo, "ref": "work", "command": command, "timeout_seconds": 120}

    start = head(forge, repo, "work")
    async with client(a.url) as on_a:
        first = await call_tool_task(on_a, "terminal_command", head_of(
            f"echo {slow}; git rev-parse HEAD; sleep 20"))  # fmt: skip
        busy = None
        while busy is None:  # conditions, not clocks: pytest's timeout bounds a hang
            busy = next(
                (r for r in cluster.replicas if slow in _descendant_cmdlines(r.proc.pid)), None
            )
            await asyncio.sleep(0.1)
        other = 1 - busy.index
        assert _clones(workspaces[other]) == []  # the idle worker has no clone yet
        moved = forge_commit(forge, repo, "work", "notes.txt", "moved while the first task ran")
        # the busy worker runs one task at a time (GITHUB_MCP_TASKS_CONCURRENCY=1)
        for _ in range(10):  # a retryable `unavailable` (a Redis breaker flap) is retried
            second = await call_tool_task(on_a, "terminal_command", head_of(
                f"echo {quick}; git rev-parse HEAD"))  # fmt: skip
            done = await second.wait(timeout=240)
            assert done.status == "completed", done
            answer = done.result["structuredContent"]
            if not _retryable(answer):
                break
        assert answer.get("stdout") == f"{quick}\n{moved}\n", answer
        assert len(_clones(workspaces[other])) == 1  # made on that worker's own disk
        ended = await first.wait(timeout=240)
    assert ended.status == "completed", ended
    answer = ended.result["structuredContent"]
    assert answer.get("stdout") == f"{slow}\n{start}\n", answer
    assert [len(_clones(w)) for w in workspaces] == [1, 1]


def _retryable(answer: dict[str, Any]) -> bool:
    """A retryable `unavailable`: on a loaded machine one late PONG opens the Redis breaker
    for a moment, and the hint asks the client to retry (nothing was run)."""
    error = answer.get("error") or {}
    return error.get("code") == "unavailable" and bool(error.get("retryable"))
