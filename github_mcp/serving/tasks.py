"""MCP Tasks (the `io.modelcontextprotocol/tasks` extension of the 2026-07-28 revision)
over HTTP, on fastmcp-tasks and its Docket queue.

A long tool (`tasks=True` in its declaration: tests, commands, clones, commits, waits)
called by a 2026-07-28 client that declared the extension is answered at once with a
task; a worker runs the call through the call seam like any other (gate, approval
binding, audit), and `tasks/get` reports its progress and then its result. A question
for the human (an approval) becomes the task's input request, answered with
`tasks/update`.

Where tasks live: `memory://` by default (this process queues and runs them, nothing to
set up), or Redis (GITHUB_MCP_TASKS_URL, else GITHUB_MCP_STATE_URL): every replica and
every `python -m github_mcp tasks-worker` process then shares one queue, any replica
answers `tasks/get`, and a task whose worker dies is taken up by another.

Over stdio the stdio server offers the same extension itself, its tasks kept in the
serving process (stdio_tasks.py).
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from fastmcp.server.dependencies import get_http_headers
from fastmcp.utilities.tasks import TaskConfig

from github_mcp.pipeline.peer import Elicitation

if TYPE_CHECKING:
    from fastmcp import FastMCP

    from github_mcp.config import Settings

# how often a client is told to poll tasks/get
POLL_INTERVAL = timedelta(seconds=1)
TASK_CONFIG = {
    "optional": TaskConfig(mode="optional", poll_interval=POLL_INTERVAL),
    "forbidden": TaskConfig(mode="forbidden"),
}
QUEUE_NAME = "github-mcp"


def tasks_url(settings: Settings) -> str:
    """The queue's backend: GITHUB_MCP_TASKS_URL, else the shared state's Redis, else
    this process's memory."""
    for configured in (settings.tasks_url, settings.state_url):
        if configured is not None and configured.get_secret_value():
            return configured.get_secret_value()
    return "memory://"


def tasks_offered(settings: Settings) -> bool:
    """GITHUB_MCP_TASKS, but not under OAuth: a call there acts with its user's GitHub
    token, set per request by the sign-in middleware, which a worker does not run."""
    return settings.tasks_enabled and settings.auth_mode != "oauth"


def add_tasks(mcp: FastMCP, settings: Settings) -> None:
    """Offer the Tasks extension on `mcp` (unless GITHUB_MCP_TASKS=false)."""
    if not tasks_offered(settings):
        return
    from fastmcp_tasks import TasksExtension

    # the lease a worker renews while it runs a task; a dead worker's task is taken
    # over once it lapses (see `refuse_rerun`)
    lease = timedelta(seconds=settings.tasks_lease_seconds)
    extension = TasksExtension(
        url=tasks_url(settings),
        name=QUEUE_NAME,
        redelivery_timeout=lease,
        concurrency=settings.tasks_concurrency,
    )
    mcp.add_extension(extension)


def refuse_rerun(write: bool) -> None:
    """On a worker that took over the task of a worker that died: a read runs again from
    the start, a write does not (it may have happened, in part or whole): the task fails
    and says so, so nothing is ever done twice."""
    from docket.dependencies import current_execution
    from mcp.shared.exceptions import MCPError

    try:
        taken_over = current_execution.get().redelivered
    except LookupError:
        return
    if taken_over and write:
        raise MCPError(
            code=-32603,
            message="The worker running this task stopped before the call finished, so "
            "whether its write happened is unknown; it was not run again. Read the state "
            "the write would change (the branch, the clone, the pull request) before "
            "calling again.",
        )


def task_peer(peer: Any) -> None:
    """A FrameworkPeer inside a task: the caller is the 2026-07-28 client that created
    it (its token and headers restored by the worker), reached over HTTP, with no
    connection to send anything on; its questions become the task's input requests."""
    peer.transport = "http" if get_http_headers(include_all=True) else "memory"
    peer.modern = True
    peer.elicitation = Elicitation(form=True, url=True)
    peer.shows_cards = False
    peer._enabled = set()


def task_base_url() -> str | None:
    """The address the task's creator reached this server at (approval links), from
    the request's headers kept with the task: GITHUB_MCP_PUBLIC_URL, when set, wins."""
    headers = get_http_headers(include_all=True)
    host = headers.get("host")
    if not host:
        return None
    scheme = headers.get("x-forwarded-proto", "http").split(",")[0].strip() or "http"
    return f"{scheme}://{host}"


async def serve_tasks_forever(mcp: FastMCP) -> None:
    """The server's task queue, run until cancelled (no transport is served)."""
    from github_mcp.kernel.framework_internals import run_lifespan

    async with run_lifespan(mcp):
        await asyncio.Event().wait()
