"""`subscriptions/listen` (the 2026-07-28 revision) over stdio, as the HTTP server serves it
(subscriptions.py, run_watch.py): the stream's notifications travel on stdout beside the
other answers, each tagged with the listen request's id.

A listen is acknowledged first, with the part of its filter that is honoured; then the
stream hears what it asked for: a tools-list change when a toolset is enabled
(enable_toolset), and, for the workflow runs named in `resourceSubscriptions`
(`repo://{owner}/{repo}/actions/runs/{run_id}`), a resource update once per change of the
run's status or conclusion. Each run is checked and read once through the call seam before
the acknowledgment (a bad URI or an unreadable run refuses the listen with that read's
error), then polled (services/actions/_watch.py) for as long as the stream lives. The
client ends a stream with `notifications/cancelled` naming the listen request: its
polling stops, and no answer follows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from github_mcp.monitoring.observability import log_event
from github_mcp.serving.request_meta import RpcError

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import Peer
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.services.actions import WatchedRun

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
UPDATED = "notifications/resources/updated"
LIST_CHANGES = {
    "toolsListChanged": "notifications/tools/list_changed",
    "promptsListChanged": "notifications/prompts/list_changed",
    "resourcesListChanged": "notifications/resources/list_changed",
}
MAX_STREAMS = 1024  # as the HTTP server bounds its own
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

Notify = Callable[[str, dict[str, Any]], None]


@dataclass
class Stream:
    ident: Any  # the listen request's id: the subscription id
    kinds: set[str]  # the list-change notifications it asked for
    uris: list[str] = field(default_factory=list)

    def tell(self, notify: Notify, method: str, **params: Any) -> None:
        notify(method, {**params, "_meta": {SUBSCRIPTION_ID: self.ident}})


def honoured(notifications: Any) -> dict[str, Any]:
    """The filter the stream will deliver (every kind asked for is honoured; false flags
    and an empty URI list are dropped); RpcError for a malformed one."""
    if not isinstance(notifications, dict):
        raise RpcError(INVALID_PARAMS, "notifications must be an object (the stream's filter)")
    kept: dict[str, Any] = {key: True for key in LIST_CHANGES if notifications.get(key) is True}
    uris = notifications.get("resourceSubscriptions")
    if uris is not None and (
        not isinstance(uris, list) or not all(isinstance(u, str) for u in uris)
    ):
        raise RpcError(INVALID_PARAMS, "resourceSubscriptions must be a list of URIs")
    if uris:
        kept["resourceSubscriptions"] = list(uris)
    return kept


class Listens:
    """The open listen streams of this process's client."""

    def __init__(self, rt: Runtime, notify: Notify) -> None:
        self.rt = rt
        self.notify = notify
        self.streams: dict[int, Stream] = {}

    def publish(self, method: str) -> None:
        """A list change, to every stream that asked for it."""
        for stream in list(self.streams.values()):
            if method in stream.kinds:
                stream.tell(self.notify, method)

    async def serve(self, ident: Any, params: dict[str, Any], peer: Peer) -> None:
        """One stream, until cancelled (see the module docstring)."""
        wanted = honoured(params.get("notifications"))
        if len(self.streams) >= MAX_STREAMS:
            raise RpcError(INTERNAL_ERROR, "Subscription limit reached")
        uris = list(dict.fromkeys(wanted.get("resourceSubscriptions", ())))
        runs = await self._first_reads(uris, peer) if uris else []
        kinds = {LIST_CHANGES[key] for key in LIST_CHANGES if wanted.get(key)}
        stream = Stream(ident, kinds, uris)
        key = id(stream)
        self.streams[key] = stream
        try:
            stream.tell(self.notify, ACKNOWLEDGED, notifications=wanted)
            if runs:
                await self._poll(stream, runs)
            await asyncio.Event().wait()  # until the client cancels the listen
        finally:
            del self.streams[key]

    async def _first_reads(self, uris: list[str], peer: Peer) -> list[WatchedRun]:
        from github_mcp.catalog import run_resource
        from github_mcp.catalog.resources import ResourceFailure
        from github_mcp.services import actions as ci

        try:
            calls = run_resource.watched_calls(self.rt, uris)
        except run_resource.WatchRefused as refused:
            failure = refused.failure
            raise RpcError(failure.code, failure.message, failure.data) from None
        runs = []
        for uri, call in calls:
            try:
                content = await run_resource.read_run(self.rt, peer, call)
            except ResourceFailure as failed:
                raise _read_failure(failed.envelope, uri) from None
            meta = content["_meta"]
            state = (meta["status"], meta["conclusion"])
            runs.append(ci.WatchedRun(uri, call["full_name"], call["run_id"], state))
        return runs

    async def _poll(self, stream: Stream, runs: list[WatchedRun]) -> None:
        """The runs polled until the stream ends (this is cancelled); a failure of the
        polling ends it alone, the stream's other events go on."""
        from github_mcp.services import actions as ci

        async def changed(run: WatchedRun) -> None:
            log_event("run_watch_changed", run_id=run.run_id, status=run.state[0])
            stream.tell(self.notify, UPDATED, uri=run.key)

        log_event("run_watch_started", runs=len(runs), subscription=str(stream.ident)[:100])
        interval = self.rt.settings.watch_interval_seconds
        try:
            await ci.watch_runs(self.rt.github, runs, changed, interval_s=interval)
        except Exception as exc:  # a bug here must not end the stream's other events
            log_event("run_watch_failed", error=type(exc).__name__)


def _read_failure(envelope: dict[str, Any], uri: str) -> RpcError:
    from github_mcp.catalog.resources import read_error

    failure = read_error(envelope, uri[:200], modern=True)
    return RpcError(failure.code, failure.message, failure.data)
