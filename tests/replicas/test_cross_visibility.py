"""The cross-visibility guard across replicas: a private read through one replica counts
for a public write through another (stateless HTTP, real Redis, real server processes).
Evidence: the forge's branches."""

from __future__ import annotations

import uuid
from typing import Any

import httpx2 as httpx
import pytest

from tests.conftest import traversable
from tests.replicas.cluster import Cluster, client


@pytest.fixture
def two_replicas(forge, forge_token, tmp_path):
    cluster = Cluster(
        tmp_path,
        api_url=forge.base_url,
        token=forge_token,
        count=2,
        workspace_dir=traversable(tmp_path),
    )
    yield cluster
    cluster.close()


def _branches(forge: Any, token: str, repo: str) -> set[str]:
    response = httpx.get(
        f"{forge.base_url}/repos/{repo}/branches",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    response.raise_for_status()
    return {b["name"] for b in response.json()}


async def _call(url: str, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    async with client(url) as c:
        result = await c.call_tool(tool, args, raise_on_error=False)
        return result.is_error, result.structured_content


async def test_a_private_read_on_one_replica_gates_a_public_write_on_another(
    two_replicas, forge, forge_token
):
    tag = uuid.uuid4().hex[:8]
    site, vault = f"octo-org/xv-site-{tag}", f"octo-org/xv-vault-{tag}"
    forge.seed_repo(site, {"README.md": "# site\n"})
    forge.seed_repo(vault, {"secrets.env": "TOKEN=hunter2\n"}, private=True)
    r1, r2 = (r.url for r in two_replicas.replicas)

    failed, read = await _call(r1, "get_file_contents", {"full_name": vault, "path": "secrets.env"})
    assert not failed and "hunter2" in read["content"], read
    failed, refused = await _call(r2, "create_branch", {"full_name": site, "branch": "leak"})
    assert failed and refused["error"]["code"] == "write_not_allowed", refused
    assert refused["error"]["private_repos_read"] == [vault]
    assert "leak" not in _branches(forge, forge_token, site)
