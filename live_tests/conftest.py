"""The opt-in suite against real GitHub (`make test-live`); never part of `make test`
(pytest's testpaths is `tests/`, and this directory is outside it).

It needs GITHUB_TOKEN (a token that may write to the scratch repository) and
GITHUB_MCP_LIVE_REPO (`owner/name` of a scratch repository the operator owns, with at
least one commit on its default branch). Without both, every test is skipped with one
message saying what to set. Each run works on its own branch and cleans up after itself.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from github_mcp.config import Settings
from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.server import build_mcp

REQUIRED = ("GITHUB_TOKEN", "GITHUB_MCP_LIVE_REPO")
SKIP_REASON = (
    "live GitHub suite skipped: set GITHUB_TOKEN (a token that may write to the scratch "
    "repository) and GITHUB_MCP_LIVE_REPO (owner/name of a scratch repository you own) "
    "to run it against api.github.com"
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if all(os.environ.get(name) for name in REQUIRED):
        return
    skip = pytest.mark.skip(reason=SKIP_REASON)
    for item in items:
        item.add_marker(skip)


def pytest_report_header(config: pytest.Config) -> str:
    missing = [name for name in REQUIRED if not os.environ.get(name)]
    if missing:
        return SKIP_REASON
    return f"live GitHub suite against {os.environ['GITHUB_MCP_LIVE_REPO']}"


@pytest.fixture(scope="session")
def live_repo() -> str:
    return os.environ["GITHUB_MCP_LIVE_REPO"]


@pytest.fixture
def scratch_branch() -> str:
    """A branch name of this run's own; tests delete what they create."""
    return f"github-mcp-live/{uuid.uuid4().hex[:10]}"


@pytest.fixture
def workspaces() -> Iterator[Path]:
    """Where clones go: a 0711 directory, so the workspace sandbox's user reaches them."""
    path = Path(tempfile.mkdtemp(prefix="github-mcp-live-"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
async def live_client(tmp_path: Path, workspaces: Path, live_repo: str) -> AsyncIterator[Client]:
    """A runtime with the token from the environment, on api.github.com (TLS verified),
    writes allowed only to the scratch repository, and an in-memory MCP client."""
    settings = Settings(
        github_token=os.environ["GITHUB_TOKEN"],
        github_api_url=os.environ.get("GITHUB_API_URL", "https://api.github.com"),
        repo_allowlist=live_repo,
        auto_approve=True,
        approval_mode="env",
        audit_log=tmp_path / "audit.jsonl",
        workspace_dir=workspaces,
        toolsets="all",
    )
    rt = Runtime.create(settings)
    try:
        async with Client(build_mcp(rt)) as client:
            yield client
    finally:
        await rt.aclose()


async def call(client: Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool that must succeed; its structured result."""
    result = await client.call_tool(name, args, raise_on_error=False)
    assert not result.is_error, (name, result.structured_content)
    assert isinstance(result.structured_content, dict)
    return result.structured_content
