"""Keep a streamable-HTTP session from holding on to the requests that reached it.

The protocol library hands each request's contextvars to the handler of its message, and
two of those values are large: the starlette Request (its scope, headers and the server's
per-connection objects behind `receive`/`send`) and the authenticated user with its
AccessToken. Two places kept them alive for as long as the session lived, which for a
client that never sends DELETE is until the idle timeout:

- the idle timeout's timer is armed at the end of each request, from that request's task,
  and an asyncio timer keeps the context it was armed in until it fires;
- the session's server task is started from inside the request that opens the session,
  so its context is a copy of that request's;
- the session's read stream remembers the context of the last message it received
  (`last_context`) until the next one comes.

Here the timer is armed from an empty context once a request is done, the session task
is started with those two values cleared, and the session's streams let go of each
message and its context once it is dispatched. Each message still carries its own
request's context to its handler.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.streamable_http import StreamableHTTPServerTransport
from starlette.types import Receive, Scope, Send

from github_mcp.kernel.framework_internals import (
    CURRENT_HTTP_REQUEST,
    SdkTransport,
    on_admit,
    plain_send_stream,
    wrap_task_group,
)

# the request-scoped contextvars set around the MCP endpoint that hold large objects
_REQUEST_VARS: tuple[contextvars.ContextVar[Any], ...] = (CURRENT_HTTP_REQUEST, auth_context_var)


class RequestFreeTaskGroup:
    """The session manager's task group, whose `start` leaves the request's values
    behind: a session task started by a request does not keep that request alive."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def start(self, func: Callable[..., Any], *args: Any, name: Any = None) -> Any:
        tokens = [(var, var.set(None)) for var in _REQUEST_VARS]
        try:
            return await self._inner.start(func, *args, name=name)
        finally:
            for var, token in reversed(tokens):
                var.reset(token)


class _Released(Exception):
    """Handed to the dispatcher after each message: it logs an exception item at debug
    level and drops it, and its loop variables stop holding the message before."""


RELEASED = _Released("the previous message's request was released")


class ForgetfulReceiveStream:
    """The session's read stream, made to let go of each message once dispatched.

    The dispatcher keeps the last item and its sender's context in loop variables while
    it waits for the next, so each real message is followed by `RELEASED`; the stream's
    own `last_context` is dropped as well."""

    __slots__ = ("_delivered", "_inner", "last_context")

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.last_context: contextvars.Context | None = None
        self._delivered = False

    async def receive(self) -> Any:
        self.last_context = None
        if self._delivered:
            self._delivered = False
            return RELEASED
        item = await self._inner.receive()
        self.last_context, self._inner.last_context = self._inner.last_context, None
        self._delivered = True
        return item

    def __aiter__(self) -> ForgetfulReceiveStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> ForgetfulReceiveStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._inner.aclose()


class ContextFreeSendStream:
    """The session's write stream, sending without the handler's context: the library's
    context stream snapshots it for the receiving side, whose last snapshot stays until
    the next message, and the server's message router never uses it."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def send(self, item: Any) -> None:
        raw = plain_send_stream(self._inner)
        if raw is None:
            await self._inner.send(item)
        else:
            await raw.send((contextvars.Context(), item))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> ContextFreeSendStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._inner.aclose()


class LightTransport(SdkTransport):
    """The library's session transport, keeping no request's context once it is idle.
    A new session's transport is made one by changing its class, so a session carries
    no extra objects for it."""

    def connect(self) -> Any:  # the library's signature: an async context manager
        return _LightStreams(super().connect())

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        idle = self.idle_scope
        if idle is None:
            await super().handle_request(scope, receive, send)
            return
        # one more in flight: the library would arm the idle timer from this request's
        # task as its last request ends; it is armed below instead
        self.requests_in_flight += 1
        try:
            await super().handle_request(scope, receive, send)
        finally:
            self.requests_in_flight -= 1
            if not self.requests_in_flight and self.idle_timeout is not None:
                _arm_idle_timer(idle, self.idle_timeout)


class _LightStreams:
    """`connect()`'s context manager, handing out the wrapped streams."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def __aenter__(self) -> tuple[ForgetfulReceiveStream, ContextFreeSendStream]:
        read_stream, write_stream = await self._inner.__aenter__()
        return ForgetfulReceiveStream(read_stream), ContextFreeSendStream(write_stream)

    async def __aexit__(self, *exc: Any) -> bool | None:
        result: bool | None = await self._inner.__aexit__(*exc)
        return result


def _arm_idle_timer(scope: anyio.CancelScope, timeout_s: float) -> None:
    """Arm the idle deadline from an empty context: an asyncio timer keeps the context it
    was armed in until it fires, and its callback (cancel the scope) needs none."""
    if not scope.cancel_called:
        deadline = anyio.current_time() + timeout_s
        contextvars.Context().run(setattr, scope, "deadline", deadline)


def lighten_sessions(manager: Any) -> None:
    """Apply both to a running session manager: its task group, and each new session."""
    wrap_task_group(manager, RequestFreeTaskGroup)
    on_admit(manager, partial(retype, old=StreamableHTTPServerTransport, new=LightTransport))


def retype(transport: Any, *, old: type, new: type) -> None:
    """A transport of exactly class `old` becomes a `new` (a subclass adding behaviour)."""
    if type(transport) is old:
        transport.__class__ = new
