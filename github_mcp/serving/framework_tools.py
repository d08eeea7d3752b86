"""The served tools on the MCP framework (fastmcp), for HTTP and in-process clients: the
framework carries the protocol, and every tools/call goes to the call seam
(pipeline/seam.py) with a Peer built from the framework's request.

- `SeamTool` is a tool whose run hands its raw arguments to the seam: the framework
  validates nothing of its own and adds no step (the seam validates, refuses, orders
  and runs the pipeline, as it does for the stdio server).
- `ServedToolsProvider` lists, per request, exactly what apps/listing.py lists for that
  client (the same function the stdio server lists with), and resolves any name to a
  SeamTool, so an unknown tool is refused by the seam too.
- `FrameworkPeer` reads the caller from the framework's public API: its principal (the
  access token), the session the server issued it, its capabilities and its `_meta`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from fastmcp.server.dependencies import (
    CurrentContext,
    get_access_token,
    get_context,
    get_http_headers,
    get_http_request,
)
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.server.providers import Provider
from fastmcp.tools import InputRequiredToolResult, Tool, ToolResult
from mcp.types import (
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    InputRequiredResult,
    TextContent,
)
from mcp.types import Tool as MCPTool
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from github_mcp.apps.listing import tool_list
from github_mcp.apps.wiring import client_shows_cards
from github_mcp.catalog.tool_catalog import view_of
from github_mcp.kernel.framework_internals import on_session_end
from github_mcp.kernel.principal import (
    ANONYMOUS,
    PROCESS,
    ApprovalScope,
    Principal,
    principal_from_token,
)
from github_mcp.pipeline import seam
from github_mcp.pipeline.call_scope import LOGGER_NAME
from github_mcp.pipeline.peer import (
    Answer,
    CallOrder,
    Elicitation,
    InputRequired,
    Peer,
    Transport,
)
from github_mcp.serving.shared_questions import ask_shared
from github_mcp.serving.subscriptions import tools_changed
from github_mcp.serving.tasks import (
    TASK_CONFIG,
    refuse_rerun,
    task_base_url,
    task_peer,
    tasks_offered,
)

if TYPE_CHECKING:
    from fastmcp import Context

    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.views import View
    from github_mcp.state import SharedQuestions

# The newest protocol revision deprecates logging, but clients still use it; the SDK's
# per-message deprecation warning would only flood the server's own log.
warnings.filterwarnings("ignore", message="The logging capability is deprecated")


class SessionRecord:
    """What the server keeps of a session it issued: the principal it was issued to, the
    toolsets it enabled and the order of its calls. Dropped when the session ends."""

    __slots__ = ("enabled", "order", "owner")

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.enabled: set[str] = set()
        self.order = CallOrder()


# session id -> its record (a session that sleeps keeps its id, its record and its end)
SESSIONS: dict[str, SessionRecord] = {}


class FrameworkPeer(Peer):
    """The caller of one framework request (see the module docstring)."""

    def __init__(
        self,
        ctx: Context,
        view: View,
        *,
        principal: Principal,
        session: str | None,
        enabled: set[str],
        order: CallOrder | None,
        questions: SharedQuestions | None = None,
    ) -> None:
        super().__init__(view, principal=principal, session=session, meta=_meta(ctx), order=order)
        self.ctx = ctx
        self.questions = questions  # replicas: an answer may reach any of them
        self.in_task = ctx.task_id is not None
        if self.in_task:
            # an MCP task on a worker (serving/tasks.py): no connection, a 2026-07-28
            # client; questions travel as the task's input requests, URL mode included
            task_peer(self)
            return
        self.transport = _transport(ctx)
        session_obj = _session_of(ctx)
        version = getattr(session_obj, "protocol_version", None)
        self.modern = version in MODERN_PROTOCOL_VERSIONS
        capabilities = _capabilities(session_obj)
        self.elicitation = Elicitation.of(capabilities.get("elicitation"))
        self.shows_cards = client_shows_cards(ctx)
        self._enabled = enabled

    @property
    def input_responses(self) -> dict[str, Answer]:
        answers = self.ctx.input_responses or {}
        return {key: Answer.of(value) for key, value in answers.items()}

    @property
    def enabled_toolsets(self) -> set[str]:
        return self._enabled

    @property
    def keeps_session(self) -> bool:
        return not self.modern and self.session is not None

    def base_url(self) -> str | None:
        try:
            return str(get_http_request().base_url).rstrip("/")
        except RuntimeError:
            return task_base_url() if self.in_task else None

    async def progress(self, done: float, total: float | None, message: str) -> None:
        await self.ctx.report_progress(done, total, message)  # a task's: its status message

    async def log(self, level: str, message: str, call_id: str) -> None:
        if self.in_task:
            return  # nobody listens to a task's stream
        extra = {"call_id": call_id}
        if not self.modern:  # the session's logging/setLevel, else the server's floor
            await self.ctx.log(message, level=level, logger_name=LOGGER_NAME, extra=extra)  # type: ignore[arg-type]
            return
        # a 2026-07-28 request's own level, which the SDK's session applies (nothing
        # without one); the server's floor is for sessions that never chose a level
        data = {"msg": message, "extra": extra}
        await self.ctx.session.send_log_message(
            level,  # type: ignore[arg-type]  # one of client_log's levels
            data,
            logger=LOGGER_NAME,
            related_request_id=self.ctx.request_id,
        )

    async def ask_form(self, message: str, schema: dict[str, Any]) -> Answer:
        session = self.ctx.session
        if self.questions is not None and self.session is not None:
            form = ElicitRequestFormParams(message=message, requested_schema=schema)
            return await ask_shared(self.questions, session, self.session, self.principal.key, form)
        result = await session.elicit_form(message, schema, related_request_id=self.ctx.request_id)
        return Answer.of(result)

    async def ask_url(self, message: str, url: str, elicitation_id: str) -> Answer | None:
        session = self.ctx.session
        if self.questions is not None and self.session is not None:
            link = ElicitRequestURLParams(message=message, url=url, elicitation_id=elicitation_id)
            return await ask_shared(self.questions, session, self.session, self.principal.key, link)
        result = await session.elicit_url(
            message, url, elicitation_id, related_request_id=self.ctx.request_id
        )
        return Answer.of(result)

    async def url_done(self, elicitation_id: str) -> None:
        await self.ctx.session.send_elicit_complete(
            elicitation_id, related_request_id=self.ctx.request_id
        )

    async def enable_toolset(self, toolset: str) -> bool:
        record = _record(self.ctx) if self.session is not None else None
        if self.modern or record is None:
            return False  # no session to keep the list in
        record.enabled.add(toolset)
        self._enabled.add(toolset)
        await self.ctx.session.send_tool_list_changed()
        await tools_changed(self.ctx.fastmcp)  # and to 2026-07-28 listen streams
        return True


async def peer_of(rt: Runtime, ctx: Context) -> FrameworkPeer:
    """The Peer of the framework request in progress."""
    principal = caller_principal(ctx)
    found = _record(ctx)
    # a session id the server issued to someone else counts for nothing
    record = found if found is not None and found.owner == principal.key else None
    return FrameworkPeer(
        ctx,
        view_of(rt.settings, _headers()),
        principal=principal,
        session=_session_id(ctx) if record is not None else None,
        enabled=set(record.enabled) if record is not None else set(),
        order=record.order if record is not None else None,
        questions=rt.shared.questions if rt.shared is not None and ctx.task_id is None else None,
    )


def caller_principal(ctx: Context) -> Principal:
    """The authenticated identity behind a request: the bearer token's principal (or an
    OAuth user's GitHub login) over HTTP, the process in-process."""
    token = get_access_token()
    if token is not None:
        return principal_from_token(token.client_id, token.claims)
    return ANONYMOUS if _transport(ctx) == "http" else PROCESS


async def claim_session(ctx: Context, on_end: Callable[[ApprovalScope], None]) -> None:
    """At initialize: record which principal the server issued the session to (only that
    principal's calls count as the session's: approvals, reads), and when the session
    ends, however it ends, drop the record and call `on_end` with its approval scope."""
    session_id = _session_id(ctx)
    if session_id is None or session_id in SESSIONS:
        return
    principal = caller_principal(ctx)
    SESSIONS[session_id] = SessionRecord(principal.key)
    scope = ApprovalScope(principal, session_id)

    def ended() -> None:
        SESSIONS.pop(session_id, None)
        on_end(scope)

    if not on_session_end(ctx, ended):
        SESSIONS.pop(session_id, None)  # nothing would ever drop it


def _record(ctx: Context) -> SessionRecord | None:
    """The record of the session the server issued for this request (a 2026-07-28
    request has none: each request is its own connection)."""
    session_id = _session_id(ctx)
    return SESSIONS.get(session_id) if session_id is not None else None


def _session_id(ctx: Context) -> str | None:
    try:
        return ctx.session_id
    except RuntimeError:
        return None


def _headers() -> dict[str, str]:
    return get_http_headers(include_all=True)


def _transport(ctx: Context) -> Transport:
    try:
        kind = ctx.transport
    except RuntimeError:
        return "memory"
    return "http" if kind in ("sse", "streamable-http") else "memory"


def _session_of(ctx: Context) -> Any:
    try:
        return ctx.session
    except RuntimeError:
        return None


def _capabilities(session: Any) -> dict[str, Any]:
    declared = getattr(session, "client_capabilities", None)
    if declared is None:
        return {}
    dumped = declared.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped if isinstance(dumped, dict) else {}


def _meta(ctx: Context) -> dict[str, Any]:
    request = ctx.request_context
    meta = request.meta if request is not None else None
    if meta is None:
        return {}
    if isinstance(meta, dict):
        return meta
    dumped = meta.model_dump(by_alias=True, exclude_none=True)
    return dumped if isinstance(dumped, dict) else {}


# -- tools ---------------------------------------------------------------------------


class SeamTool(Tool):
    """A served tool as the framework sees it: listed as `wire`, run by the seam."""

    wire: dict[str, Any] | None = None
    runtime: Any = None

    def to_mcp_tool(self, **overrides: Any) -> MCPTool:
        return MCPTool.model_validate({**(self.wire or {}), **overrides})

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        rt: Runtime = self.runtime
        # the request's context, or on a tasks worker the task's (built for this run)
        async with cast(Any, CurrentContext()) as ctx:
            peer = await peer_of(rt, ctx)
            if peer.in_task:
                entry = rt.bound_specs.entries.get(self.name)
                refuse_rerun(entry is None or entry.write)
            answer = await seam.call_tool(rt, peer, self.name, arguments)
        if isinstance(answer, InputRequired):
            return InputRequiredToolResult(InputRequiredResult.model_validate(answer.wire()))
        return ToolResult(
            content=[TextContent(type="text", text=answer.text)],
            structured_content=answer.structured,
            is_error=answer.is_error,
            meta=answer.meta,
        )


class ServedToolsProvider(Provider):
    """Lists what apps/listing.py lists for the requesting client; any name resolves to
    a SeamTool (the seam refuses what is not served)."""

    def __init__(self, rt: Runtime) -> None:
        super().__init__()
        self.rt = rt

    def _tool(self, name: str, wire: dict[str, Any] | None, *, tasks: bool = True) -> SeamTool:
        entry = self.rt.bound_specs.entries.get(name)
        tasks = tasks and entry is not None and entry.tasks and tasks_offered(self.rt.settings)
        return SeamTool(
            name=name,
            description=(wire or {}).get("description"),
            parameters=(wire or {}).get("inputSchema", {"type": "object"}),
            wire=wire,
            runtime=self.rt,
            task_config=TASK_CONFIG["optional" if tasks else "forbidden"],
        )

    async def _list_tools(self) -> Sequence[Tool]:
        peer = await peer_of(self.rt, get_context())
        listed = tool_list(self.rt, peer.view, peer.enabled_toolsets, ui=peer.shows_cards)
        return [self._tool(wire["name"], wire) for wire in listed]

    async def _get_tool(self, name: str, version: Any = None) -> Tool | None:
        # tasks over HTTP only: an in-process client shares the server's lifetime
        try:
            over_http = _transport(get_context()) == "http"
        except RuntimeError:  # a worker resolving a task's tool: it is one
            over_http = True
        return self._tool(name, None, tasks=over_http)

    async def get_tasks(self) -> Sequence[Any]:
        """The tools a worker may run as tasks (registered with the queue at start): the
        seam decides per call whether this client may call them at all."""
        if not tasks_offered(self.rt.settings):
            return []
        entries = self.rt.bound_specs.entries
        return [self._tool(name, None) for name, entry in entries.items() if entry.tasks]


class SessionOwnerMiddleware(Middleware):
    """At initialize, record which principal the server-issued session belongs to, and
    drop that session's approval when it ends (client DELETE, idle timeout, crash)."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    async def on_initialize(self, context: MiddlewareContext, call_next: Any) -> Any:
        result = await call_next(context)
        if context.fastmcp_context is not None:
            gate = self.rt.gate
            await claim_session(context.fastmcp_context, lambda s: gate.drop_approval(s.key))
        return result
