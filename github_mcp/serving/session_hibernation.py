"""Idle streamable-HTTP sessions sleep as a small record, and wake on their next request.

A live session is the protocol library's transport, its message loop, memory streams and
task group: about 29 KB of Python objects, which a client that never sends DELETE leaves
behind until the idle timeout. Once a session has had nothing in flight for
GITHUB_MCP_SESSION_HIBERNATE_AFTER_SECONDS (no request being served, no open GET stream,
no handler running, no server-to-client request awaiting its answer), its loop is ended
and the session manager's entry for it becomes a `Hibernated` record: the session's
`Connection` (negotiated protocol version, client info and capabilities, its `state`,
and the `exit_stack` whose callbacks end its approval and log level) and the transport's
resumable-stream namespace. The manager still finds the id, checks the credential
that opened it as before, and hands the request to the record, which starts a new
transport and message loop on that same `Connection` (already initialized) and passes
the request on. What a session enabled or approved is keyed by that connection or its
id, so it carries on as if it had never slept.

The idle timeout still counts from the session's last request: a record is dropped (its
exit stack run: approval and log level dropped) once the session has been idle that
long, and its id then answers 404 like any ended session. An id never issued answers 404
as before: nothing here creates an entry for it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import TaskStatus
from mcp.server.connection import Connection
from mcp.server.runner import ServerRunner, aclose_shielded
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from starlette.types import Receive, Scope, Send

from github_mcp.kernel.framework_internals import (
    NO_CHANNEL,
    add_session,
    discard_session,
    dispatcher_busy,
    forget_session,
    lifespan_state,
    on_admit,
    send_and_report_status,
    serve_openings_with,
    sessions,
    task_group,
)
from github_mcp.serving.json_answers import ChoosingTransport
from github_mcp.serving.session_context import LightTransport

logger = logging.getLogger(__name__)
_EMPTY = contextvars.Context()


class HibernatingTransport(ChoosingTransport):
    """A session transport that asks its `Hibernation` to put it to sleep once it has
    been quiet for the grace period."""

    _hibernation: Hibernation
    _live: tuple[JSONRPCDispatcher[Any], Connection] | None = None
    _nap: asyncio.TimerHandle | None = None
    asleep = False

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._nap is not None:
            self._nap.cancel()
            self._nap = None
        try:
            await super().handle_request(scope, receive, send)
        finally:
            if not self.requests_in_flight:
                self.arm_nap()

    def arm_nap(self) -> None:
        """Try to sleep once the grace period has passed (from an empty context: the
        timer keeps the context it was armed in)."""
        if self.is_terminated or self.asleep or self._hibernation.grace_s is None:
            return
        if self._nap is not None:
            self._nap.cancel()
        loop = asyncio.get_running_loop()
        self._nap = loop.call_later(self._hibernation.grace_s, self._try_sleep, context=_EMPTY)

    def _try_sleep(self) -> None:
        self._nap = None
        idle, live = self.idle_scope, self._live
        if self.requests_in_flight or self.is_terminated or idle is None or live is None:
            return
        if idle.cancel_called:
            return
        dispatcher, connection = live
        if not connection.initialize_accepted:
            return  # never got going: the idle timeout ends it
        if dispatcher_busy(dispatcher) or self.request_streams:
            self.arm_nap()  # a handler runs, or awaits the client: look again later
            return
        if self._hibernation.put_to_sleep(self, connection):
            self.asleep = True
            self._live = None
            idle.cancel()  # ends the message loop; run_session keeps the connection


class Hibernated:
    """A sleeping session in the manager's table: what it needs to wake."""

    __slots__ = ("_ready", "_woken", "connection", "events", "hibernation", "session_id", "since")

    def __init__(
        self, hibernation: Hibernation, session_id: str, connection: Connection, events: Any
    ) -> None:
        self.hibernation = hibernation
        self.session_id = session_id
        self.connection = connection
        self.events = events  # the transport's resumable-stream namespace
        self.since = anyio.current_time()
        self._woken: StreamableHTTPServerTransport | None = None
        self._ready: anyio.Event | None = None

    @property
    def is_terminated(self) -> bool:
        return self._woken is not None and self._woken.is_terminated

    async def terminate(self) -> None:
        if self._woken is not None:
            await self._woken.terminate()

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        transport = await self._wake()
        await transport.handle_request(scope, receive, send)

    async def _wake(self) -> StreamableHTTPServerTransport:
        if self._ready is not None:  # another request is waking it
            await self._ready.wait()
            assert self._woken is not None
            return self._woken
        self._ready = anyio.Event()
        try:
            self._woken = await self.hibernation.wake(self)
        finally:
            self._ready.set()
        return self._woken


class Hibernation:
    """Sleeping and waking for one running session manager (the SDK's
    StreamableHTTPSessionManager), and dropping records the idle timeout has passed."""

    def __init__(self, manager: Any, grace_s: float | None, idle_timeout_s: float) -> None:
        self.manager = manager
        self.grace_s = grace_s  # None: sessions sleep only when revived (shared_sessions)
        self.keep_s = max(idle_timeout_s - (grace_s or 0.0), 0.0)  # asleep, until idle
        self._records: OrderedDict[str, Hibernated] = OrderedDict()  # oldest first
        self._sweeping = False

    def __len__(self) -> int:
        return len(self._records)

    def install(self) -> None:
        """Serve each new session with `run_session`, on a hibernating transport."""
        manager = self.manager

        def adopt(transport: Any) -> None:
            if isinstance(transport, LightTransport):
                self._adopt(transport)

        on_admit(manager, adopt)

        async def serve_opening(transport: Any, scope: Scope, receive: Receive, send: Send) -> None:
            await self._serve_opening(transport, scope, receive, send)

        serve_openings_with(manager, serve_opening)

    def _adopt(self, transport: StreamableHTTPServerTransport) -> HibernatingTransport:
        transport.__class__ = HibernatingTransport
        assert isinstance(transport, HibernatingTransport)
        transport._hibernation = self
        return transport

    async def _serve_opening(
        self, transport: Any, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """The library's `_serve_opening_request`, with this module's session loop."""
        manager = self.manager
        established = False
        try:
            await task_group(manager).start(self._session_runner(transport, None))
            status = await send_and_report_status(transport.handle_request, scope, receive, send)
            established = status is not None and status < 400
        finally:
            if not established:
                await discard_session(manager, transport.mcp_session_id, transport)

    def _session_runner(self, transport: Any, connection: Connection | None) -> Callable[..., Any]:
        async def run_session(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            await self._run_session(transport, connection, task_status)

        return run_session

    async def _run_session(
        self, transport: Any, connection: Connection | None, task_status: TaskStatus[None]
    ) -> None:
        """The session's message loop (as the library's `serve_loop`), on `connection`
        when it wakes from sleep; at the end the connection is closed, unless asleep."""
        session_id = transport.mcp_session_id
        async with transport.connect() as (read_stream, write_stream):
            dispatcher: JSONRPCDispatcher[Any] = JSONRPCDispatcher(
                read_stream, write_stream, inline_methods=frozenset({"initialize"})
            )
            if connection is None:
                connection = Connection.for_loop(dispatcher, session_id=session_id)
            else:
                connection.outbound = dispatcher
            transport._live = (dispatcher, connection)
            task_status.started()
            runner = ServerRunner(self.manager.app, connection, lifespan_state(self.manager))
            try:
                with transport.idle_scope or anyio.CancelScope():
                    await dispatcher.run(runner.on_request, runner.on_notify)
            except Exception:
                logger.exception("Session %s crashed", session_id)
            finally:
                transport._live = None
                if not transport.asleep:
                    await aclose_shielded(connection)
                    self._forget(session_id, transport)
                if not transport.is_terminated:
                    with anyio.CancelScope(shield=True):
                        await transport.terminate()

    def _forget(self, session_id: str, entry: Any) -> None:
        """Remove the session from the manager's table if `entry` is still what it holds."""
        forget_session(self.manager, session_id, entry)

    def put_to_sleep(self, transport: HibernatingTransport, connection: Connection) -> bool:
        """Replace the session's entry by its record (synchronously: no request can
        have reached the transport since its last one ended)."""
        session_id = transport.mcp_session_id
        table = sessions(self.manager)
        if session_id is None or table.get(session_id) is not transport:
            return False
        record = Hibernated(self, session_id, connection, transport.event_store)
        connection.outbound = NO_CHANNEL  # let go of the ended loop's dispatcher
        table[session_id] = record
        self._records[session_id] = record
        if not self._sweeping:
            self._sweeping = True
            task_group(self.manager).start_soon(self._sweep)
        return True

    def connection_of(self, session_id: str) -> Connection | None:
        entry = sessions(self.manager).get(session_id)
        if isinstance(entry, Hibernated):
            return entry.connection
        live = entry._live if isinstance(entry, HibernatingTransport) else None
        return live[1] if live is not None else None

    def revive(self, session_id: str, connection: Connection, owner: Any) -> bool:
        """Enter a session issued elsewhere as asleep on `connection`, for its owner; its
        request wakes it at once (False when the id is taken meanwhile)."""
        record = Hibernated(self, session_id, connection, self.manager.event_store)
        if not add_session(self.manager, session_id, record, owner):
            return False
        self._records[session_id] = record
        if not self._sweeping:
            self._sweeping = True
            task_group(self.manager).start_soon(self._sweep)
        return True

    async def wake(self, record: Hibernated) -> StreamableHTTPServerTransport:
        """A new transport and message loop on the record's connection, put in the
        table once it runs (requests meanwhile wait on the record)."""
        manager = self.manager
        self._records.pop(record.session_id, None)
        transport = self._adopt(
            StreamableHTTPServerTransport(
                mcp_session_id=record.session_id,
                is_json_response_enabled=manager.json_response,
                event_store=record.events,
                security_settings=manager.security_settings,
                retry_interval=manager.retry_interval,
                idle_timeout=manager.session_idle_timeout,
            )
        )
        try:
            await task_group(manager).start(self._session_runner(transport, record.connection))
        except BaseException:
            self._forget(record.session_id, record)
            await aclose_shielded(record.connection)
            raise
        table = sessions(manager)
        if table.get(record.session_id) is record:
            table[record.session_id] = transport
        return transport

    async def _sweep(self) -> None:
        """Drop records once their session has been idle for the idle timeout."""
        try:
            while self._records:
                session_id, record = next(iter(self._records.items()))
                wait = record.since + self.keep_s - anyio.current_time()
                if wait > 0:
                    await anyio.sleep(wait)
                    continue
                del self._records[session_id]
                await self._expire(record)
        finally:
            self._sweeping = False

    async def _expire(self, record: Hibernated) -> None:
        self._forget(record.session_id, record)
        logger.info("Session %s idle timeout (asleep)", record.session_id)
        await aclose_shielded(record.connection)

    async def aclose(self) -> None:
        """At shutdown: end every sleeping session as its idle timeout would."""
        while self._records:
            _, record = self._records.popitem(last=False)
            await self._expire(record)
