"""Resumable event streams in Redis, and the relay that lets another replica resume them.

The streamable HTTP transport stores every SSE event of a response stream through
`RedisEventStore` (one Redis stream per MCP stream; the priming event the 2025-11-25
transport sends first records the replica serving it and the principal it serves). A
client whose stream breaks reconnects with GET + Last-Event-ID. On the replica that owns
the session, the transport replays from Redis itself. On any other replica (the owner
died, or the load balancer chose another), `ResumeRelay` answers: it replays what was
stored after the client's last event, then follows the stream as the owner keeps
writing it, until the response arrives, or the owner's heartbeat stops, in which case
the client gets a JSON-RPC error for its request saying so (the call's outcome is then
unknown: read before retrying, or retry with the same idempotency key).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCMessage
from mcp_types.jsonrpc import jsonrpc_message_adapter
from starlette.responses import JSONResponse, StreamingResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.state._connection import SharedState

STREAM_TTL_S = 3600
STREAM_MAXLEN = 10_000
HEARTBEAT_EVERY_S = 1.0
HEARTBEAT_TTL_MS = 3500
RELAY_MAX_S = 3600.0
UNSTORED = "unstored"  # an event id that resumes nothing (Redis was down when it was sent)
SERVER_GONE = -32001  # JSON-RPC error code (implementation range): the serving replica died


def _principal_key() -> str:
    """The authenticated principal of the request being served ('' when none)."""
    try:
        from fastmcp.server.dependencies import get_access_token

        from github_mcp.kernel.principal import principal_from_token

        token = get_access_token()
    except Exception:
        return ""
    return principal_from_token(token.client_id, token.claims).key if token else ""


def encode_event_id(stream_id: str, entry_id: str) -> str:
    tag = base64.urlsafe_b64encode(stream_id.encode()).decode().rstrip("=")
    return f"{tag}.{entry_id}"


def decode_event_id(event_id: str) -> tuple[str, str] | None:
    tag, _, entry = event_id.partition(".")
    if not tag or not entry or not all(p.isdigit() for p in entry.split("-", 1)):
        return None
    try:
        return base64.urlsafe_b64decode(tag + "=" * (-len(tag) % 4)).decode(), entry
    except (binascii.Error, UnicodeDecodeError):
        return None


class RedisEventStore(EventStore):
    def __init__(self, state: SharedState) -> None:
        self._state = state

    def stream_key(self, stream_id: str) -> str:
        return self._state.key("ev", stream_id)

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        fields: dict[Any, Any] = {"m": b""}
        if message is None:  # the priming event: who serves this stream, for whom
            fields.update(r=self._state.replica, o=_principal_key())
        else:
            fields["m"] = message.model_dump_json(by_alias=True, exclude_unset=True)
        key = self.stream_key(stream_id)
        try:
            async with self._state.op("event_store") as r:
                pipe = r.pipeline(transaction=False)
                pipe.xadd(key, fields, maxlen=STREAM_MAXLEN, approximate=True)
                pipe.expire(key, STREAM_TTL_S)
                entry_id, _ = await pipe.execute()
        except GitHubMCPError:
            return UNSTORED  # the stream still flows; it just cannot be resumed
        return encode_event_id(stream_id, entry_id.decode())

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        decoded = decode_event_id(last_event_id)
        if decoded is None:
            return None
        stream_id, after = decoded
        try:
            async with self._state.op("event_replay") as r:
                entries = await r.xrange(self.stream_key(stream_id), min="(" + after)
        except GitHubMCPError:
            return None
        for entry_id, fields in entries:
            if fields.get(b"m"):
                message = jsonrpc_message_adapter.validate_json(fields[b"m"])
                await send_callback(
                    EventMessage(message, encode_event_id(stream_id, entry_id.decode()))
                )
        return stream_id

    async def owner(self, stream_id: str) -> tuple[str, str] | None:
        """(replica, principal key) recorded by the stream's priming event."""
        async with self._state.op("event_owner") as r:
            first = await r.xrange(self.stream_key(stream_id), count=1)
        if not first or first[0][1].get(b"m"):
            return None
        fields = first[0][1]
        return fields.get(b"r", b"").decode(), fields.get(b"o", b"").decode()


class Heartbeat:
    """This replica's liveness key, renewed every second while it serves."""

    def __init__(self, state: SharedState) -> None:
        self._state = state
        self._task: asyncio.Task[None] | None = None

    def key(self, replica: str) -> str:
        return self._state.key("alive", replica)

    @property
    def running(self) -> bool:
        return self._task is not None

    async def alive(self, replica: str) -> bool:
        async with self._state.op("heartbeat_read") as r:
            return bool(await r.exists(self.key(replica)))

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._beat())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        with contextlib.suppress(GitHubMCPError):
            async with self._state.op("heartbeat_end") as r:
                await r.delete(self.key(self._state.replica))

    async def _beat(self) -> None:
        while True:
            with contextlib.suppress(GitHubMCPError):
                async with self._state.op("heartbeat") as r:
                    await r.set(self.key(self._state.replica), b"1", px=HEARTBEAT_TTL_MS)
            await asyncio.sleep(HEARTBEAT_EVERY_S)


def request_id_of(stream_id: str) -> str | int | None:
    """The JSON-RPC request id of a POST's stream (fastmcp scopes stream ids per
    transport as `<len>:<transport id>:<request id>`)."""
    size, _, rest = stream_id.partition(":")
    if not size.isdigit() or len(rest) <= int(size):
        return None
    raw = rest[int(size) + 1 :]
    return int(raw) if raw.lstrip("-").isdigit() else raw


class ResumeRelay:
    """In front of the MCP endpoint: a resumption (GET with Last-Event-ID) for a session
    this replica does not hold is served from Redis; everything else passes through."""

    def __init__(
        self,
        app: ASGIApp,
        store: RedisEventStore,
        heartbeat: Heartbeat,
        is_local_session: Callable[[str], bool],
    ) -> None:
        self.app = app
        self.store = store
        self.heartbeat = heartbeat
        self.is_local_session = is_local_session

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]}
        last_event_id = headers.get("last-event-id")
        session_id = headers.get("mcp-session-id")
        if not last_event_id or not session_id or self.is_local_session(session_id):
            await self.app(scope, receive, send)
            return
        response = await self._relay(last_event_id)
        await response(scope, receive, send)

    async def _relay(self, last_event_id: str) -> Any:
        decoded = decode_event_id(last_event_id)
        not_found = JSONResponse(
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32600, "message": "Session not found"},
            },
            status_code=404,
        )
        if decoded is None:
            return not_found
        stream_id, after = decoded
        try:
            owner = await self.store.owner(stream_id)
        except GitHubMCPError:
            owner = None
        if owner is None or owner[1] != _principal_key():
            return not_found  # unknown stream, or another principal's: nothing to see
        log_event("stream_relayed", owner=owner[0], stream=stream_id[-24:])
        return StreamingResponse(
            self._events(stream_id, after, owner[0]),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache, no-transform"},
        )

    async def _events(self, stream_id: str, after: str, owner: str) -> AsyncIterator[str]:
        key = self.store.stream_key(stream_id)
        deadline = time.monotonic() + RELAY_MAX_S
        last = after
        while time.monotonic() < deadline:
            try:
                async with self.store._state.op("event_follow") as r:
                    # well inside the socket timeout, which would count Redis as down
                    found = await r.xread({key: last}, count=100, block=500)
            except GitHubMCPError:
                break
            entries = found[0][1] if found else []
            for entry_id, fields in entries:
                last = entry_id.decode()
                data = fields.get(b"m", b"").decode()
                if not data:
                    continue
                yield _sse(encode_event_id(stream_id, last), data)
                if _is_answer(data):
                    return
            if not entries:
                try:
                    alive = await self.heartbeat.alive(owner)
                except GitHubMCPError:
                    alive = False
                if not alive:
                    break
        yield _sse(None, json.dumps(_server_gone(request_id_of(stream_id))))


def _is_answer(data: str) -> bool:
    try:
        message = json.loads(data)
    except ValueError:
        return False
    return (
        isinstance(message, dict)
        and "id" in message
        and ("result" in message or "error" in message)
    )


def _server_gone(request_id: str | int | None) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {
            "code": SERVER_GONE,
            "message": "The replica serving this call stopped before it answered; the "
            "call's outcome is unknown. Read the current state before retrying, or retry "
            "a write with the same idempotency key (it returns the first result if the "
            "write happened).",
            "data": {"code": "unavailable", "retryable": True},
        },
    }


def _sse(event_id: str | None, data: str) -> str:
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: message\ndata: {data}\n\n"
