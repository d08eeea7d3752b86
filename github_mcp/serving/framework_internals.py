"""The one module that may use a private name of fastmcp or mcp.

The public API covers everything else this package does with the framework. What it
does not offer yet is here, each with why, and tests/test_framework_internals.py fails
when the installed versions differ from the ones these were written against, so an
upgrade starts by reading this file.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

WRITTEN_FOR = {"fastmcp": "4.1.4", "mcp": "2.3.0"}


def on_session_end(ctx: Any, callback: Callable[[], None]) -> bool:
    """Run `callback` when the client session of this request ends (DELETE, idle timeout,
    a crash): the SDK's per-connection exit stack, which fastmcp does not expose (its own
    keep-alive middleware reaches it the same way). False when there is no connection."""
    session = getattr(ctx, "session", None)
    connection = getattr(session, "_connection", None)
    stack = getattr(connection, "exit_stack", None)
    if stack is None:
        return False
    stack.callback(callback)
    return True


@asynccontextmanager
async def run_lifespan(mcp: Any) -> AsyncIterator[None]:
    """The server's lifespan without serving a transport, for a tasks worker process:
    fastmcp runs a tasks extension's worker only inside it, and its CLI worker enters it
    the same way (no public entry point yet)."""
    async with mcp._lifespan_manager():
        yield
