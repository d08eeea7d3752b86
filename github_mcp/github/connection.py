"""The connection to GitHub under the client: one keep-alive HTTP client and one
concurrency cap per event loop, the auth headers (the acting user's token or the
server's), the guard on where a URL may point, back-off sleeps, and the two requests that
bypass the retrying path (the App token exchange and health probes). It is what
sending.py's `Sender` describes; client.py's `GitHubClient` builds its requests on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import random
import urllib.request
from typing import Any

import httpx2 as httpx

from github_mcp.config import Settings
from github_mcp.github.auth import Credentials, effective_token
from github_mcp.github.cache import Cache
from github_mcp.github.paths import refuse_unstable_path
from github_mcp.github.ref_locks import LocalLocks
from github_mcp.github.retries import backoff_delay, message_of, observe_rate_limit
from github_mcp.github.tls import tls_context
from github_mcp.github.urls import route_template
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import Metrics

USER_AGENT = "github-mcp-controller/0.1"
LIMITS = httpx.Limits(max_keepalive_connections=20, max_connections=50)


# What the HTTP stack imports at its first connection (anyio's asyncio backend, its
# streams and locks): tens of milliseconds a first call need not wait for.
FIRST_CONNECTION_MODULES = (
    "anyio._backends._asyncio",
    "anyio._core._sockets",
    "anyio._core._streams",
    "anyio._core._synchronization",
    "anyio.lowlevel",
    "anyio.streams.memory",
    "anyio.streams.stapled",
)


def warm_up() -> None:
    """Pay now, on any thread, what the first request to GitHub would otherwise pay: the
    TLS context (loading the CA bundle) and the modules of a first connection."""
    tls_context()
    for name in FIRST_CONNECTION_MODULES:
        with contextlib.suppress(ImportError):  # another anyio version: paid on first use
            importlib.import_module(name)


class Connection:
    """Per event loop: the keep-alive client and the concurrency cap; per request: headers."""

    def __init__(
        self,
        settings: Settings,
        metrics: Metrics,
        cache: Cache,
        credentials: Credentials,
        *,
        retry_base_delay: float = 0.5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.cache = cache
        self.credentials = credentials
        self.base_url = settings.github_api_url
        self.retry_base_delay = retry_base_delay
        self._transport = transport
        self._clients: dict[int, httpx.AsyncClient] = {}
        # the client's own transport, when requests may skip the client's layers (dispatch)
        self._direct: dict[int, httpx.AsyncBaseTransport] = {}
        self._semaphores: dict[int, asyncio.Semaphore] = {}
        # The per-branch write locks the commit engine holds: in-process, or shared by
        # replicas (the runtime swaps in the Redis locks)
        self.ref_locks: Any = LocalLocks()
        # Replicas: rate-limit back-offs shared by every replica (None: alone)
        self.rate_limits: Any = None
        # Replicas: awaited before each request that changes something (a write call's
        # idempotency claim must still be its own); None: alone
        self.write_fence: Any = None

    @property
    def http(self) -> httpx.AsyncClient:
        """The keep-alive client of the running event loop (one per loop)."""
        loop_id = id(asyncio.get_running_loop())
        client = self._clients.get(loop_id)
        if client is None:
            transport = self._transport or self._own_transport()
            client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.settings.github_request_timeout, connect=10.0),
                headers={
                    "User-Agent": USER_AGENT,
                    "X-GitHub-Api-Version": self.settings.github_api_version,
                },
                follow_redirects=False,
                transport=transport,
                # used only without a transport of its own (which carries them): proxies
                verify=tls_context() if transport is None else True,
                limits=LIMITS,
            )
            self._clients[loop_id] = client
            if transport is not None:
                self._direct[loop_id] = transport
        return client

    @staticmethod
    def _own_transport() -> httpx.AsyncHTTPTransport | None:
        """The transport requests may go to directly; None when the environment names a
        proxy: the client then routes each request itself (an explicit transport would
        turn its proxy support off)."""
        if urllib.request.getproxies():
            return None
        return httpx.AsyncHTTPTransport(verify=tls_context(), limits=LIMITS)

    async def dispatch(self, request: httpx.Request, *, stream: bool) -> httpx.Response:
        """Send a request built by `http`: straight to its transport when no proxy is
        configured. The client's own send adds only what these requests never use
        (auth flows, redirects, cookies, event hooks, a timer), a quarter of a read's CPU."""
        client = self.http
        transport = self._direct.get(id(asyncio.get_running_loop()))
        if transport is None:
            return await client.send(request, stream=stream)
        response = await transport.handle_async_request(request)
        response.request = request
        if not stream:
            try:
                await response.aread()  # closes the stream once read
            except BaseException:
                await response.aclose()
                raise
        return response

    async def aclose(self) -> None:
        client = self._clients.pop(id(asyncio.get_running_loop()), None)
        if client is not None:
            await client.aclose()
        self._direct.clear()
        self._clients.clear()  # clients of other (finished) loops cannot be closed from here

    def _semaphore(self) -> asyncio.Semaphore:
        loop_id = id(asyncio.get_running_loop())
        sem = self._semaphores.get(loop_id)
        if sem is None:
            sem = asyncio.Semaphore(self.settings.github_max_concurrency)
            self._semaphores[loop_id] = sem
        return sem

    def _url(self, path: str) -> str:
        refuse_unstable_path(path)
        if path.startswith(("http://", "https://")):
            if not path.startswith(self.base_url + "/"):
                raise GitHubMCPError(
                    ErrorCode.INTERNAL,
                    "Refusing to follow a foreign URL.",
                    hint=(
                        "GitHub answered with a link to another host; it was not followed. "
                        "Report the call_id to the server operator."
                    ),
                )
            return path
        return self.base_url + path

    async def _headers(self, accept: str | None, extra: dict[str, str] | None) -> dict[str, str]:
        headers = {"Accept": accept or "application/vnd.github+json"}
        token = await self.token()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if extra:
            headers.update(extra)
        return headers

    async def token(self) -> str | None:
        """The token this request carries: the signed-in user's while a call acts for
        one (hosted sign-in), else the server's own."""
        return await effective_token(self.credentials)

    async def raw_post(self, path: str, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """Unauthenticated-by-token POST (App token exchange)."""
        response = await self.http.post(
            self._url(path), headers={"Accept": "application/vnd.github+json", **headers}
        )
        self.metrics.record_github(route_template(path), "POST", response.status_code)
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, {}

    async def probe(self, path: str, *, timeout_s: float) -> int | str:
        """One GET with a short timeout and no retry, for health checks: the status
        code, or "timeout" / "unreachable"."""
        route = route_template(path)
        try:
            response = await self.http.get(
                self._url(path), headers=await self._headers(None, None), timeout=timeout_s
            )
        except httpx.TimeoutException:
            self.metrics.record_github(route, "GET", "timeout")
            return "timeout"
        except httpx.TransportError:
            self.metrics.record_github(route, "GET", "network_error")
            return "unreachable"
        self.metrics.record_github(route, "GET", response.status_code)
        observe_rate_limit(self.metrics, response)
        return response.status_code

    async def _backoff(self, attempt: int) -> None:
        delay = backoff_delay(self.retry_base_delay, attempt)
        await asyncio.sleep(delay + random.uniform(0, delay / 2))

    async def _share_rate_limit(self, response: httpx.Response, status: int, stream: bool) -> None:
        """Publish a back-off GitHub asked for, so the other replicas wait too."""
        if stream and status in (403, 429):
            await response.aread()
        message = message_of(response) if status in (403, 429) else ""
        await self.rate_limits.observe(await self.token(), status, response.headers, message)
