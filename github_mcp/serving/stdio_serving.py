"""Serving over stdio: early reads while the MCP framework loads, then the server.

In order, on one event loop:
1. the tools are registered and, when the stdio front runs, early calls are offered to
   `EarlyCalls` (early_calls.py); calls already waiting are taken first;
2. once no early call is running (so the two do not share the CPU), the MCP framework is
   imported on a worker thread, while the loop goes on answering early calls;
3. the server is built on this loop and the front releases what it held to it;
4. the server reads stdin until the client closes it.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING

from github_mcp.serving import stdio_front
from github_mcp.tools import import_extension_tools

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime


def serve_stdio(rt: Runtime) -> int:
    try:
        asyncio.run(_serve(rt))
    finally:
        stdio_front.finish()
    return 0


async def _serve(rt: Runtime) -> None:
    from github_mcp.monitoring.gc_tuning import tune_for_serving
    from github_mcp.serving.early_calls import EarlyCalls

    import_extension_tools()  # before early calls: the operator's tools are the server's
    if stdio_front.active():
        early = EarlyCalls(rt, asyncio.get_running_loop(), stdio_front.reply)
        stdio_front.attach_early(early.accepts)
        await early.idle()
    server = await asyncio.to_thread(importlib.import_module, "github_mcp.serving.server")
    mcp = server.build_mcp(rt)
    stdio_front.release_held()
    tune_for_serving()
    await mcp.run_async(transport="stdio", show_banner=False)
