"""Shared fixtures: a sandbox forge on loopback, runtimes and MCP clients.

Tests talk to the server through a real MCP client (fastmcp's Client) and the
server talks to the forge over real HTTP and git. Nothing of ours is mocked.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
for _name in list(os.environ):
    if _name.startswith(("GITHUB_", "GH_", "TOOL_STDOUT", "TOOL_STDERR")):
        del os.environ[_name]
os.environ["FASTMCP_LOG_ENABLED"] = "false"
os.environ["FASTMCP_SHOW_SERVER_BANNER"] = "false"

from fastmcp import Client  # noqa: E402
from fastmcp.client.transports import StreamableHttpTransport  # noqa: E402
from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # noqa: E402

from github_mcp.config import Settings  # noqa: E402
from github_mcp.pipeline.runtime import Runtime  # noqa: E402
from github_mcp.serving.server import build_mcp  # noqa: E402
from tests.background_removal import BackgroundRemoval, remove_tree  # noqa: E402

# Every forge of the run checks its answers against GitHub's descriptions; a test they
# answered unlike GitHub fails (tests/forge_contract.py).
from tests.forge_contract import (  # noqa: E402, F401
    _forge_answers_as_github_describes,
    pytest_sessionfinish,
    pytest_terminal_summary,
)
from tests.scheduling import slow_files_first  # noqa: E402

DEMO_REPO = "octo-org/demo-app"


@pytest.fixture(scope="session")
def forge():
    from sandbox_forge import Forge
    from sandbox_forge.admin.seed import seed_demo

    # One token serves every test of a worker's session: the whole suite is far more than
    # one user's hour at GitHub's 5,000 core requests. Rate-limit tests set their own.
    data_dir = Path(tempfile.mkdtemp(prefix="sandbox-forge-"))
    instance = Forge(data_dir=data_dir, record_responses=True, rate_limit=100_000)
    instance.start()
    seed_demo(instance)
    yield instance

    def stop() -> None:
        instance.stop()
        remove_tree(data_dir)  # the session's repositories, many at once

    _CLEANUP.submit(stop)


@pytest.fixture(scope="session", autouse=True)
async def _close_shared_chromium():
    """The worker's shared Chromium (tests/shared_browser.py) ends with the session."""
    yield
    shared = sys.modules.get("tests.shared_browser")  # imported only where a test used it
    if shared is not None:
        await shared.close_shared_chromium()


@pytest.fixture(autouse=True)
def _clean_forge_faults(request):
    yield
    forge = request.node.funcargs.get("forge")
    if forge is not None and hasattr(forge, "clear_faults"):
        forge.clear_faults()


@pytest.fixture(scope="session")
def forge_token(forge) -> str:
    return forge.create_token(login="octocat")


# Workspace roots the sandbox's unprivileged user can pass through: pytest keeps its
# temporary directories 0700 (and resets them), so workspaces live under this base.
_OPEN_BASE = Path(tempfile.mkdtemp(prefix="github-mcp-ws-tests-"))
_OPEN_BASE.chmod(0o711)


def _base_of(path: Path) -> Path:
    return _OPEN_BASE / hashlib.sha256(str(path).encode()).hexdigest()[:16]


def traversable(path: Path) -> Path:
    """A fresh-per-path directory (o+x, never o+r) standing in for `path` as a workspace base."""
    base = _base_of(path)
    base.mkdir(mode=0o711, exist_ok=True)
    return base


_CLEANUP = BackgroundRemoval()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slow_files_first(items)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item):
    """Once a test's fixtures are finalized (its servers and runtimes closed), the workspace
    base of its tmp_path is removed in the background; module fixtures keep their own."""
    tmp_path = getattr(item, "funcargs", {}).get("tmp_path")
    yield
    if tmp_path is not None and _base_of(tmp_path).exists():
        _CLEANUP.remove(_base_of(tmp_path))


@pytest.fixture(scope="session", autouse=True)
def _remove_open_workspace_base():
    yield
    _CLEANUP.submit(lambda: remove_tree(_OPEN_BASE))
    _CLEANUP.finish()


@pytest.fixture
def make_settings(forge, forge_token, tmp_path):
    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "github_api_url": forge.base_url,
            "github_token": forge_token,
            "audit_log": tmp_path / "audit.jsonl",
            "workspace_dir": traversable(tmp_path) / "workspaces",
            # every tool listed, so tests that walk the list see them all; the default
            # view has tests of its own (tests/perf/test_tool_catalog.py, test_tool_views.py)
            "toolsets": "all",
            # a completion's latency budget is wall-clock: the tests' machine may be loaded
            "completion_budget_seconds": 120.0,
        }
        values.update(overrides)
        return Settings(**values)

    return make


@pytest.fixture
async def make_runtime(make_settings):
    created: list[Runtime] = []

    def make(**overrides: Any) -> Runtime:
        rt = Runtime.create(make_settings(**overrides), retry_base_delay=0.01)
        created.append(rt)
        return rt

    yield make
    for rt in created:
        await rt.aclose()


@asynccontextmanager
async def mcp_client(rt: Runtime) -> AsyncIterator[Client]:
    async with Client(build_mcp(rt)) as client:
        yield client


_LISTED: weakref.WeakSet[Client] = weakref.WeakSet()


async def listed(client: Client) -> Client:
    """`client`, once it has listed the tools if it speaks 2026-07-28 over HTTP: such a
    client mirrors a tool's repository argument into an `Mcp-Param-*` header (SEP-2243),
    which it learns from the listing, and the server refuses a call without it."""
    modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
    if modern and isinstance(client.transport, StreamableHttpTransport) and client not in _LISTED:
        await client.list_tools()
        _LISTED.add(client)
    return client


class ListingClient(Client):
    """A fastmcp client that lists the tools once connected, as a conforming 2026-07-28
    client does before its calls (see `listed`)."""

    async def __aenter__(self) -> ListingClient:
        await super().__aenter__()
        await listed(self)
        return self


async def call_tool(client: Client, name: str, args: dict[str, Any] | None = None):
    """Call a tool, as a client that listed the tools does; return (is_error, structured
    content)."""
    await listed(client)
    result = await client.call_tool(name, args or {}, raise_on_error=False)
    return result.is_error, result.structured_content


def error_code(payload: dict[str, Any]) -> str:
    return payload["error"]["code"]


def settled_requests(forge) -> list[dict[str, Any]]:
    """The request log once every logged request has finished (bounded wait)."""
    import time

    deadline = time.monotonic() + 60
    while True:
        entries = forge.requests()
        if all("duration_ms" in e for e in entries):
            return entries
        if time.monotonic() > deadline:
            unfinished = [e["path"] for e in entries if "duration_ms" not in e]
            raise AssertionError(f"forge requests still running after 60 s: {unfinished}")
        time.sleep(0.01)


def requests_matching(forge, method: str, fragment: str) -> list[dict[str, Any]]:
    return [r for r in settled_requests(forge) if r["method"] == method and fragment in r["path"]]
