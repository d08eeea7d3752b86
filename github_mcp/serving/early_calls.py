"""Reads answered over stdio while the MCP framework is still loading.

Loading the MCP framework takes most of a second; a client that sends a call as soon as it
has the tool list would wait for all of it. The call path itself (pipeline/) does not
need the framework, so while it loads, `EarlyCalls` answers the read calls it can answer
exactly as the server would, on the same Runtime and event loop the server then uses (one
cache, one flow-guard record, one audit log):

- a `tools/call` of a read tool this server selects that needs nothing of the server
  (`needs_server`: the session, as find_tools does, or the bound tools, as describe_tool
  does), with arguments that validate (the
  same pydantic validation of the handler's signature the framework does) and no `_meta`
  (a progress token or other request metadata is the server's business);
- the answer is the pipeline's answer as MCP puts it on the wire (ToolAnswer.wire).

Anything else (a write, an invalid argument, an unknown tool) is held by the stdio front
and reaches the server, in order, once it runs: its errors are the server's own. A call
answered here sends the client the log notifications the server would (at or above the
level the client set with `logging/setLevel`, else `info`), and no progress (it carried
no token).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from github_mcp.monitoring import client_log
from github_mcp.monitoring.observability import CURRENT_CALL_ID, log_event
from github_mcp.pipeline.answer import ToolAnswer
from github_mcp.pipeline.call_scope import LOGGER_NAME
from github_mcp.pipeline.registry import run_tool, selected_specs

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.tool_spec import ToolSpec

Answer = Callable[[Any, dict[str, Any]], None]  # (request id, JSON-RPC body without id)
Notify = Callable[[str, dict[str, Any]], None]  # (method, params)
SEVERITY = {"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5}


class EarlyCalls:
    """The read calls taken before the server runs; `accepts` is called from the front's
    reading thread, everything else on the event loop."""

    def __init__(
        self,
        rt: Runtime,
        loop: asyncio.AbstractEventLoop,
        answer: Answer,
        notify: Notify,
        log_level: Callable[[], str],
    ) -> None:
        self.rt = rt
        self.loop = loop
        self._answer = answer
        self._notify = notify
        self._log_level = log_level
        self._reads = {spec.name: spec for spec in selected_specs(rt) if _early(spec)}
        self._adapters: dict[str, TypeAdapter[Any]] = {}
        self._running: set[asyncio.Task[None]] = set()
        self._idle = asyncio.Event()
        self._idle.set()
        self.taken = 0

    def accepts(self, message: dict[str, Any]) -> bool:
        """Take this `tools/call` (True), or leave it for the server (False)."""
        params, request_id = message.get("params"), message.get("id")
        if not isinstance(request_id, str | int) or isinstance(request_id, bool):
            return False  # not a valid JSON-RPC id: the server's error
        if not isinstance(params, dict) or params.get("_meta") is not None:
            return False
        name, arguments = params.get("name"), params.get("arguments")
        spec = self._reads.get(name) if isinstance(name, str) else None
        if spec is None or not isinstance(arguments, dict):
            return False
        kwargs = self._validated(spec, arguments)
        if kwargs is None:
            return False  # the server answers with its own refusal
        self.loop.call_soon_threadsafe(self._start, request_id, spec, kwargs)
        return True

    async def idle(self) -> None:
        """Returns once no early call is running."""
        await asyncio.sleep(0)  # let calls scheduled from the front start
        await self._idle.wait()

    def _validated(self, spec: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any] | None:
        adapter = self._adapters.get(spec.name)
        if adapter is None:
            adapter = self._adapters[spec.name] = TypeAdapter(_arguments_of(spec))  # type: ignore[arg-type]
        try:
            kwargs = adapter.validate_python(arguments)
        except (ValidationError, TypeError, ValueError):
            return None
        return kwargs if isinstance(kwargs, dict) else None

    def _start(self, request_id: Any, spec: ToolSpec, kwargs: dict[str, Any]) -> None:
        self.taken += 1
        self._idle.clear()
        task = self.loop.create_task(self._run(request_id, spec, kwargs))
        self._running.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        if not self._running:
            self._idle.set()

    async def _run(self, request_id: Any, spec: ToolSpec, kwargs: dict[str, Any]) -> None:
        log_event("early_call", tool=spec.name)
        try:
            with client_log.bind(self._client_log):
                answer = await run_tool(spec, self.rt, kwargs, None)
        except Exception as exc:  # the pipeline turns failures into envelopes; never here
            log_event("early_call_failed", tool=spec.name, exc_type=type(exc).__name__)
            answer = None
        if isinstance(answer, ToolAnswer):
            self._answer(request_id, {"result": answer.wire()})
        else:
            error = {"code": -32603, "message": "Internal error"}
            self._answer(request_id, {"error": error})

    async def _client_log(self, level: str, message: str, fields: dict[str, Any]) -> None:
        """The server's `notifications/message` for a call's log line (call_scope.py)."""
        if SEVERITY.get(level, 0) < SEVERITY.get(self._log_level(), 1):
            return
        data = {"msg": message, "extra": {"call_id": CURRENT_CALL_ID.get()}}
        self._notify("notifications/message", {"level": level, "logger": LOGGER_NAME, "data": data})


def _early(spec: ToolSpec) -> bool:
    """A read that needs nothing of the server: no session, no bound tools."""
    return not spec.write and not spec.needs_server and spec.read_only_hint is not False


def _arguments_of(spec: ToolSpec) -> Callable[..., dict[str, Any]]:
    """A function with the handler's parameters (less `call`) that returns its arguments:
    validating a call against it is the framework's validation of the tool's arguments."""
    params, _ = spec.signature()

    def arguments(**kwargs: Any) -> dict[str, Any]:
        return kwargs

    signature = inspect.Signature(list(params))
    arguments.__signature__ = signature  # type: ignore[attr-defined]
    arguments.__annotations__ = {p.name: p.annotation for p in params}
    return arguments
