"""Replicas sharing one workspace volume never work in one clone at once: the workspace
lock in Redis serialises their commands (and git). Evidence is written from inside the
commands themselves: start and end markers with timestamps, appended to one file."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from tests.conftest import traversable
from tests.replicas.cluster import Cluster
from tests.replicas.test_replicas import _call

WRITERS = 4


@pytest.fixture
def cluster(forge, forge_token, tmp_path):
    # every replica gets the same GITHUB_MCP_WORKSPACE_DIR: one shared workspace volume
    cluster = Cluster(
        tmp_path, api_url=forge.base_url, token=forge_token, workspace_dir=traversable(tmp_path)
    )
    yield cluster
    cluster.close()


def _marking(label: str) -> str:
    # the pause is the work that would overlap without the lock, not synchronisation
    return (
        f"printf 'start {label} %s\\n' \"$(date +%s%N)\" >> markers.log && sleep 1 && "
        f"printf 'end {label} %s\\n' \"$(date +%s%N)\" >> markers.log"
    )


async def test_two_replicas_never_run_commands_in_one_clone_at_once(cluster, forge):
    repo = f"octo-org/shared-ws-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"README.md": "shared\n"}, branches={"work": {"README.md": "w\n"}})
    r1, r2, _ = (r.url for r in cluster.replicas)
    # both replicas race to clone the same workspace and run in it
    calls = [
        _call(
            (r1, r2)[i % 2],
            "terminal_command",
            {
                "full_name": repo,
                "ref": "work",
                "command": _marking(f"w{i}"),
                "timeout_seconds": 120,
            },
        )
        for i in range(WRITERS)
    ]
    outcomes = await asyncio.gather(*calls)
    for failed, payload, _ in outcomes:
        assert not failed, payload
        assert payload["exit_code"] == 0, payload

    failed, payload, _ = await _call(
        r1, "terminal_command", {"full_name": repo, "ref": "work", "command": "cat markers.log"}
    )
    assert not failed, payload
    lines = [line.split() for line in payload["stdout"].splitlines()]
    assert len(lines) == 2 * WRITERS, lines
    # no interleaving: each start is followed by its own end, and the next start comes
    # after the previous end (timestamps written from inside the commands)
    previous_end = 0
    labels = set()
    for (start, label, started), (end, label_end, ended) in zip(
        lines[0::2], lines[1::2], strict=True
    ):
        assert (start, end) == ("start", "end") and label == label_end, lines
        assert int(started) >= previous_end and int(ended) >= int(started), lines
        previous_end = int(ended)
        labels.add(label)
    assert labels == {f"w{i}" for i in range(WRITERS)}
