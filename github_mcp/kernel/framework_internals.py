"""The one module that may use a private name of fastmcp or mcp.

The public API covers everything else this package does with the framework. What it
does not offer yet is here, each with why, named so the rest of the package reads as
public code; tests/test_framework_internals.py fails when the installed versions differ
from the ones these were written against, so an upgrade starts by reading this file.
It sits in the bottom layer so that both the HTTP session layer (serving/) and the OAuth
sign-in (hosted/) can use it; nothing else in this layer imports it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from fastmcp.server.auth.oauth_proxy import OAuthProxy
from fastmcp.server.auth.oauth_proxy.models import _hash_token
from fastmcp.server.http import _current_http_request
from mcp.server.connection import _NO_CHANNEL
from mcp.server.streamable_http import EventMessage, EventStore, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import _send_and_report_status
from mcp.shared._context_streams import ContextSendStream
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

WRITTEN_FOR = {"fastmcp": "4.1.8", "mcp": "2.3.0"}

# fastmcp's contextvar holding the starlette Request around the MCP endpoint (a session
# must not keep it alive: serving/session_context.py)
CURRENT_HTTP_REQUEST = _current_http_request
# a Connection's outbound channel once its message loop ended (a session asleep)
NO_CHANNEL = _NO_CHANNEL
# runs an ASGI app and reports the status it answered (serving an opening request)
send_and_report_status = _send_and_report_status


def on_session_end(ctx: Any, callback: Callable[[], None]) -> bool:
    """Run `callback` when the client session of this request ends (DELETE, idle timeout,
    a crash): the SDK's per-connection exit stack, which fastmcp does not expose (its own
    keep-alive middleware reaches it the same way). False when there is no connection."""
    session = getattr(ctx, "session", None)
    connection = getattr(session, "_connection", None)
    stack = getattr(connection, "exit_stack", None)
    if stack is None:
        return False
    stack.callback(callback)
    return True


# -- the SDK's streamable-HTTP session manager: it has no hooks for a session's transport,
# its table of sessions or the task that runs a session, which the session layer
# (serving/session_context, json_answers, session_hibernation, proxy_session_ids) needs.


def on_admit(manager: Any, each: Callable[[Any], None]) -> None:
    """Call `each` with the transport of every session the running manager admits from now
    on (made in `_admit_session`, before the session's first request reaches it)."""
    admit = manager._admit_session

    def admitted(requestor: Any) -> Any:
        transport = admit(requestor)
        if transport is not None:
            each(transport)
        return transport

    manager._admit_session = admitted


def sessions(manager: Any) -> dict[str, Any]:
    """The manager's open sessions by id (what its cap is checked on)."""
    return manager._server_instances  # type: ignore[no-any-return]


def rename_session(manager: Any, transport: Any, new_id: str) -> bool:
    """Give a just-admitted session `new_id` (False when that id is in use)."""
    table, owners = manager._server_instances, manager._session_owners
    old_id = transport.mcp_session_id
    if new_id in table or table.get(old_id) is not transport:
        return False
    table[new_id] = table.pop(old_id)
    if old_id in owners:
        owners[new_id] = owners.pop(old_id)
    transport.mcp_session_id = new_id
    return True


def add_session(manager: Any, session_id: str, entry: Any, owner: Any) -> bool:
    """Enter a session under `session_id` for `owner` (the SDK's AuthorizationContext, or
    None without auth); False when the id is in use."""
    if session_id in manager._server_instances:
        return False
    if owner is not None:
        manager._session_owners[session_id] = owner
    manager._server_instances[session_id] = entry
    return True


def forget_session(manager: Any, session_id: str, entry: Any) -> None:
    """Remove a session from the table (and its owner) if `entry` is still what it holds."""
    if manager._server_instances.get(session_id) is entry:
        del manager._server_instances[session_id]
        manager._session_owners.pop(session_id, None)


def client_log_levels(server: Any) -> dict[str, Any]:
    """The logging level each session asked for (logging/setLevel), by session id, as
    fastmcp keeps it (dropped by fastmcp at the session's end)."""
    return server._client_log_levels  # type: ignore[no-any-return]


def task_group(manager: Any) -> Any:
    """The task group the running manager starts each session's task in."""
    return manager._task_group


def wrap_task_group(manager: Any, wrap: Callable[[Any], Any]) -> None:
    manager._task_group = wrap(manager._task_group)


def on_stateless_transport(manager: Any, each: Callable[[Any], None]) -> None:
    """Call `each` with the transport the running manager makes for each request under
    --stateless, before that request reaches it: the SDK starts the request's server task
    with it first, and it is found in the task function's closure. Should the SDK make it
    otherwise, nothing is found and `each` is not called."""
    wrap_task_group(manager, partial(_ClosureWatch, each=each))


class _ClosureWatch:
    """A task group that shows `each` the session-less transports its tasks close over."""

    __slots__ = ("_each", "_inner")

    def __init__(self, inner: Any, *, each: Callable[[Any], None]) -> None:
        self._inner = inner
        self._each = each

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def start(self, func: Callable[..., Any], *args: Any, name: Any = None) -> Any:
        for cell in getattr(func, "__closure__", None) or ():
            try:
                held = cell.cell_contents
            except ValueError:  # a name not yet bound
                continue
            if isinstance(held, StreamableHTTPServerTransport) and held.mcp_session_id is None:
                self._each(held)
        return await self._inner.start(func, *args, name=name)


def serve_openings_with(manager: Any, serve: Callable[..., Any]) -> None:
    """Serve each session-opening request with `serve(transport, scope, receive, send)`
    in place of the manager's own (which starts the session's loop, then the request)."""
    manager._serve_opening_request = serve


def lifespan_state(manager: Any) -> Any:
    return manager._lifespan_state


async def discard_session(manager: Any, session_id: str | None, transport: Any) -> None:
    await manager._discard_session(session_id, transport)


def plain_send_stream(stream: Any) -> Any:
    """The stream of (context, item) pairs under the SDK's context-carrying send stream,
    or None for another stream (a session sends without its handler's context)."""
    return stream._inner if isinstance(stream, ContextSendStream) else None


def request_outbound(session: Any) -> Any:
    """The request-scoped channel of a ServerSession: its `send_raw_request` takes a
    caller-chosen JSON-RPC id, which the session's typed requests do not offer."""
    return session._request_outbound


def dispatcher_busy(dispatcher: Any) -> bool:
    """A JSON-RPC dispatcher runs a handler or awaits a client's answer."""
    return bool(dispatcher._in_flight or dispatcher._pending)


class SdkTransport(StreamableHTTPServerTransport):
    """The SDK's session transport, with the private members the session layer uses
    given names here. A subclass answers a POST in `answer_post`."""

    @property
    def event_store(self) -> EventStore | None:
        return self._event_store

    @event_store.setter
    def event_store(self, store: EventStore | None) -> None:
        self._event_store = store

    @property
    def request_streams(self) -> dict[Any, Any]:
        return self._request_streams

    @property
    def sse_writers(self) -> dict[Any, Any]:
        return self._sse_stream_writers

    @property
    def read_stream_writer(self) -> Any:
        return getattr(self, "_read_stream_writer", None)  # set once the loop connects

    @property
    def retry_interval(self) -> int | None:
        return self._retry_interval

    @property
    def idle_timeout(self) -> float | None:
        return self._idle_timeout

    @property
    def requests_in_flight(self) -> int:
        return self._requests_in_flight

    @requests_in_flight.setter
    def requests_in_flight(self, count: int) -> None:
        self._requests_in_flight = count

    async def _handle_post_request(
        self, scope: Scope, request: Request, receive: Receive, send: Send
    ) -> None:
        await self.answer_post(scope, request, receive, send)

    async def answer_post(
        self, scope: Scope, request: Request, receive: Receive, send: Send
    ) -> None:
        await super()._handle_post_request(scope, request, receive, send)

    async def validate_request_headers(self, request: Request, send: Send) -> bool:
        return await self._validate_request_headers(request, send)

    def error_response(self, message: str, status: Any, code: int) -> Response:
        return self._create_error_response(message, status, code)

    def json_response(self, message: Any) -> Response:
        return self._create_json_response(message)

    def session_message(self, message: Any, request: Request, request_id: Any, version: str) -> Any:
        return self._create_session_message(message, request, request_id, version)

    async def priming_event(self, stream_id: str, version: str) -> dict[str, Any] | None:
        return await self._mint_priming_event(stream_id, version)

    def event_data(self, event: EventMessage) -> dict[str, Any]:
        return self._create_event_data(event)

    async def clean_up_streams(self, request_id: Any) -> None:
        await self._clean_up_memory_streams(request_id)


# -- fastmcp's OAuth proxy: the sign-in (hosted/_provider.py) adds to its callback, its
# upstream client and its transparent refresh, and reads and writes its stores.


def token_key(token: str) -> str:
    """The key the proxy stores a token's record under (a hash of the token)."""
    return _hash_token(token)


class OAuthProxyHooks(OAuthProxy):
    """fastmcp's OAuth proxy, with its stores and the steps a subclass changes named."""

    @property
    def client_store(self) -> Any:
        return self._client_store

    @property
    def code_store(self) -> Any:
        return self._code_store

    @property
    def jti_mapping_store(self) -> Any:
        return self._jti_mapping_store

    @property
    def upstream_token_store(self) -> Any:
        return self._upstream_token_store

    @property
    def refresh_token_store(self) -> Any:
        return self._refresh_token_store

    def replace_cimd_manager(self, manager: Any) -> None:
        self._cimd_manager = manager

    def replace_jwt_issuer(self, issuer: Any) -> None:
        self._jwt_issuer = issuer

    def upstream_client(self) -> Any:
        """The client the proxy talks to the upstream token endpoint with."""
        return super()._create_upstream_oauth_client()

    def _create_upstream_oauth_client(self) -> Any:
        return self.upstream_client()

    async def idp_callback(self, request: Request) -> Response:
        """The upstream sign-in's redirect back to this server."""
        return await super()._handle_idp_callback(request)

    async def _handle_idp_callback(self, request: Request) -> Any:
        return await self.idp_callback(request)

    async def transparent_refresh(self, upstream_token_set: Any) -> Any:
        """Refresh an expired upstream token while loading an access token."""
        return await super()._try_transparent_refresh(upstream_token_set)

    async def _try_transparent_refresh(self, upstream_token_set: Any) -> Any:
        return await self.transparent_refresh(upstream_token_set)


def tool_input_schemas(mcp: Any, lookup: Callable[[str], Any]) -> None:
    """Where the SDK reads a tool's input schema to check a 2026-07-28 call's `Mcp-Param-*`
    headers against its body (SEP-2243): without it, the SDK lists every tool for each call
    and checks nothing for a tool the listing misses. fastmcp keeps its SDK server private."""
    mcp._mcp_server.get_tool_input_schema = lookup


def serve_listen(mcp: Any, handler: Any) -> None:
    """Serve `subscriptions/listen` with `handler` (the SDK's ListenHandler): fastmcp does
    not register one on its SDK server yet."""
    from mcp_types import SubscriptionsListenRequestParams

    mcp._mcp_server.add_request_handler(
        "subscriptions/listen", SubscriptionsListenRequestParams, handler
    )


@asynccontextmanager
async def run_lifespan(mcp: Any) -> AsyncIterator[None]:
    """The server's lifespan without serving a transport, for a tasks worker process:
    fastmcp runs a tasks extension's worker only inside it, and its CLI worker enters it
    the same way (no public entry point yet)."""
    async with mcp._lifespan_manager():
        yield
