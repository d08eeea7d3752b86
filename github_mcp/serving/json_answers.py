"""Answer a request POST with one JSON body unless the call needs a stream.

Streamable HTTP lets the server choose, for each POST that carries a request, between
an `application/json` body holding the response and a `text/event-stream` that may carry
the call's notifications and server-to-client requests before it (clients must accept
both). The protocol library chooses once per server, and its stream costs about a third
of a cached call's server CPU: a task group of four tasks, two memory streams, the
priming event, a stored copy of the response and five socket writes.

Here the choice is made per call, by what the call does:

- its first message is its response, within `STREAM_AFTER_S`: a JSON body, and the
  response is not stored (no client holds an event id that could ask for it again);
- it first sends a notification (progress, a log message, a list change) or a request
  (an elicitation for an approval): a stream, beginning with that message;
- nothing within `STREAM_AFTER_S` (a clone, a CI wait, a rate-limit wait): a stream
  opened with the priming event, so a long call keeps its keep-alive pings and can be
  resumed with Last-Event-ID as before.

A stream opened for a first message carries the `retry` field on that message's event,
whose id is the resume point, so nothing is sent out of its stored order; the priming
event is still stored before it (unsent), in the request's context, since a replica
asked to resume the stream reads from it whom the stream is for. Everything
else (notifications, responses, initialize, GET, DELETE, malformed bodies) takes the
library's own path.
"""

from __future__ import annotations

import asyncio
import contextvars
from functools import partial
from http import HTTPStatus
from typing import Any

import anyio
import pydantic_core
from mcp.server.streamable_http import (
    CONTENT_TYPE_SSE,
    MCP_SESSION_ID_HEADER,
    REQUEST_STREAM_BUFFER_SIZE,
    EventMessage,
    EventStore,
    StreamableHTTPServerTransport,
    check_accept_headers,
)
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types import (
    DEFAULT_NEGOTIATED_VERSION,
    INTERNAL_ERROR,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from mcp_types.version import is_version_at_least
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from github_mcp.kernel.framework_internals import SdkTransport, on_admit, on_stateless_transport
from github_mcp.serving.session_context import LightTransport, retype

# How long a call may run before its answer becomes a stream: far above a read's time,
# far below the 15 s keep-alive ping and a proxy's idle timeout.
STREAM_AFTER_S = 1.0

_PENDING, _JSON, _STREAM = "pending", "json", "stream"


def _is_answer(message: Any) -> bool:
    return isinstance(message, JSONRPCResponse | JSONRPCError)


class _Call:
    """A request being answered: its mode, and what storing its priming event needs."""

    __slots__ = ("context", "mode", "primes")

    def __init__(self, context: contextvars.Context, primes: bool) -> None:
        self.mode = _PENDING
        self.context = context  # the request's: the store records who the stream is for
        self.primes = primes  # the library would store a priming event for this client


class _ChoosingStore(EventStore):
    """The session's event store, deciding a pending call's mode at its first message:
    a response is not stored (the call answers in JSON); anything else opens a stream,
    stored after the priming event the library would have stored (a replica resuming
    the stream reads who it is for from that event)."""

    __slots__ = ("_calls", "inner")

    def __init__(self, inner: EventStore, calls: dict[str, _Call]) -> None:
        self.inner = inner
        self._calls = calls

    async def store_event(self, stream_id: str, message: Any) -> str:
        call = self._calls.get(stream_id)
        if call is not None and call.mode == _PENDING and message is not None:
            if _is_answer(message):
                call.mode = _JSON
                return None  # type: ignore[return-value]  # EventMessage takes no id
            call.mode = _STREAM
            if call.primes:
                priming = self.inner.store_event(stream_id, None)
                await asyncio.create_task(priming, context=call.context)
        return await self.inner.store_event(stream_id, message)

    async def replay_events_after(self, last_event_id: str, send_callback: Any) -> str | None:
        return await self.inner.replay_events_after(last_event_id, send_callback)


class ChoosingAnswers(SdkTransport):
    """The library's transport, answering each request POST in the mode its call needs."""

    # Made at a session's first call: a transport becomes one of these by a change of
    # class, and a woken session's transport is handed the store of the one before.
    _calls: dict[str, _Call] | None = None

    def _choosing(self) -> dict[str, _Call]:
        calls = self._calls
        if calls is None:
            calls = self._calls = {}
            store = self.event_store
            if isinstance(store, _ChoosingStore):
                store = store.inner
            if store is not None:
                self.event_store = _ChoosingStore(store, calls)
        return calls

    async def answer_post(
        self, scope: Scope, request: Request, receive: Receive, send: Send
    ) -> None:
        message = await _plain_request(request)
        writer = self.read_stream_writer
        if message is None or writer is None or self.is_terminated:
            await super().answer_post(scope, request, receive, send)
            return
        if not await self.validate_request_headers(request, send):
            return
        try:
            await self._answer(scope, request, message, send)
        except Exception as err:  # as the library does: a 500, and the session hears of it
            response = self.error_response(
                "Error handling POST request", HTTPStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR
            )
            await response(scope, receive, send)
            await writer.send(Exception(err))

    async def _answer(
        self, scope: Scope, request: Request, message: JSONRPCRequest, send: Send
    ) -> None:
        request_id = str(message.id)
        version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER, DEFAULT_NEGOTIATED_VERSION)
        streams = anyio.create_memory_object_stream[EventMessage](REQUEST_STREAM_BUFFER_SIZE)
        self.request_streams[request_id] = streams
        calls = self._choosing()
        primes = self.event_store is not None and is_version_at_least(version, "2025-11-25")
        call = calls[request_id] = _Call(contextvars.copy_context(), primes)
        try:
            session_message = self.session_message(message, request, request_id, version)
            await self.read_stream_writer.send(session_message)
            first = await self._first_message(call, streams[1])
            if first is not None and _is_answer(first.message):
                await self.json_response(first.message)(scope, request.receive, send)
                return
            await self._stream(scope, request, send, request_id, version, first)
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            # closed with no response: the session ended while the call ran
            await self.error_response(
                "Session terminated before the request completed",
                HTTPStatus.INTERNAL_SERVER_ERROR,
                INTERNAL_ERROR,
            )(scope, request.receive, send)
        finally:
            calls.pop(request_id, None)
            await self.clean_up_streams(request_id)  # a no-op once a stream did

    async def _first_message(self, call: _Call, reader: Any) -> EventMessage | None:
        """The call's first message, or None once it has run `STREAM_AFTER_S` silent."""
        with anyio.move_on_after(STREAM_AFTER_S):
            return await reader.receive()  # type: ignore[no-any-return]
        if call.mode != _PENDING:  # decided by a message on its way here
            return await reader.receive()  # type: ignore[no-any-return]
        call.mode = _STREAM  # before the priming event, so it is stored first
        return None

    async def _stream(
        self,
        scope: Scope,
        request: Request,
        send: Send,
        request_id: str,
        version: str,
        first: EventMessage | None,
    ) -> None:
        """The library's SSE answer, beginning with `first` or else the priming event."""
        if first is None:
            opening = await self.priming_event(request_id, version)
        else:
            opening = self.event_data(first)
            if first.event_id and self.retry_interval is not None:
                opening["retry"] = self.retry_interval
        sse_writer, sse_reader = anyio.create_memory_object_stream[dict[str, Any]](0)
        self.sse_writers[request_id] = sse_writer
        reader = self.request_streams[request_id][1]
        sender = partial(self._forward, request_id, sse_writer, reader, opening)
        headers = {
            "Cache-Control": "no-cache, no-transform",
            "Connection": "keep-alive",
            "Content-Type": CONTENT_TYPE_SSE,
        }
        if self.mcp_session_id:
            headers[MCP_SESSION_ID_HEADER] = self.mcp_session_id
        response = EventSourceResponse(
            content=sse_reader, data_sender_callable=sender, headers=headers
        )
        try:
            await response(scope, request.receive, send)
        finally:
            await sse_reader.aclose()

    async def _forward(
        self,
        request_id: str,
        sse_writer: Any,
        reader: Any,
        opening: dict[str, Any] | None,
    ) -> None:
        """Send the opening event, then the call's messages up to its response."""
        try:
            async with sse_writer, reader:
                if opening is not None:
                    await sse_writer.send(opening)
                done = False
                while not done:
                    event = await reader.receive()
                    await sse_writer.send(self.event_data(event))
                    done = _is_answer(event.message)
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            pass  # the session ended, or the client went away
        finally:
            self.sse_writers.pop(request_id, None)
            await self.clean_up_streams(request_id)


async def _plain_request(request: Request) -> JSONRPCRequest | None:
    """The POST's JSON-RPC request if this module answers it, else None (the library's
    path answers it, and every malformed POST with its own errors)."""
    has_json, has_sse = check_accept_headers(request)
    content_type = request.headers.get("content-type", "")
    if not (has_json and has_sse) or content_type.split(";")[0].strip() != "application/json":
        return None
    try:
        message = jsonrpc_message_adapter.validate_python(
            pydantic_core.from_json(await request.body()), by_name=False
        )
    except ValueError:  # pydantic's ValidationError is one
        return None
    if not isinstance(message, JSONRPCRequest) or message.method == "initialize":
        return None
    return message


class ChoosingTransport(ChoosingAnswers, LightTransport):
    """A session's transport (see session_context), answering this way."""


def choose_answers(manager: Any, *, stateless: bool = False) -> None:
    """Make each new session (or, stateless, each request) of a running session manager
    answer this way."""
    if stateless:
        on_stateless_transport(
            manager, partial(retype, old=StreamableHTTPServerTransport, new=ChoosingAnswers)
        )
        return
    on_admit(manager, partial(retype, old=LightTransport, new=ChoosingTransport))
