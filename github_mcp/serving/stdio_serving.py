"""Serving over stdio: the opening and early reads while the MCP framework loads, then
the server.

As soon as the settings are read, `offer_opening` gives the stdio front the shipped
answers to `initialize` and `tools/list` (shipped_opening.py), when they apply. Then, in
order, on one event loop:
1. when the stdio front runs, the calls already waiting are offered to `DirectCalls`
   (direct_calls.py) once only their tools' modules are imported (as the shipped file
   records them), so a first call does not wait for every tool; then every built-in tool
   is registered (in the order the server always lists them) and every later call is
   offered to `DirectCalls`;
2. once no direct call is running (so the two do not share the CPU), a worker thread pays
   what a first GitHub request would (the TLS context, the modules of a first
   connection) and imports the MCP framework, while the loop goes on answering direct
   calls;
3. the server is built on this loop and the front releases what it held to it;
4. the server serves everything else until the client closes its input, while direct
   calls keep going to `DirectCalls`.
"""

from __future__ import annotations

import asyncio
import importlib
import signal
import sys
from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import TYPE_CHECKING

from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.extension_tools import import_extension_tools
from github_mcp.serving import sigterm, stdio_front
from github_mcp.serving.shipped_opening import ShippedOpening
from github_mcp.serving.shipped_opening import load as load_shipped

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.tool_spec import ToolSpec
    from github_mcp.serving.direct_calls import DirectCalls
    from github_mcp.serving.stdio_front import Front


def serve_stdio(rt: Runtime) -> int:
    handler = signal.getsignal(signal.SIGTERM)
    try:
        asyncio.run(_serve(rt))
    finally:
        signal.signal(signal.SIGTERM, handler)  # closing the loop reset it to the default
        stdio_front.finish()
    return 0


_SHIPPED: ShippedOpening | None = None  # the shipped answers this start uses, if any


def offer_opening(settings: Settings) -> None:
    """As soon as the settings are read: the shipped `initialize` answer, then, once the
    operator's tools (if any) are registered, the shipped listing (shipped_opening.py)."""
    global _SHIPPED
    front = stdio_front.running()
    shipped = load_shipped(settings) if front is not None else None
    if front is None or shipped is None:
        return
    _SHIPPED = shipped
    front.opening.offer_initialize(shipped.initialize)
    front.offer_stateless("discover", shipped.discover)
    import_extension_tools()  # only the operator's module: the built-in ones are recorded
    listing = shipped.tools_list(_registered())
    log_event("shipped_opening", listing=listing is not None)
    front.opening.offer_listing(listing)
    front.offer_stateless("modern_list", partial(shipped.modern_listing, listing=listing))


async def _serve(rt: Runtime) -> None:
    from github_mcp.monitoring.gc_tuning import tune_for_serving
    from github_mcp.serving.direct_calls import DirectCalls

    sigterm.exit_from_loop(asyncio.get_running_loop())
    import_extension_tools()  # before early calls: the operator's tools are the server's
    front, direct = stdio_front.running(), None
    if front is None:
        import github_mcp.tools  # noqa: F401 - registers every built-in tool
    else:
        loop = asyncio.get_running_loop()
        direct = DirectCalls(rt, loop, front.reply, front.notify, lambda: front.log_level)
        await _register_tools(front, direct)
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


async def _register_tools(front: Front, direct: DirectCalls) -> None:
    """Every built-in tool, one module at a time when the shipped file says which module
    defines each tool: between two, the modules of the calls waiting for their tool go
    first, and those calls are answered, so a first call does not wait for every tool.
    The registry then takes the order of an import all at once (the listing's order)."""
    from github_mcp.pipeline import registry

    shipped, before = _SHIPPED, list(registry.REGISTRY)
    if shipped is None or "github_mcp.tools" in sys.modules:
        import github_mcp.tools  # noqa: F401 - registers every built-in tool
    else:
        registry.defer_tool_imports()
        import github_mcp.tools as builtin

        pending = [f"github_mcp.tools.{name}" for name in builtin.TOOL_MODULES]
        ahead: list[str] = []  # imported before their turn, for a waiting call
        while pending:
            waiting = {shipped.module_of(tool) or "" for tool in front.waiting_tools()}
            wanted = sorted(waiting & set(pending))
            for module in wanted or pending[:1]:
                importlib.import_module(module)
                pending.remove(module)
            if wanted:
                ahead += wanted
                await _take_waiting(front, direct)
        registry.reorder(_listing_order(shipped, before))
        log_event("tools_registered", tools=len(registry.REGISTRY), ahead=ahead)
    await _take_waiting(front, direct)


async def _take_waiting(front: Front, direct: DirectCalls) -> None:
    """Offer the held calls again, with what is registered now, and answer those taken."""
    direct.refresh()
    front.attach(direct.accepts, direct.cancel)
    await direct.idle()


def _listing_order(
    shipped: ShippedOpening, before: list[str]
) -> Callable[[ToolSpec], tuple[int, int]]:
    """What was registered before (the operator's tools), then the built-in ones in the
    order they were recorded in (an import all at once)."""
    first = {name: i for i, name in enumerate(before)}
    rank = {tool["name"]: i for i, tool in enumerate(shipped.recorded["tools"])}
    return lambda spec: (
        (0, first[spec.name]) if spec.name in first else (1, rank.get(spec.name, len(rank)))
    )


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
