"""Streamable HTTP sessions: an idle timeout, a cap, sleep, and the live count for /status.

A session a client abandons without DELETE keeps its server task and streams (about 35 KB
of Python objects; session_context keeps it from also holding the requests that reached
it) until it sleeps (about 7 KB then: see session_hibernation), and then until it times
out. The protocol library's default is 30 minutes, so a burst of abandoned sessions held
tens of MB. Here the idle timeout comes from GITHUB_MCP_SESSION_IDLE_TIMEOUT_SECONDS, and
GITHUB_MCP_MAX_SESSIONS bounds how many are open at once: past it, the library answers a
new session HTTP 503 with a JSON-RPC error, while open sessions carry on.

The session manager only exists while the HTTP app's lifespan runs, so the cap is set,
and the manager remembered for the count, from a wrapper around that lifespan.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastmcp.server.http import StreamableHTTPASGIApp
from starlette.applications import Starlette

from github_mcp.kernel.framework_internals import sessions
from github_mcp.serving.json_answers import choose_answers
from github_mcp.serving.proxy_session_ids import ProposedSessionId, adopt_proposed_ids
from github_mcp.serving.session_context import lighten_sessions
from github_mcp.serving.session_hibernation import Hibernation


class SessionLimits:
    """The configured limits of one HTTP app, and its open sessions once it runs."""

    def __init__(
        self,
        *,
        idle_timeout_s: float,
        max_sessions: int,
        stateless: bool,
        proxy_id_header: str = "",
        hibernate_after_s: float = 0.0,
    ) -> None:
        self.idle_timeout_s = idle_timeout_s
        self.max_sessions = max_sessions
        self.stateless = stateless
        self.proxy_id_header = proxy_id_header  # see proxy_session_ids
        self.hibernate_after_s = hibernate_after_s  # see session_hibernation; 0: never
        self.keep_sessions = False  # set by shared_sessions: a session may be revived
        self._manager: Any = None
        self._sleep: Hibernation | None = None

    def attach(self, app: Starlette, mcp_path: str = "/mcp") -> None:
        """Apply the cap to `app`'s session manager each time its lifespan starts."""
        endpoint = _streamable_endpoint(app, mcp_path)
        inner_lifespan = app.router.lifespan_context

        @contextlib.asynccontextmanager
        async def lifespan(running: Any) -> AsyncIterator[Any]:
            async with inner_lifespan(running) as state:
                manager = endpoint.session_manager
                if manager is not None:
                    lighten_sessions(manager)  # see session_context
                    choose_answers(manager, stateless=self.stateless)  # JSON unless streaming
                if manager is not None and not self.stateless:
                    manager.max_sessions = self.max_sessions  # read at each new session
                    if self.proxy_id_header:
                        adopt_proposed_ids(manager)
                sleep = self._sleep = self._hibernation(manager)
                self._manager = manager
                try:
                    yield state
                finally:
                    self._manager = self._sleep = None
                    if sleep is not None:
                        await sleep.aclose()

        app.router.lifespan_context = lifespan
        if self.proxy_id_header and not self.stateless:
            app.add_middleware(ProposedSessionId, header=self.proxy_id_header)

    def _hibernation(self, manager: Any) -> Hibernation | None:
        """Idle sessions sleep when the grace period is shorter than the idle timeout; a
        manager that may take revived sessions wakes them the same way."""
        timeout = getattr(manager, "session_idle_timeout", None)
        if manager is None or self.stateless or timeout is None:
            return None
        grace: float | None = self.hibernate_after_s
        if not grace or grace >= timeout:
            if not self.keep_sessions:
                return None
            grace = None  # wakes revived sessions, never puts one to sleep
        hibernation = Hibernation(manager, grace, timeout)
        hibernation.install()
        return hibernation

    @property
    def manager(self) -> Any:
        """The running session manager (None while the app is not running)."""
        return self._manager

    def connection_of(self, session_id: str) -> Any:
        """The protocol connection of an open session here, awake or asleep."""
        sleep = self._sleep
        return None if sleep is None else sleep.connection_of(session_id)

    def revive(self, session_id: str, connection: Any, owner: Any) -> bool:
        """Open a session another replica issued, asleep, to wake on its request."""
        return self._sleep is not None and self._sleep.revive(session_id, connection, owner)

    def asleep_sessions(self) -> int:
        """Of the open sessions, those asleep (see session_hibernation)."""
        return 0 if self._sleep is None else len(self._sleep)

    def open_sessions(self) -> int | None:
        """Sessions open now (None while the app is not running, or stateless)."""
        if self._manager is None or self.stateless:
            return None
        # the library keeps no public count; this dict is what its cap is checked on (a
        # sleeping session's record stays in it: it is still open, and counts to the cap)
        return len(sessions(self._manager))


def _streamable_endpoint(app: Starlette, mcp_path: str) -> StreamableHTTPASGIApp:
    """The streamable HTTP endpoint behind `mcp_path`, under any auth wrappers."""
    for route in app.router.routes:
        if getattr(route, "path", None) != mcp_path:
            continue
        node: Any = getattr(route, "endpoint", None)
        for _ in range(8):  # auth middleware wraps it a level or two deep
            if isinstance(node, StreamableHTTPASGIApp):
                return node
            node = getattr(node, "app", None)
    raise RuntimeError(f"no streamable HTTP endpoint at {mcp_path}")
