"""`subscriptions/listen` (the 2026-07-28 revision, SEP-2575) over HTTP: a client opens a
stream of change notifications with a filter; the SDK's handler acknowledges first,
tags every notification with the subscription's id (the listen request's JSON-RPC id)
and sends only what the filter asked for, until the client closes the stream.

This server publishes a tools-list change when a toolset is enabled (enable_toolset):
a level trigger, refetch `tools/list` if you care; and, on a stream that watches
workflow runs, a resource update when one changes (run_watch.py serves the method).
Serving it is what makes `server/discover` advertise `tools.listChanged` and
`resources.subscribe` to a 2026-07-28 client. The events live in this process: a
listener hears what its own replica publishes. (Over stdio: stdio_listen.py.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged

if TYPE_CHECKING:
    from fastmcp import FastMCP

_BUSES: WeakKeyDictionary[FastMCP, InMemorySubscriptionBus] = WeakKeyDictionary()


def listen_bus(mcp: FastMCP) -> InMemorySubscriptionBus:
    """The event bus of `mcp`'s listen streams (made on first use)."""
    bus = _BUSES.get(mcp)
    if bus is None:
        bus = _BUSES[mcp] = InMemorySubscriptionBus()
    return bus


async def tools_changed(mcp: FastMCP) -> None:
    """Tell every open listen stream that asked for it that the tool list changed."""
    bus = _BUSES.get(mcp)
    if bus is not None:
        await bus.publish(ToolsListChanged())
