"""MCP over stdio, served by the package itself: newline-delimited JSON-RPC on the process's
stdin and stdout, on one event loop, without the MCP framework on the way.

Loading the framework costs most of a second (its protocol models alone are a quarter of
one), so the stdio server answers the protocol itself:

- the opening: `initialize` (the handshake revisions) or, for a 2026-07-28 client,
  `server/discover`; `ping`, `logging/setLevel`, cancellations;
- `tools/list` from the tool index (apps/listing.py, no tool imported), and every
  `tools/call` through the call seam (pipeline/seam.py) with a StdioPeer, in the order the
  client sent them (the seam's CallOrder); questions for the human go to the client as
  `elicitation/create` requests, or as the 2026 revision's input_required result;
- prompts, resources and completions from catalog/'s definitions (stdio_guides.py), the
  same the HTTP server registers on the framework.

For a 2026-07-28 client, also the Tasks extension (stdio_tasks.py: a long call answered
at once with a task, then `tasks/get`, `tasks/update`, `tasks/cancel`) and
`subscriptions/listen` (stdio_listen.py: list changes and watched workflow runs), as the
HTTP server offers them; `server/discover` advertises the same capabilities.

The era is the client's first request's: `initialize` opens a handshake session; a request
whose `_meta` names the 2026-07-28 revision opens a stateless one. After the opening, the
served tools' modules are imported while the client reads the list (served.py `warm`), so
a first call right after the listing does not pay for them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from github_mcp.apps.listing import tool_list
from github_mcp.catalog.tool_catalog import view_of
from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.peer import CallOrder
from github_mcp.pipeline.runtime import SERVER_NAME, VERSION
from github_mcp.pipeline.schema_listing import SHARED_NOTE
from github_mcp.serving import request_meta
from github_mcp.serving.request_meta import RequestMeta, RpcError
from github_mcp.serving.stdio_modern import ModernMethods

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

SERVER_INFO = {"name": SERVER_NAME, "version": VERSION}
INSTRUCTIONS = (
    "GitHub MCP Controller: read repositories cheaply, change code on feature branches with "
    "verified commits, run tests in a workspace, and drive pull requests. Writes to default "
    "or protected branches need approval (see get_server_config). " + SHARED_NOTE
)
CAPABILITIES = {
    "completions": {},
    "logging": {},
    "prompts": {"listChanged": True},
    "resources": {"listChanged": True, "subscribe": False},
    "tools": {"listChanged": True},
}
# as the HTTP server advertises to a 2026-07-28 client: list changes and resource
# updates travel on subscriptions/listen streams
MODERN_CAPABILITIES = {**CAPABILITIES, "resources": {"listChanged": True, "subscribe": True}}
EXTENSIONS: dict[str, Any] = {"io.modelcontextprotocol/ui": {}}
TASK_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
METHOD_NOT_FOUND = -32601
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
GUIDE_METHODS = frozenset(
    {
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "completion/complete",
    }
)

Write = Callable[[dict[str, Any]], None]


class StdioServer(ModernMethods):
    """One client's session over stdio (see the module docstring)."""

    def __init__(self, rt: Runtime, write: Write) -> None:
        self.rt = rt
        self.write = write
        self.era: str | None = None  # "handshake" or "modern", from the first request
        self.capabilities: dict[str, Any] = {}  # a handshake client's, from initialize
        self.log_level = request_meta.SERVER_FLOOR
        self.enabled: set[str] = set()
        self.order = CallOrder()
        self.running: dict[str, asyncio.Task[None]] = {}  # request id (as JSON) -> call
        self.asked: dict[str, asyncio.Future[Any]] = {}  # our request id -> its answer
        self._next_id = 0
        self.guides: Any = None  # stdio_guides.Guides, built on first use
        self.on_opened: Callable[[], None] | None = None  # after the first tools/list
        self.listening: dict[str, asyncio.Task[None]] = {}  # listen request id -> stream
        self.answered_at_once: dict[str, Callable[[dict[str, Any], RequestMeta], Any]] = {
            "initialize": self._initialize,
            "server/discover": self._discover,
            "ping": lambda params, asks: {},
            "logging/setLevel": self._set_level,
            "tools/list": self._tools_list,
        }

    # -- messages ------------------------------------------------------------------------

    def receive(self, line: bytes) -> None:
        """One line from the client; calls run as tasks, in the order read."""
        try:
            message = json.loads(line)
        except ValueError:
            self._error(None, -32700, "Parse error")
            return
        if not isinstance(message, dict):
            self._error(None, INVALID_REQUEST, "Invalid Request: not a JSON object")
            return
        if "method" not in message:
            self._answered(message)
            return
        method, ident = message.get("method"), message.get("id")
        if "id" not in message:
            self._notification(method, message.get("params"))
        elif not isinstance(ident, str | int) or isinstance(ident, bool):
            self._error(None, INVALID_REQUEST, "Invalid Request: id must be a string or number")
        else:
            self._request(ident, method, message.get("params"))

    def _request(self, ident: Any, method: Any, params: Any) -> None:
        if params is not None and not isinstance(params, dict):
            self._error(ident, INVALID_PARAMS, "params must be an object")
            return
        params = params or {}
        try:
            asks = request_meta.parse(params.get("_meta"))
            self._check_era(method, asks)
        except RpcError as exc:
            self._error(ident, exc.code, exc.message, exc.data)
            return
        handler = self.answered_at_once.get(method)
        if handler is not None:
            self._answer_now(ident, asks, lambda: handler(params, asks))
        elif method in TASK_METHODS and asks.modern:
            self._answer_now(ident, asks, lambda: self._task_method(method, params, asks))
        elif method == "tools/call":
            self._start(ident, self._call(ident, params, asks))
        elif method in GUIDE_METHODS:
            self._start(ident, self._guide(ident, method, params, asks))
        elif method == "subscriptions/listen" and asks.modern:
            self._start(ident, self._listen(ident, params, asks), self.listening)
        else:
            self._error(ident, METHOD_NOT_FOUND, f"Method not found: {method}")

    def _check_era(self, method: Any, asks: RequestMeta) -> None:
        """The first request decides the era; a request of the other era is refused."""
        era = "modern" if asks.modern else "handshake"
        if method == "initialize" and asks.modern:
            raise RpcError(INVALID_REQUEST, "initialize carries no 2026-07-28 _meta")
        if self.era is None:
            self.era = "modern" if asks.modern else "handshake"
        elif era != self.era and method != "ping":
            if self.era == "modern":
                raise RpcError(
                    INVALID_REQUEST,
                    "This connection serves the 2026-07-28 protocol: each request names it "
                    "in its _meta, with the client's capabilities",
                )
            raise RpcError(INVALID_REQUEST, "This connection opened with initialize")

    def _notification(self, method: Any, params: Any) -> None:
        params = params if isinstance(params, dict) else {}
        if method == "notifications/cancelled":
            key = json.dumps(params.get("requestId"))
            task = self.running.get(key) or self.listening.get(key)
            if task is not None:
                task.cancel()  # no answer, as the protocol says
        # notifications/initialized, roots/list_changed…: nothing to do

    def _answered(self, message: dict[str, Any]) -> None:
        """The client's answer to one of our requests (an elicitation)."""
        waiting = self.asked.pop(json.dumps(message.get("id")), None)
        if waiting is None or waiting.done():
            return
        if "error" in message:
            error = message["error"] if isinstance(message["error"], dict) else {}
            waiting.set_exception(RpcError(error.get("code", 0), str(error.get("message"))))
        else:
            waiting.set_result(message.get("result"))

    # -- answers ---------------------------------------------------------------------------

    def _answer_now(self, ident: Any, asks: RequestMeta, make: Callable[[], Any]) -> None:
        try:
            result = make()
        except RpcError as exc:
            self._error(ident, exc.code, exc.message, exc.data)
            return
        self._result(ident, result, asks)

    def _result(self, ident: Any, result: dict[str, Any], asks: RequestMeta) -> None:
        self.write(
            {
                "jsonrpc": "2.0",
                "id": ident,
                "result": request_meta.shaped(result, asks, SERVER_INFO),
            }
        )

    def _error(self, ident: Any, code: int, message: str, data: Any = None) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.write({"jsonrpc": "2.0", "id": ident, "error": error})

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.write({"jsonrpc": "2.0", "method": method, "params": params})

    async def ask(self, method: str, params: dict[str, Any]) -> Any:
        """A request to the client (an elicitation); its result, when it answers."""
        self._next_id += 1
        ident = f"server-{self._next_id}"
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.asked[json.dumps(ident)] = answer
        self.write({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        try:
            return await answer
        finally:
            self.asked.pop(json.dumps(ident), None)

    def _start(
        self, ident: Any, work: Awaitable[None], table: dict[str, asyncio.Task[None]] | None = None
    ) -> None:
        """Run `work` for request `ident`, kept in `table` (the calls, else the listen
        streams, which neither keep the process up at end of input nor count as calls)."""
        key = json.dumps(ident)
        kept = self.running if table is None else table
        task = asyncio.ensure_future(work)
        kept[key] = task
        task.add_done_callback(lambda _: kept.pop(key, None))

    # -- the opening ------------------------------------------------------------------------

    def _initialize(self, params: dict[str, Any], asks: RequestMeta) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        versions = request_meta.HANDSHAKE_VERSIONS
        version = requested if requested in versions else versions[-1]
        capabilities = params.get("capabilities")
        self.capabilities = capabilities if isinstance(capabilities, dict) else {}
        log_event("client_initialized", protocol=version, client=_client_name(params))
        return {
            "protocolVersion": version,
            "capabilities": CAPABILITIES,
            "serverInfo": SERVER_INFO,
            "instructions": INSTRUCTIONS,
        }

    def _discover(self, params: dict[str, Any], asks: RequestMeta) -> dict[str, Any]:
        from github_mcp.serving import stdio_tasks

        extensions: dict[str, Any] = dict(EXTENSIONS)
        if stdio_tasks.offered(self.rt.settings):
            extensions[stdio_tasks.EXTENSION] = {}
        return {
            "supportedVersions": list(request_meta.MODERN_VERSIONS),
            "capabilities": {**MODERN_CAPABILITIES, "extensions": extensions},
            "serverInfo": SERVER_INFO,
            "instructions": INSTRUCTIONS,
            "ttlMs": 0,
            "cacheScope": "private",
        }

    def _set_level(self, params: dict[str, Any], asks: RequestMeta) -> dict[str, Any]:
        level = params.get("level")
        if level not in request_meta.SEVERITY:
            raise RpcError(INVALID_PARAMS, f"unknown log level {level!r}")
        self.log_level = level
        return {}

    def _tools_list(self, params: dict[str, Any], asks: RequestMeta) -> dict[str, Any]:
        view = view_of(self.rt.settings, {})
        ui = _ui(self._capabilities(asks))
        tools = tool_list(self.rt, view, self.enabled, ui=ui, headers=False)  # no HTTP headers
        result: dict[str, Any] = {"tools": tools}
        if asks.modern:
            result.update(ttlMs=0, cacheScope="private")
        if self.on_opened is not None:
            log_event("stdio_listed", tools=len(tools))  # the warm-up starts after this
            opened, self.on_opened = self.on_opened, None
            asyncio.get_running_loop().call_soon(opened)
        return result

    def _capabilities(self, asks: RequestMeta) -> dict[str, Any]:
        return asks.capabilities if asks.modern else self.capabilities

    # -- calls ----------------------------------------------------------------------------------

    def _peer(self, params: dict[str, Any], asks: RequestMeta, **task: Any) -> Any:
        """The StdioPeer of a request's call (a TaskPeer, given `on_progress`)."""
        from github_mcp.serving.stdio_peer import StdioPeer, TaskPeer

        kind = TaskPeer if task else StdioPeer
        return kind(
            view_of(self.rt.settings, {}),
            meta=params.get("_meta") or {},
            answers=task.pop("answers", params.get("inputResponses")),
            asks=asks,
            capabilities=self._capabilities(asks),
            session_level=self.log_level,
            enabled=self.enabled,
            order=task.pop("order", self.order),
            notify=self.notify,
            ask=self.ask,
            publish=self._publish,
            **task,
        )

    async def _call(self, ident: Any, params: dict[str, Any], asks: RequestMeta) -> None:
        # the call machinery is imported here or by the warm-up, never before the listing
        from github_mcp.pipeline import seam
        from github_mcp.serving import stdio_tasks

        if stdio_tasks.runs_as_task(self.rt, params.get("name"), asks):
            self._result(ident, self._create_task(params, asks), asks)
            return
        try:
            wire = await self._seam_call(seam, self._peer(params, asks), params)
        except Exception as exc:  # the seam turns failures into envelopes; never here
            log_event("stdio_call_failed", exc_type=type(exc).__name__)
            self._error(ident, INTERNAL_ERROR, "Internal error")
            return
        self._result(ident, wire, asks)

    async def _seam_call(self, seam: Any, peer: Any, params: dict[str, Any]) -> dict[str, Any]:
        from github_mcp.pipeline.answer import ToolAnswer
        from github_mcp.pipeline.peer import InputRequired

        answer = await seam.call_tool(self.rt, peer, params.get("name"), params.get("arguments"))
        return answer.wire() if isinstance(answer, InputRequired | ToolAnswer) else {}

    async def _guide(
        self, ident: Any, method: str, params: dict[str, Any], asks: RequestMeta
    ) -> None:
        from github_mcp.serving.stdio_guides import Guides

        if self.guides is None:
            self.guides = Guides(self.rt, view_of(self.rt.settings, {}))
        ui = _ui(self._capabilities(asks))
        try:
            result = await self.guides.answer(method, params, ui=ui, modern=asks.modern)
        except RpcError as exc:
            self._error(ident, exc.code, exc.message, exc.data)
            return
        self._result(ident, result, asks)


def _ui(capabilities: dict[str, Any]) -> bool:
    from github_mcp.apps.listing import declares_ui

    return declares_ui(capabilities)


def _client_name(params: dict[str, Any]) -> str | None:
    info = params.get("clientInfo")
    name = info.get("name") if isinstance(info, dict) else None
    return name[:100] if isinstance(name, str) else None
