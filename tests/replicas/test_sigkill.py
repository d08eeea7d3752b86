"""A replica killed with SIGKILL in the middle of a long `terminal_command` stream: the
client resumes on another replica or gets a clear error, never a hang (bounded by an
explicit deadline as well as the pytest timeout)."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from tests.conftest import traversable
from tests.replicas.cluster import Cluster, client

DEADLINE_S = 90


@pytest.fixture
def affinity_cluster(forge, forge_token, tmp_path):
    # sessions (not --stateless), nginx hashing on Mcp-Session-Id; the workspace root is
    # traversable so the sandboxed command can reach its clone when the server is root
    cluster = Cluster(
        tmp_path,
        api_url=forge.base_url,
        token=forge_token,
        stateless=False,
        workspace_dir=traversable(tmp_path),
    )
    yield cluster
    cluster.close()


@pytest.mark.timeout(240)
async def test_sigkill_mid_stream_resumes_or_fails_clearly(affinity_cluster, forge):
    repo = f"octo-org/sigkill-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"README.md": "x\n"}, branches={"work": {"README.md": "x\n"}})
    marker = uuid.uuid4().hex
    command = f"echo {marker}; for i in $(seq 1 60); do echo tick $i; sleep 1; done"
    progressed = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        progressed.set()

    async def run() -> tuple[bool, object]:
        async with client(affinity_cluster.nginx.url) as c:
            result = await c.call_tool(
                "terminal_command",
                {"full_name": repo, "ref": "work", "command": command, "timeout_seconds": 120},
                raise_on_error=False,
                progress_handler=on_progress,
            )
            return result.is_error, result.structured_content

    started = time.monotonic()
    call = asyncio.create_task(run())
    # the replica running the command is the one whose process tree holds the marker
    victim = None
    while victim is None:
        assert time.monotonic() - started < DEADLINE_S, "the command never started"
        assert not call.done(), call.result()
        for replica in affinity_cluster.replicas:
            if marker in _descendant_cmdlines(replica.proc.pid):
                victim = replica
        await asyncio.sleep(0.1)
    victim.kill()

    try:
        failed, payload = await asyncio.wait_for(
            call, timeout=DEADLINE_S - (time.monotonic() - started)
        )
    except TimeoutError:
        pytest.fail("the client hung after its replica was killed")
    except Exception as exc:  # a clear transport/JSON-RPC error is an acceptable outcome
        assert str(exc), "the error says what happened"
        return
    if failed:
        assert payload is None or "error" in payload, payload
    else:
        assert payload is not None and marker in payload.get("stdout", ""), payload


def _descendant_cmdlines(pid: int) -> str:
    """The command lines of every process under `pid` (from /proc)."""
    from pathlib import Path

    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        for child in children.get(current, []):
            todo.append(child)
            try:
                found.append((Path("/proc") / str(child) / "cmdline").read_bytes().decode())
            except OSError:
                continue
    return "\n".join(found)
