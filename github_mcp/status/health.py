"""Liveness and readiness.

`/healthz` (liveness) answers 200 while the process serves, whatever GitHub is doing:
restarting the server would not fix GitHub, and a PaaS that restarts on a failed
liveness probe would otherwise restart every instance in a loop during an outage. It
answers from process state only and never waits on GitHub (a probe with a 1 s timeout
must not fail while GitHub hangs); the body carries GitHub's last known state, which a
stale probe refreshes in the background. `/readyz` (readiness) answers 503 while a dependency is
down (GitHub unreachable, credentials rejected, a registered check failing, or the
server draining for shutdown), so a load balancer sends the work elsewhere.

The upstream check is one GET with a short timeout and no retries. Its answer is fresh
for FRESH_S; an older one is still shown while a new check runs in the background, and a
check that has not answered within SLOW_S counts as GitHub not answering (without
waiting for its timeout). So an outage shows within FRESH_S + SLOW_S plus the probes'
own interval (a few seconds), and probes from many load balancers cost GitHub at most
one request a second. Other components (a shared cache, say) add their own checks with
`readiness(rt).add_check(name, check)`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from github_mcp.monitoring.observability import log_event

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

FRESH_S = 1.0  # an answer younger than this is used as it is
SLOW_S = 1.5  # a check this old without an answer: GitHub is not answering
UPSTREAM_TIMEOUT_S = 2.0
CHECK_TIMEOUT_S = 2.0

# A readiness check answers (ok, detail); it must be quick and must not raise.
ReadinessCheck = Callable[[], Awaitable[tuple[bool, str]]]


@dataclass(frozen=True)
class UpstreamState:
    reachable: bool
    credentials_valid: bool | None  # None: no credentials to check
    state: str  # ok | unauthorized | timeout | unreachable | http_<status>
    checked_at: float


class HealthProbe:
    # per probe, so a test not about the cutoff can give a loaded machine's check room
    fresh_s = FRESH_S
    slow_s = SLOW_S

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.checks = 0  # upstream requests made (for tests and the status page)
        self._state: UpstreamState | None = None
        self._fresh_until = 0.0
        self._refreshing: asyncio.Task[UpstreamState] | None = None
        self._refresh_began = 0.0
        self._extra: dict[str, ReadinessCheck] = {}
        self.draining = False
        # (ready, checks, when) of the latest readiness evaluation, for the status page
        self.last_readiness: tuple[bool, dict[str, Any], float] | None = None

    def add_check(self, name: str, check: ReadinessCheck) -> None:
        """Make readiness also depend on `check` (e.g. "redis")."""
        self._extra[name] = check

    async def upstream(self) -> UpstreamState:
        """A fresh state: the last one while fresh, else the running check's answer, or
        `unresponsive` once that check has waited SLOW_S (it goes on in the background)."""
        if self._state is not None and time.monotonic() < self._fresh_until:
            return self._state
        task = self._refresh()
        if task is None:
            return self.known()
        left = self._refresh_began + self.slow_s - time.monotonic()
        if left > 0:
            await asyncio.wait([task], timeout=left)
        if task.done() and not task.cancelled() and task.exception() is None:
            return task.result()
        return self.known()

    def known(self) -> UpstreamState:
        """The latest upstream state, without waiting: liveness answers from process state
        only. A stale (or missing) state is refreshed in the background; a refresh that
        has waited SLOW_S already says GitHub is not answering."""
        if self._state is None or time.monotonic() >= self._fresh_until:
            self._refresh()
        task = self._refreshing
        if (
            task is not None
            and not task.done()
            and time.monotonic() - self._refresh_began >= self.slow_s
        ):
            return UpstreamState(False, None, "unresponsive", time.time())
        return self._state or UpstreamState(False, None, "unchecked", 0.0)

    def _refresh(self) -> asyncio.Task[UpstreamState] | None:
        """The running check, or a new one (None outside an event loop)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a page rendered outside the server)
            return None
        running = self._refreshing
        if running is not None and not running.done() and running.get_loop() is loop:
            return running
        self._refreshing = loop.create_task(self._check())
        self._refresh_began = time.monotonic()
        return self._refreshing

    async def _check(self) -> UpstreamState:
        self.checks += 1
        state = await self._ask_github()
        self._state, self._fresh_until = state, time.monotonic() + self.fresh_s
        self.rt.metrics.set_gauge("mcp_github_up", 1.0 if state.reachable else 0.0)
        if state.state != "ok":
            log_event("github_health_failed", state=state.state)
        return state

    async def _ask_github(self) -> UpstreamState:
        has_credentials = self.rt.settings.has_github_credentials
        status = await self.rt.github.probe("/rate_limit", timeout_s=UPSTREAM_TIMEOUT_S)
        now = time.time()
        if isinstance(status, str):  # timeout / unreachable
            return UpstreamState(False, None, status, now)
        if status == 401:
            return UpstreamState(True, False, "unauthorized", now)
        if status < 400:
            return UpstreamState(True, True if has_credentials else None, "ok", now)
        return UpstreamState(status < 500, None, f"http_{status}", now)

    async def readiness(self) -> tuple[bool, dict[str, Any]]:
        upstream = await self.upstream()
        checks: dict[str, dict[str, Any]] = {
            "github": {"ok": upstream.reachable, "state": upstream.state},
            "credentials": {
                "ok": upstream.credentials_valid is not False,
                "state": {True: "valid", False: "rejected", None: "unchecked"}[
                    upstream.credentials_valid
                ],
            },
            "accepting_work": {"ok": not self.draining},
        }
        for name, check in self._extra.items():
            try:
                ok, detail = await asyncio.wait_for(check(), CHECK_TIMEOUT_S)
            except TimeoutError:
                ok, detail = False, "timeout"
            except Exception as exc:
                ok, detail = False, type(exc).__name__
            checks[name] = {"ok": ok, "state": detail}
        ready = all(c["ok"] for c in checks.values())
        self.rt.metrics.set_gauge("mcp_ready", 1.0 if ready else 0.0)
        self.last_readiness = (ready, checks, time.time())
        return ready, checks


def readiness(rt: Runtime) -> HealthProbe:
    """The runtime's probe, created on first use (so checks can be added before serving)."""
    probe = rt.health_probe
    if not isinstance(probe, HealthProbe):
        probe = rt.health_probe = HealthProbe(rt)
    return probe
