"""Serving over stdio: the opening and early reads while the MCP framework loads, then
the server.

As soon as the settings are read, `offer_opening` gives the stdio front the shipped
answers to `initialize` and `tools/list` (shipped_opening.py), when they apply. Then, in
order, on one event loop:
1. the tools are registered and, when the stdio front runs, every tool call is offered to
   `DirectCalls` (direct_calls.py); calls already waiting are taken first;
2. once no direct call is running (so the two do not share the CPU), a worker thread pays
   what a first GitHub request would (the TLS context, the modules of a first
   connection) and imports the MCP framework, while the loop goes on answering direct
   calls;
3. the server is built on this loop and the front releases what it held to it;
4. the server serves everything else until the client closes its input, while read calls
   keep going to `DirectCalls`.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from functools import partial
from types import ModuleType
from typing import TYPE_CHECKING

from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.extension_tools import import_extension_tools
from github_mcp.serving import stdio_front
from github_mcp.serving.shipped_opening import load as load_shipped

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.pipeline.runtime import Runtime


def serve_stdio(rt: Runtime) -> int:
    try:
        asyncio.run(_serve(rt))
    finally:
        stdio_front.finish()
    return 0


def offer_opening(settings: Settings) -> None:
    """As soon as the settings are read: the shipped `initialize` answer, then, once the
    operator's tools (if any) are registered, the shipped listing (shipped_opening.py)."""
    front = stdio_front.running()
    shipped = load_shipped(settings) if front is not None else None
    if front is None or shipped is None:
        return
    front.opening.offer_initialize(shipped.initialize)
    front.offer_stateless("discover", shipped.discover)
    import_extension_tools()  # only the operator's module: the built-in ones are recorded
    listing = shipped.tools_list(_registered())
    log_event("shipped_opening", listing=listing is not None)
    front.opening.offer_listing(listing)
    front.offer_stateless("modern_list", partial(shipped.modern_listing, listing=listing))


async def _serve(rt: Runtime) -> None:
    import github_mcp.tools  # noqa: F401 - registers every built-in tool
    from github_mcp.monitoring.gc_tuning import tune_for_serving
    from github_mcp.serving.direct_calls import DirectCalls

    import_extension_tools()  # before early calls: the operator's tools are the server's
    front, direct = stdio_front.running(), None
    if front is not None:
        loop = asyncio.get_running_loop()
        direct = DirectCalls(rt, loop, front.reply, front.notify, lambda: front.log_level)
        front.attach(direct.accepts, direct.cancel)
        await direct.idle()
    server = await asyncio.to_thread(_load_server)
    mcp = server.build_mcp(rt)
    if direct is not None:
        direct.server_runs = True
    if front is not None:
        front.release()
    tune_for_serving()
    await mcp.run_async(transport="stdio", show_banner=False)
    if direct is not None:
        await direct.idle()  # calls taken before the client closed its input are answered


def _load_server() -> ModuleType:
    """On a worker thread: what a first GitHub request would pay (connection.py), then
    the MCP framework and the server built on it."""
    from github_mcp.github.connection import warm_up  # loaded by now: the Runtime's

    warm_up()
    return importlib.import_module("github_mcp.serving.server")


def _registered() -> dict[str, tuple[str, bool]]:
    """What is registered so far: an operator's module that did not import the registry
    registered nothing (and importing it here would cost a start the call path)."""
    registry = sys.modules.get("github_mcp.pipeline.registry")
    if registry is None:
        return {}
    return {name: (spec.toolset.value, spec.write) for name, spec in registry.REGISTRY.items()}
