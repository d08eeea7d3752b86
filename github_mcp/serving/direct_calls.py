"""Tool calls over stdio answered by the pipeline directly, without the MCP framework:
before the framework has loaded, and after.

Loading the MCP framework takes most of a second; a client that sends a call as soon as it
has the tool list would wait for all of it. And once it runs, the framework's handling of
a call (its JSON-RPC models, middleware, session and stream tasks, and four thread hops
through the stdio relay) costs more CPU than the call itself. The call path (pipeline/)
does not need any of it, so `DirectCalls` answers the calls it can answer exactly as the
server would, on the same Runtime and event loop the server uses (one cache, one
flow-guard record, one gate with its approvals, one audit log):

- a `tools/call` of a tool this server selects that needs nothing of the server
  (`needs_server`: the session, as find_tools uses, or the bound tools, as describe_tool
  does): a read; or a write while the approval mode is not `auto`, the one mode where the
  gate may ask a human through the session (elicitation); in the others the pipeline's
  gate decides on the approvals the process holds, as it does for the server;
- with arguments that pass the same pydantic validation of the handler's signature the
  framework applies, and no `_meta` beyond a progress token (or the 2026 revision's);
- the answer is the pipeline's answer as MCP puts it on the wire (ToolAnswer.wire), after
  the notifications the server would send: progress for the request's token, and log
  messages at or above the level the client set with `logging/setLevel` (else `info`).

Anything else (a write in `auto` mode, an invalid argument, an unknown tool, other
`_meta`, such as an idempotency key) goes to the server (held by the stdio front until the
server reads): its errors are the server's own. A call the client cancels
(`notifications/cancelled`) is stopped and not answered, as the server would do.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from github_mcp.monitoring import client_log
from github_mcp.monitoring.observability import CURRENT_CALL_ID, log_event
from github_mcp.pipeline.answer import ToolAnswer
from github_mcp.pipeline.call_scope import LOGGER_NAME
from github_mcp.pipeline.registry import run_tool, selected_specs
from github_mcp.pipeline.runtime import SERVER_NAME, VERSION
from github_mcp.pipeline.spec import PROGRESS
from github_mcp.serving import request_meta
from github_mcp.serving.request_meta import RequestMeta

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.tool_spec import ToolSpec

Answer = Callable[[Any, dict[str, Any]], None]  # (request id, JSON-RPC body without id)
Notify = Callable[[str, dict[str, Any]], None]  # (method, params)
SERVER_INFO = {"name": SERVER_NAME, "version": VERSION}


class DirectCalls:
    """The calls taken directly; `accepts` and `cancel` are called from the front's
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
        self._taken: dict[str, ToolSpec] = {}
        self.refresh()
        self._adapters: dict[str, TypeAdapter[Any]] = {}
        self._running: dict[Any, asyncio.Task[None]] = {}  # by request id
        self.server_runs = False  # once it does, each call is logged at debug level only
        self._idle = asyncio.Event()
        self._idle.set()

    def refresh(self) -> None:
        """The tools to take, from what is registered now (a first call's module may have
        been imported before the others)."""
        mode = self.rt.settings.approval_mode
        self._taken = {s.name: s for s in selected_specs(self.rt) if _direct(s, mode)}

    def accepts(self, message: dict[str, Any]) -> bool:
        """Take this `tools/call` (True), or leave it for the server (False)."""
        params, request_id = message.get("params"), message.get("id")
        if not isinstance(request_id, str | int) or isinstance(request_id, bool):
            return False  # not a valid JSON-RPC id: the server's error
        if not isinstance(params, dict):
            return False
        asks = request_meta.parse(params.get("_meta"))
        if asks is None:
            return False  # request metadata this path does not answer: the server's business
        name, arguments = params.get("name"), params.get("arguments")
        spec = self._taken.get(name) if isinstance(name, str) else None
        if spec is None or not isinstance(arguments, dict):
            return False
        kwargs = self._validated(spec, arguments)
        if kwargs is None:
            return False  # the server answers with its own refusal
        self.loop.call_soon_threadsafe(self._start, request_id, spec, kwargs, asks)
        return True

    def cancel(self, request_id: Any) -> None:
        self.loop.call_soon_threadsafe(self._cancel, request_id)

    def _cancel(self, request_id: Any) -> None:
        task = self._running.get(request_id) if isinstance(request_id, str | int) else None
        if task is not None:
            task.cancel()  # no answer, as the server would not answer either

    async def idle(self) -> None:
        """Returns once no direct call is running."""
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

    def _start(
        self, request_id: Any, spec: ToolSpec, kwargs: dict[str, Any], asks: RequestMeta
    ) -> None:
        self._idle.clear()
        task = self.loop.create_task(self._run(request_id, spec, kwargs, asks))
        self._running[request_id] = task
        task.add_done_callback(lambda _: self._done(request_id))

    def _done(self, request_id: Any) -> None:
        self._running.pop(request_id, None)
        if not self._running:
            self._idle.set()

    async def _run(
        self, request_id: Any, spec: ToolSpec, kwargs: dict[str, Any], asks: RequestMeta
    ) -> None:
        if asks.progress_token is not None:  # this task's context only
            PROGRESS.set(partial(self._progress, asks.progress_token))
        if self.server_runs:
            log_event("direct_call", level=logging.DEBUG, tool=spec.name)
        else:
            log_event("early_call", tool=spec.name)
        try:
            with client_log.bind(partial(self._client_log, asks)):
                answer = await run_tool(spec, self.rt, kwargs, None)
        except Exception as exc:  # the pipeline turns failures into envelopes; never here
            log_event("direct_call_failed", tool=spec.name, exc_type=type(exc).__name__)
            answer = None
        if isinstance(answer, ToolAnswer):
            result = request_meta.shaped(answer.wire(), asks, SERVER_INFO)
            self._answer(request_id, {"result": result})
        else:
            error = {"code": -32603, "message": "Internal error"}
            self._answer(request_id, {"error": error})

    async def _progress(self, token: Any, done: float, total: float | None, message: str) -> None:
        """The server's `notifications/progress` for this call's token."""
        params: dict[str, Any] = {"progressToken": token, "progress": done}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        self._notify("notifications/progress", params)

    async def _client_log(
        self, asks: RequestMeta, level: str, message: str, fields: dict[str, Any]
    ) -> None:
        """The server's `notifications/message` for a call's log line (call_scope.py)."""
        if not request_meta.sends_log(asks, level, self._log_level()):
            return
        data = {"msg": message, "extra": {"call_id": CURRENT_CALL_ID.get()}}
        self._notify("notifications/message", {"level": level, "logger": LOGGER_NAME, "data": data})


def _direct(spec: ToolSpec, approval_mode: str) -> bool:
    """A tool that needs nothing of the server (no session, no bound tools): a read, or a
    write while no approval asks a human through the session (every mode but `auto`,
    where the gate may ask by elicitation); the pipeline's gate decides the write."""
    if spec.needs_server:
        return False
    if spec.write or spec.read_only_hint is False:
        return approval_mode != "auto"
    return True


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
