"""State shared by replicas (GITHUB_MCP_STATE_URL): Redis behind small interfaces.

Empty URL: nothing here is built and every piece of state stays in the process. A
`redis://` or `rediss://` URL builds `ReplicaState`, whose parts plug into the places
that keep state: the gate's approval store, the cache's second level and repository
generations, the GitHub client's rate-limit back-offs, the commit engine's per-branch
lock, the workspace manager's per-clone lock, the pipeline's idempotent writes, the
audit log's stream, the HTTP transport's event store (resumable streams, with the
relay that lets another replica resume them), the open approval requests (so any
replica serves the approval page), and readiness.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

from github_mcp.config import Settings
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.state._approvals import RedisApprovalStore
from github_mcp.state._cache import SharedCacheTier
from github_mcp.state._connection import SharedState, pending, replica_name
from github_mcp.state._events import Heartbeat, RedisEventStore, ResumeRelay
from github_mcp.state._idempotency import IdempotentWrites, WriteClaim, idempotency_key
from github_mcp.state._locks import Fence, RedisLocks
from github_mcp.state._questions import SharedQuestions
from github_mcp.state._ratelimits import SharedRateLimits
from github_mcp.state._reads import SharedReads
from github_mcp.state._requests import RedisRequestStore

AUDIT_STREAM_MAXLEN = 100_000
_LeaseHold = contextlib.AbstractAsyncContextManager[Fence | None]


class AuditStream:
    """Each audit entry also goes to one Redis stream (XADD) an operator reads in one
    place (`XRANGE ghmcp:audit - +`); the fsync'd local file stays the record."""

    def __init__(self, state: SharedState) -> None:
        self._state = state
        self.key = state.key("audit")
        self._pending: set[asyncio.Task[None]] = set()

    def append(self, entry: dict[str, Any]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self._add(entry))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _add(self, entry: dict[str, Any]) -> None:
        fields: dict[Any, Any] = {"replica": self._state.replica}
        fields["entry"] = json.dumps(entry, default=str)
        try:
            async with self._state.op("audit_xadd") as r:
                await r.xadd(self.key, fields, maxlen=AUDIT_STREAM_MAXLEN, approximate=True)
        except GitHubMCPError:
            log_event("audit_stream_failed")

    async def latest(self, count: int) -> list[dict[str, Any]]:
        """The newest `count` entries of every replica, newest first ([] if unreachable)."""
        try:
            async with self._state.op("audit_read") as r:
                rows = await r.xrevrange(self.key, count=count)
        except GitHubMCPError:
            return []
        return [json.loads(fields[b"entry"]) for _, fields in rows if b"entry" in fields]

    async def drain(self) -> None:
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)


class ReplicaState:
    def __init__(self, settings: Settings, *, replica: str | None = None) -> None:
        assert settings.state_url is not None
        url = settings.state_url.get_secret_value()
        if not url.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("GITHUB_MCP_STATE_URL must be a redis:// or rediss:// URL")
        self.settings = settings
        self.state = SharedState(url, replica=replica)
        self.approvals = RedisApprovalStore(self.state)
        self.requests = RedisRequestStore(self.state)
        self.cache = SharedCacheTier(self.state)
        self.ref_locks = RedisLocks(
            self.state, lease_s=settings.write_lock_lease_seconds, kind="ref", take_over=True
        )
        # held for a whole command: waiters wait as long as the longest command may run
        self.workspace_locks = RedisLocks(
            self.state,
            lease_s=settings.write_lock_lease_seconds,
            wait_s=settings.workspace_max_timeout + 120,
            kind="workspace",
        )
        self.rate_limits = SharedRateLimits(self.state, max_wait_s=settings.github_max_retry_wait)
        self.writes = IdempotentWrites(self.state, settings.idempotency_ttl_seconds)
        self.audit = AuditStream(self.state)
        self.events = RedisEventStore(self.state)
        self.heartbeat = Heartbeat(self.state)
        self.writes.beating = lambda: self.heartbeat.running
        self.ref_locks.beating = self.writes.beating
        self.reads = SharedReads(self.state)  # the cross-visibility guard's read record
        self.questions = SharedQuestions(self.state)  # elicitations answered anywhere

    @property
    def replica(self) -> str:
        return self.state.replica

    def workspace_lock(self, root: Path) -> Callable[[Path, bool], _LeaseHold]:
        """The workspace manager's shared lock: one per workspace directory, named by its
        path under `root` (the workspace volume, mounted anywhere on each replica)."""

        def lock(
            workspace: Path, wait: bool
        ) -> contextlib.AbstractAsyncContextManager[Fence | None]:
            try:
                name = workspace.resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                name = workspace.resolve().as_posix()
            return self.workspace_locks.hold_if(name, wait=wait)

        return lock

    async def check(self) -> tuple[bool, str]:
        return await self.state.check()

    async def claim_write(
        self, principal: str, tool: str, arguments: dict[str, Any], client_key: str | None
    ) -> WriteClaim | None:
        """Before a write: its idempotency claim (None when turned off), after making
        sure Redis answers. Raises `unavailable` when it does not: no write goes ahead
        without its coordination."""
        await self.state.settle("write")
        if self.settings.idempotency_ttl_seconds <= 0:
            async with self.state.op("write_ping", writing=True) as r:
                await pending(r.ping())
            return None
        key = idempotency_key(principal, tool, arguments, client_key)
        return await self.writes.claim(key)

    def attach_http(self, app: Starlette, is_local_session: Callable[[str], bool]) -> None:
        """The heartbeat for the app's lifetime, and the resume relay before /mcp."""
        _wrap_endpoint(
            app, lambda inner: ResumeRelay(inner, self.events, self.heartbeat, is_local_session)
        )
        inner_lifespan = app.router.lifespan_context

        @contextlib.asynccontextmanager
        async def lifespan(running: Any) -> AsyncIterator[Any]:
            self.heartbeat.start()
            log_event("replica_started", replica=self.replica)
            try:
                async with inner_lifespan(running) as state:
                    yield state
            finally:
                await self.heartbeat.stop()
                await self.questions.stop()
                await self.audit.drain()

        app.router.lifespan_context = lifespan

    async def aclose(self) -> None:
        await self.state.aclose()


def _wrap_endpoint(app: Starlette, wrap: Callable[[Any], Any], path: str = "/mcp") -> None:
    """Put `wrap(endpoint)` where the streamable HTTP endpoint at `path` is, inside any
    auth wrappers (so the relay sees the authenticated principal)."""
    from fastmcp.server.http import StreamableHTTPASGIApp

    routes: list[Any] = list(app.router.routes)
    for route in routes:
        if getattr(route, "path", None) != path:
            continue
        holder: Any = route
        node: Any = getattr(holder, "app", None)
        for _ in range(8):
            if isinstance(node, StreamableHTTPASGIApp):
                holder.app = wrap(node)
                if holder is route and getattr(route, "endpoint", None) is node:
                    route.endpoint = holder.app
                return
            holder, node = node, getattr(node, "app", None)
    raise RuntimeError(f"no streamable HTTP endpoint at {path}")


def local_sessions(app: Starlette, path: str = "/mcp") -> Callable[[str], bool]:
    """Whether a session id is held by this process's session manager."""
    from fastmcp.server.http import StreamableHTTPASGIApp

    from github_mcp.kernel.framework_internals import sessions

    endpoints = []
    for route in app.router.routes:
        if getattr(route, "path", None) == path:
            node: Any = getattr(route, "endpoint", None)
            for _ in range(8):
                if isinstance(node, StreamableHTTPASGIApp):
                    endpoints.append(node)
                    break
                node = getattr(node, "app", None)

    def is_local(session_id: str) -> bool:
        for endpoint in endpoints:
            manager = endpoint.session_manager
            if manager is not None and session_id in sessions(manager):
                return True
        return False

    return is_local


def build_replica_state(settings: Settings) -> ReplicaState | None:
    if settings.state_url is None or not settings.state_url.get_secret_value():
        return None
    return ReplicaState(settings)


__all__ = [
    "AuditStream",
    "Fence",
    "RedisApprovalStore",
    "RedisEventStore",
    "RedisLocks",
    "RedisRequestStore",
    "ReplicaState",
    "SharedQuestions",
    "SharedRateLimits",
    "SharedState",
    "WriteClaim",
    "build_replica_state",
    "replica_name",
]
