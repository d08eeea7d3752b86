"""Watched workflow runs on `subscriptions/listen` streams (2026-07-28): a client names
run URIs (`repo://{owner}/{repo}/actions/runs/{run_id}`) in its filter's
`resourceSubscriptions`, and gets `notifications/resources/updated` (that URI, tagged with
the stream's subscription id) once per change of the run's status or conclusion.

Before the acknowledgment, each URI is checked and read once through the call seam, as a
`resources/read` of it would be: a bad URI or an unreadable run refuses the listen with
that read's error, and a run read counts as a read of its repository (the
cross-visibility guard's record). Then the runs are polled (services/actions/_watch.py)
in a task that lives exactly as long as the stream: a stream that closes stops its
polling. Each stream polls its own runs and is told of their changes alone, so two
streams watching one run each get each change once.

A stream without run URIs is the SDK's listen, unchanged (subscriptions.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel
from fastmcp import Context
from fastmcp.server.dependencies import bind_request_context
from mcp.server.subscriptions import ListenHandler, ResourceUpdated, ServerEvent
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from github_mcp.catalog import run_resource
from github_mcp.catalog.resources import ResourceFailure, read_error
from github_mcp.github.auth import acting_as
from github_mcp.kernel.framework_internals import serve_listen
from github_mcp.monitoring.observability import log_event
from github_mcp.services import actions as ci
from github_mcp.serving.framework_tools import peer_of
from github_mcp.serving.subscriptions import listen_bus

if TYPE_CHECKING:
    from collections.abc import Callable

    from fastmcp import FastMCP
    from mcp.server.context import ServerRequestContext
    from mcp.server.subscriptions import SubscriptionBus
    from mcp_types import SubscriptionsListenRequestParams, SubscriptionsListenResult

    from github_mcp.pipeline.peer import Peer
    from github_mcp.pipeline.runtime import Runtime

MAX_STREAMS = 1024  # open streams that watch runs, as the SDK bounds its own


def add_watching_listen(mcp: FastMCP, rt: Runtime) -> None:
    """Serve `subscriptions/listen` on `mcp`, with run watching (see the module docstring)."""
    serve_listen(mcp, WatchingListen(mcp, rt, listen_bus(mcp)))


class StreamBus:
    """One stream's bus: everything published to every stream, plus its own runs' changes
    (`tell`), which no other stream hears."""

    def __init__(self, shared: SubscriptionBus) -> None:
        self._shared = shared
        self._listeners: dict[object, Callable[[ServerEvent], None]] = {}

    async def publish(self, event: ServerEvent) -> None:
        await self._shared.publish(event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        token = object()
        self._listeners[token] = listener
        leave_shared = self._shared.subscribe(listener)

        def unsubscribe() -> None:
            self._listeners.pop(token, None)
            leave_shared()

        return unsubscribe

    async def tell(self, event: ServerEvent) -> None:
        for listener in list(self._listeners.values()):
            listener(event)
        await anyio.lowlevel.checkpoint()


class WatchingListen:
    """The `subscriptions/listen` handler (see the module docstring)."""

    def __init__(self, mcp: FastMCP, rt: Runtime, bus: SubscriptionBus) -> None:
        self._mcp, self._rt, self._bus = mcp, rt, bus
        self._plain = ListenHandler(bus)
        self._watching = 0

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        uris = list(dict.fromkeys(params.notifications.resource_subscriptions or ()))
        if not uris:
            return await self._plain(ctx, params)
        if self._watching >= MAX_STREAMS:
            raise MCPError(INTERNAL_ERROR, "Subscription limit reached")
        try:
            calls = run_resource.watched_calls(self._rt, uris)
        except run_resource.WatchRefused as refused:
            failure = refused.failure
            raise MCPError(code=failure.code, message=failure.message, data=failure.data) from None
        with bind_request_context(ctx), acting_as(_signed_in_user(self._rt)):
            peer = await peer_of(self._rt, Context(fastmcp=self._mcp))
            runs = [await self._first_read(peer, uri, call) for uri, call in calls]
            self._watching += 1
            try:
                return await self._stream(ctx, params, runs)
            finally:
                self._watching -= 1

    async def _first_read(self, peer: Peer, uri: str, call: dict[str, Any]) -> ci.WatchedRun:
        """The run read once through the seam, as resources/read would; its state is what
        the polls compare with."""
        try:
            content = await run_resource.read_run(self._rt, peer, call)
        except ResourceFailure as failed:
            raise _read_failure(failed, uri) from None
        meta = content["_meta"]
        state = (meta["status"], meta["conclusion"])
        return ci.WatchedRun(uri, call["full_name"], call["run_id"], state)

    async def _stream(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: SubscriptionsListenRequestParams,
        runs: list[ci.WatchedRun],
    ) -> SubscriptionsListenResult:
        """The SDK's listen on this stream's own bus, with the polling beside it until
        the stream ends (however it ends)."""
        bus = StreamBus(self._bus)

        async def changed(run: ci.WatchedRun) -> None:
            log_event("run_watch_changed", run_id=run.run_id, status=run.state[0])
            await bus.tell(ResourceUpdated(uri=run.key))

        interval = self._rt.settings.watch_interval_seconds

        async def poll() -> None:
            try:
                await ci.watch_runs(self._rt.github, runs, changed, interval_s=interval)
            except Exception as exc:  # a bug here must not end the stream's other events
                log_event("run_watch_failed", error=type(exc).__name__)

        log_event("run_watch_started", runs=len(runs), subscription=str(ctx.request_id))
        async with anyio.create_task_group() as group:
            group.start_soon(poll)
            try:
                result = await ListenHandler(bus)(ctx, params)
            finally:
                group.cancel_scope.cancel()
        return result


def _signed_in_user(rt: Runtime) -> Any:
    """The signed-in user the polls act as (GITHUB_MCP_AUTH=oauth), as every request does;
    None otherwise (the server's own credentials)."""
    if rt.settings.auth_mode != "oauth":
        return None
    from github_mcp.hosted import signed_in_user

    return signed_in_user()


def _read_failure(failed: ResourceFailure, uri: str) -> MCPError:
    failure = read_error(failed.envelope, uri[:200], modern=True)
    return MCPError(code=failure.code, message=failure.message, data=failure.data)
