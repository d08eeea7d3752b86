"""MCP Tasks (the `io.modelcontextprotocol/tasks` extension of the 2026-07-28 revision) over
stdio: the same wire as over HTTP (serving/tasks.py), kept in the process that serves the
client, since over stdio the process is the client's alone.

A `tools/call` of a long tool (`tasks=True` in its declaration) from a request that
declared the extension is answered at once with a task; the call runs beside the client's
later requests, through the call seam like any other (gate, approval binding, audit). A
question the call has for the human (an approval) ends the run there: the task shows
`input_required` with the question, and `tasks/update` with the answer runs the call again
with it, as a 2026-07-28 retry would. `tasks/cancel` cancels the run: its command is
stopped the way a cancelled call's is. A task is kept for TTL_MS after it last changed.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from github_mcp.monitoring.observability import log_event
from github_mcp.serving.request_meta import RpcError

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.serving.request_meta import RequestMeta

EXTENSION = "io.modelcontextprotocol/tasks"
METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
MISSING_CAPABILITY = -32021  # the client did not declare the extension for this request
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
TTL_MS = 15 * 60 * 1000  # as long as the HTTP engine keeps a finished task
POLL_INTERVAL_MS = 1000
TERMINAL = frozenset({"completed", "failed", "cancelled"})

# one run of the call with the answers given so far: its tools/call result on the wire
Leg = Callable[[dict[str, Any], Callable[[str], None]], Awaitable[dict[str, Any]]]


def offered(settings: Settings) -> bool:
    """GITHUB_MCP_TASKS (and not under OAuth), as over HTTP (tasks.py's tasks_offered)."""
    return settings.tasks_enabled and settings.auth_mode != "oauth"


def declared(asks: RequestMeta) -> bool:
    """Whether this 2026-07-28 request declared the extension in its capabilities."""
    extensions = asks.capabilities.get("extensions")
    settings = extensions.get(EXTENSION) if isinstance(extensions, dict) else None
    return asks.modern and isinstance(settings, dict)


def runs_as_task(rt: Runtime, name: Any, asks: RequestMeta) -> bool:
    """A long tool called by a request that declared the extension (when offered)."""
    entry = rt.bound_specs.entries.get(name) if isinstance(name, str) else None
    return entry is not None and entry.tasks and declared(asks) and offered(rt.settings)


def require_declared(asks: RequestMeta) -> None:
    if not declared(asks):
        raise RpcError(
            MISSING_CAPABILITY,
            f"This request targets the tasks extension ({EXTENSION}); the client did not "
            "declare it for this request.",
            {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
        )


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class Task:
    task_id: str
    leg: Leg
    created_at: str = field(default_factory=_now)
    status: str = "working"
    status_message: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)  # result, error or inputRequests
    answers: dict[str, Any] = field(default_factory=dict)  # every inputResponse so far
    running: asyncio.Task[None] | None = None
    changed: float = field(default_factory=time.monotonic)

    def fields(self, last_updated: str) -> dict[str, Any]:
        found = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": self.created_at,
            "lastUpdatedAt": last_updated,
            "ttlMs": TTL_MS,
            "pollIntervalMs": POLL_INTERVAL_MS,
        }
        if self.status_message is not None:
            found["statusMessage"] = self.status_message
        return found

    def settle(self, status: str, message: str | None = None, **payload: Any) -> None:
        """The run's outcome, unless the task was cancelled meanwhile."""
        if self.status in TERMINAL:
            return
        self.status, self.status_message, self.payload = status, message, payload
        self.changed = time.monotonic()


class TaskTable:
    """The tasks of this process's client (see the module docstring); at most `concurrency`
    run at once (GITHUB_MCP_TASKS_CONCURRENCY, as an HTTP worker), the others wait,
    `working`, for a slot."""

    def __init__(self, concurrency: int) -> None:
        self.tasks: dict[str, Task] = {}
        self._slots = asyncio.Semaphore(concurrency)

    def create(self, leg: Leg) -> dict[str, Any]:
        """Start the call as a task; its CreateTaskResult."""
        self._forget_expired()
        task = Task(secrets.token_urlsafe(32), leg)
        self.tasks[task.task_id] = task
        self._run(task)
        log_event("stdio_task_created", task=task.task_id[:8])
        return {**task.fields(task.created_at), "resultType": "task"}

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """tasks/get, tasks/update or tasks/cancel (the caller checked the extension)."""
        task_id = params.get("taskId")
        if not isinstance(task_id, str):
            raise RpcError(INVALID_PARAMS, "taskId must be a string")
        task = self.tasks.get(task_id)
        if task is None:
            raise RpcError(INVALID_PARAMS, f"Task {task_id[:100]} not found")
        if method == "tasks/get":
            return {**task.fields(_now()), **task.payload}
        if method == "tasks/cancel":
            self._cancel(task)
        else:
            self._update(task, params.get("inputResponses"))
        return {}

    async def close(self) -> None:
        """Cancel every running task and wait for them to stop (the client is gone)."""
        running = [t.running for t in self.tasks.values() if t.running is not None]
        for task in self.tasks.values():
            self._cancel(task)
        await asyncio.gather(*running, return_exceptions=True)

    def _run(self, task: Task) -> None:
        task.status, task.status_message, task.payload = "working", None, {}
        task.running = asyncio.ensure_future(self._leg(task))

    async def _leg(self, task: Task) -> None:
        def progress(message: str) -> None:
            if task.status == "working":
                task.status_message = message[:500]

        try:
            async with self._slots:
                wire = await task.leg(dict(task.answers), progress)
        except asyncio.CancelledError:
            task.settle("cancelled")
            raise
        except Exception as exc:  # the seam turns failures into envelopes; never here
            log_event("stdio_task_failed", exc_type=type(exc).__name__)
            error = {"code": INTERNAL_ERROR, "message": "Internal error"}
            task.settle("failed", "Internal error", error=error)
            return
        if wire.get("resultType") == "input_required":
            task.settle("input_required", inputRequests=wire.get("inputRequests") or {})
        else:
            task.settle("completed", result={**wire, "resultType": "complete"})

    def _update(self, task: Task, responses: Any) -> None:
        """Answers to the task's questions: once each has one, the call runs again with
        them. Unknown keys, or a task not waiting, change nothing."""
        if not isinstance(responses, dict):
            raise RpcError(INVALID_PARAMS, "inputResponses must be an object")
        asked = task.payload.get("inputRequests") if task.status == "input_required" else None
        matched = {k: v for k, v in responses.items() if asked and k in asked}
        if not asked or not matched:
            return
        task.answers.update(matched)
        left = {k: v for k, v in asked.items() if k not in matched}
        if left:
            task.payload = {"inputRequests": left}
            return
        self._run(task)

    def _cancel(self, task: Task) -> None:
        if task.status in TERMINAL:
            return  # a finished task stays as it finished
        task.settle("cancelled")
        if task.running is not None:
            task.running.cancel()

    def _forget_expired(self) -> None:
        oldest = time.monotonic() - TTL_MS / 1000
        for task_id, task in list(self.tasks.items()):
            if task.status in TERMINAL and task.changed < oldest:
                del self.tasks[task_id]
