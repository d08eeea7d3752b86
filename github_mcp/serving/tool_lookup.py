"""The framework's server, resolving the called tool once per request.

The Tasks extension looks the called tool up to decide whether the call runs as a task,
then the framework looks it up again to run it. Each lookup asks every provider in a
task group of its own and applies the session's visibility transforms and the
component auth check: about a seventh of a cached call's CPU, done twice. Here the
second lookup of the same name and version in the same request answers what the first
found. Nothing is kept across requests (a session's visibility may change between two
calls), and the seam's own checks still run on every call.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.dependencies import get_context
from fastmcp.tools import Tool

# (the request's context object, name, version, the tool found or None)
_FOUND: ContextVar[tuple[object, str, Any, Tool | None] | None] = ContextVar(
    "github_mcp_tool_found", default=None
)


def _request() -> object | None:
    """The MCP request being served (None outside one: a task's worker, start-up)."""
    try:
        return get_context().request_context
    except RuntimeError:
        return None


class ServingMCP(FastMCP):
    """FastMCP whose `get_tool` answers a request's repeated lookup from its first."""

    async def get_tool(self, name: str, version: Any = None) -> Tool | None:
        request = _request()
        if request is None:
            return await super().get_tool(name, version)
        found = _FOUND.get()
        if found is not None and found[0] is request and found[1] == name and found[2] == version:
            return found[3]
        tool = await super().get_tool(name, version)
        _FOUND.set((request, name, version, tool))
        return tool
