"""The 2026-07-28 extensions of the stdio server (stdio_server.py): its Tasks
(stdio_tasks.py) and its `subscriptions/listen` streams (stdio_listen.py), each made on
first use."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from github_mcp.monitoring.observability import log_event
from github_mcp.serving.request_meta import RequestMeta, RpcError

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import CallOrder
    from github_mcp.pipeline.runtime import Runtime


class ModernMethods:
    """Tasks and listen streams, for StdioServer."""

    rt: Runtime
    order: CallOrder
    listening: dict[str, asyncio.Task[None]]  # listen request id (as JSON) -> its stream
    _tasks: Any = None  # stdio_tasks.TaskTable
    _listens: Any = None  # stdio_listen.Listens

    if TYPE_CHECKING:

        def notify(self, method: str, params: dict[str, Any]) -> None: ...
        def _peer(self, params: dict[str, Any], asks: RequestMeta, **task: Any) -> Any: ...
        def _error(self, ident: Any, code: int, message: str, data: Any = None) -> None: ...
        async def _seam_call(
            self, seam: Any, peer: Any, params: dict[str, Any]
        ) -> dict[str, Any]: ...

    async def close(self) -> None:
        """At end of input: listen streams end, running tasks are cancelled (nobody is
        left to read them) and stopped before the process exits."""
        for stream in list(self.listening.values()):
            stream.cancel()
        await asyncio.gather(*self.listening.values(), return_exceptions=True)
        if self._tasks is not None:
            await self._tasks.close()

    def _create_task(self, params: dict[str, Any], asks: RequestMeta) -> dict[str, Any]:
        """The task's CreateTaskResult; its runs wait for the calls sent before it, not
        the ones after (its answer came at once: the client goes on)."""
        from github_mcp.pipeline import seam
        from github_mcp.pipeline.peer import CallOrder, finished

        ahead, done = self.order.enter(True)
        finished(done)
        own = CallOrder()

        async def leg(answers: dict[str, Any], progress: Callable[[str], None]) -> Any:
            await asyncio.gather(*ahead)
            peer = self._peer(params, asks, answers=answers, order=own, on_progress=progress)
            return await self._seam_call(seam, peer, params)

        created: dict[str, Any] = self._task_table().create(leg)
        return created

    def _task_method(self, method: str, params: dict[str, Any], asks: RequestMeta) -> Any:
        from github_mcp.serving import stdio_tasks

        if not stdio_tasks.offered(self.rt.settings):
            raise RpcError(-32601, f"Method not found: {method}")  # as over HTTP
        stdio_tasks.require_declared(asks)
        return self._task_table().answer(method, params)

    def _task_table(self) -> Any:
        if self._tasks is None:
            from github_mcp.serving.stdio_tasks import TaskTable

            self._tasks = TaskTable(self.rt.settings.tasks_concurrency)
        return self._tasks

    def _publish(self, method: str) -> None:
        if self._listens is not None:
            self._listens.publish(method)

    async def _listen(self, ident: Any, params: dict[str, Any], asks: RequestMeta) -> None:
        from github_mcp.serving.stdio_listen import Listens

        if self._listens is None:
            self._listens = Listens(self.rt, self.notify)
        try:
            await self._listens.serve(ident, params, self._peer(params, asks))
        except RpcError as exc:
            self._error(ident, exc.code, exc.message, exc.data)
        except Exception as exc:  # the reads turn failures into RpcError; never here
            log_event("stdio_listen_failed", exc_type=type(exc).__name__)
            self._error(ident, -32603, "Internal error")
