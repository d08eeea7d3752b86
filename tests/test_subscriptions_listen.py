"""`subscriptions/listen` (2026-07-28, SEP-2575) with a real server process over HTTP:

- `server/discover` advertises `tools.listChanged` to a 2026-07-28 client;
- the Python SDK's listen driver opens a stream: the acknowledgment comes first with the
  honoured filter, and enabling a toolset (a 2025-11-25 session's enable_toolset) arrives
  as a tools-list change;
- on the wire, every frame carries the subscription id (the listen request's id), and a
  stream filtered to prompts gets no tools-list change.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2 as httpx
import pytest
from fastmcp import Client as FastClient
from fastmcp.client.transports import StreamableHttpTransport
from mcp import Client
from mcp.client.subscriptions import ToolsListChanged

from tests.stdio_session import modern_meta
from tests.test_tasks_http import Server

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
TOOLSET = "code_security"  # off the default list: enabling it changes a session's tools


@pytest.fixture(scope="module")
def server(forge, forge_token, tmp_path_factory):
    """One server for the module: each test listens on streams of its own and enables the
    toolset from a session of its own (a session's own list changes)."""
    running = Server(tmp_path_factory.mktemp("listen"), forge.base_url, forge_token)
    yield running
    running.stop()


async def _enable_toolset(server: Server) -> None:
    """A handshake-era session enables a toolset (its own list changes)."""
    transport = StreamableHttpTransport(server.url + "/mcp")
    async with FastClient(transport, mode="legacy", timeout=120) as legacy:
        result = await legacy.call_tool("enable_toolset", {"name": TOOLSET})
        assert not result.is_error, result


class RawListen:
    """One `subscriptions/listen` stream read frame by frame."""

    def __init__(self, server: Server, ident: int, notifications: dict[str, Any]) -> None:
        self.frames: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.acknowledged = asyncio.Event()
        self._task = asyncio.create_task(self._read(server.url, ident, notifications))

    async def _read(self, url: str, ident: int, notifications: dict[str, Any]) -> None:
        body = {
            "jsonrpc": "2.0",
            "id": ident,
            "method": "subscriptions/listen",
            "params": {"_meta": modern_meta("raw"), "notifications": notifications},
        }
        headers = {
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "subscriptions/listen",
        }
        async with (
            httpx.AsyncClient(timeout=None) as client,
            client.stream("POST", url + "/mcp", json=body, headers=headers) as response,
        ):
            assert response.status_code == 200, await response.aread()
            async for line in response.aiter_lines():
                if not line.startswith("data:") or not line[5:].strip():
                    continue
                frame = json.loads(line[5:])
                self.frames.append(frame)
                if frame.get("method") == "notifications/subscriptions/acknowledged":
                    self.acknowledged.set()
                if frame.get("method") == "notifications/tools/list_changed":
                    self.changed.set()

    async def close(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


async def test_discover_advertises_list_changes(server):
    async with Client(server.url + "/mcp") as client:  # probes server/discover
        assert client.protocol_version == "2026-07-28"
        capabilities = client.server_capabilities
    assert capabilities.tools is not None and capabilities.tools.list_changed is True


async def test_the_sdk_listener_is_acknowledged_then_told_of_a_toolset_change(server):
    async with (
        Client(server.url + "/mcp", mode="2026-07-28") as client,
        client.listen(tools_list_changed=True) as subscription,
    ):
        assert subscription.honored.tools_list_changed is True
        await _enable_toolset(server)
        event = await asyncio.wait_for(anext(aiter(subscription)), timeout=60)  # bounds a hang
        assert isinstance(event, ToolsListChanged)


async def test_frames_carry_the_subscription_id_and_the_filter_holds(server):
    tools = RawListen(server, 41, {"toolsListChanged": True})
    prompts = RawListen(server, 42, {"promptsListChanged": True})
    try:
        for stream in (tools, prompts):  # bounds a hang only
            await asyncio.wait_for(stream.acknowledged.wait(), timeout=60)
        await _enable_toolset(server)
        await asyncio.wait_for(tools.changed.wait(), timeout=60)
    finally:
        await tools.close()
        await prompts.close()
    ack, change = tools.frames[:2]
    assert ack["method"] == "notifications/subscriptions/acknowledged", tools.frames
    assert ack["params"]["notifications"] == {"toolsListChanged": True}
    assert change["method"] == "notifications/tools/list_changed"
    assert all(f["params"]["_meta"][SUBSCRIPTION_ID] == 41 for f in tools.frames), tools.frames
    # published to both streams at once: the prompts-only one got its ack and nothing else
    assert [f["method"] for f in prompts.frames] == ["notifications/subscriptions/acknowledged"]
    assert prompts.frames[0]["params"]["_meta"][SUBSCRIPTION_ID] == 42
