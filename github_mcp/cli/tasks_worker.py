"""`tasks-worker`: a process that only runs MCP tasks from the replicas' shared queue
(serving/tasks.py), with the replicas' configuration; it serves no transport."""

from __future__ import annotations

import asyncio
import contextlib
import sys

from github_mcp.config import Settings
from github_mcp.monitoring.observability import log_event
from github_mcp.serving.tasks import QUEUE_NAME, serve_tasks_forever, tasks_url


def run_worker(settings: Settings) -> int:
    """Run tasks from the shared queue until SIGTERM or Ctrl-C. It needs Redis (a
    `memory://` queue lives inside one server process) and the same GitHub credentials
    and workspace settings as the replicas."""
    if tasks_url(settings).startswith("memory://"):
        print(
            "github-mcp: tasks-worker needs a shared queue: set GITHUB_MCP_TASKS_URL or "
            "GITHUB_MCP_STATE_URL to a redis:// URL (the one the replicas use).",
            file=sys.stderr,
        )
        return 2
    if not settings.tasks_enabled:
        print("github-mcp: tasks are off (GITHUB_MCP_TASKS=false)", file=sys.stderr)
        return 2
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.serving.server import build_mcp
    from github_mcp.serving.sigterm import sigterm_exits

    async def serve() -> None:
        rt = Runtime.create(settings)
        try:
            await serve_tasks_forever(build_mcp(rt))
        finally:
            await rt.aclose()

    log_event("tasks_worker_started", queue=QUEUE_NAME)
    with sigterm_exits(), contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return 0
