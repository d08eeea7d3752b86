"""Fixtures shared by the replica tests."""

from __future__ import annotations

import signal

import pytest

from tests.conftest import traversable
from tests.replicas.cluster import Cluster


@pytest.fixture
def held_pair(forge, forge_token, tmp_path):
    """Two replicas on one Redis whose writes are approved by the operator's setting; the
    forge may hold a request until the test releases it, so only a hang ends a request.
    A replica left frozen (SIGSTOP) by the test is let go before the cluster stops."""
    cluster = Cluster(
        tmp_path,
        api_url=forge.base_url,
        token=forge_token,
        count=2,
        workspace_dir=traversable(tmp_path),
        extra_env={"GITHUB_MCP_AUTO_APPROVE": "true", "GITHUB_REQUEST_TIMEOUT": "600"},
    )
    yield cluster
    for replica in cluster.replicas:
        if replica.proc.poll() is None:
            replica.proc.send_signal(signal.SIGCONT)
    cluster.close()
