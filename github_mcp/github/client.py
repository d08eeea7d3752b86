"""Async GitHub REST client: auth headers, retries, rate limits, ETag
revalidation, a concurrency cap per event loop, and pagination. The retry and
rate-limit policy is in retries.py, redirects in redirects.py, the path guard in paths.py.

It knows nothing of MCP. Failures surface as `GitHubMCPError` with a code.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import httpx2 as httpx

from github_mcp.config import Settings
from github_mcp.github.auth import Credentials, effective_token
from github_mcp.github.cache import Cache
from github_mcp.github.paths import refuse_unstable_path
from github_mcp.github.ref_locks import LocalLocks
from github_mcp.github.retries import (
    IDEMPOTENT_METHODS,
    backoff_delay,
    graphql_error,
    message_of,
    observe_rate_limit,
)
from github_mcp.github.sending import Outgoing, deliver
from github_mcp.github.urls import (
    Page,
    decode_cursor,
    encode_cursor,
    encode_path,
    link_target,
    next_after,
    next_page,
    route_template,
)
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import Metrics

USER_AGENT = "github-mcp-controller/0.1"


class GitHubClient:
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
        self._semaphores: dict[int, asyncio.Semaphore] = {}
        # The per-branch write locks the commit engine holds: in-process, or shared by
        # replicas (the runtime swaps in the Redis locks)
        self.ref_locks: Any = LocalLocks()
        # Replicas: rate-limit back-offs shared by every replica (None: alone)
        self.rate_limits: Any = None

    # -- plumbing ---------------------------------------------------------
    @property
    def http(self) -> httpx.AsyncClient:
        """The keep-alive client of the running event loop (one per loop)."""
        loop_id = id(asyncio.get_running_loop())
        client = self._clients.get(loop_id)
        if client is None:
            client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.settings.github_request_timeout, connect=10.0),
                headers={
                    "User-Agent": USER_AGENT,
                    "X-GitHub-Api-Version": self.settings.github_api_version,
                },
                limits=httpx.Limits(max_keepalive_connections=20, max_connections=50),
                follow_redirects=False,
                transport=self._transport,
            )
            self._clients[loop_id] = client
        return client

    async def aclose(self) -> None:
        client = self._clients.pop(id(asyncio.get_running_loop()), None)
        if client is not None:
            await client.aclose()
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

    # -- core request with retries (the steps are in sending.py) -----------------
    @asynccontextmanager
    async def _send(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json_body: Any = None,
        accept: str | None = None,
        headers: dict[str, str] | None = None,
        idempotent: bool | None = None,
        stream: bool = False,
        follow_redirects: bool = True,
    ) -> AsyncIterator[httpx.Response]:
        out = Outgoing(
            method=method,
            route=route_template(urlsplit(path).path if path.startswith("http") else path),
            url=self._url(path),
            params=params,
            json_body=json_body,
            accept=accept,
            headers=headers,
            retryable=method in IDEMPOTENT_METHODS if idempotent is None else idempotent,
            stream=stream,
            follow_redirects=follow_redirects,
        )
        response = await deliver(self, out)
        try:
            yield response
        finally:
            await response.aclose()

    async def _backoff(self, attempt: int) -> None:
        delay = backoff_delay(self.retry_base_delay, attempt)
        await asyncio.sleep(delay + random.uniform(0, delay / 2))

    async def _share_rate_limit(self, response: httpx.Response, status: int, stream: bool) -> None:
        """Publish a back-off GitHub asked for, so the other replicas wait too."""
        if stream and status in (403, 429):
            await response.aread()
        message = message_of(response) if status in (403, 429) else ""
        await self.rate_limits.observe(await self.token(), status, response.headers, message)

    # -- public API -----------------------------------------------------------
    async def request_json(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json_body: Any = None,
        idempotent: bool | None = None,
        accept: str | None = None,
    ) -> Any:
        async with self._send(
            method,
            path,
            params=params,
            json_body=json_body,
            idempotent=idempotent,
            accept=accept,
        ) as response:
            if response.status_code == 204 or not response.content:
                return None
            return response.json()

    async def request_text(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        accept: str = "application/vnd.github.raw",
        follow_redirects: bool = True,
    ) -> tuple[str, dict[str, str]]:
        """The body as text, with the headers. `follow_redirects=False` hands a 3xx back
        as is (a job log's Location points at signed storage on another host)."""
        async with self._send(
            method, path, params=params, accept=accept, follow_redirects=follow_redirects
        ) as response:
            return response.text, dict(response.headers)

    async def get_json(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        repo: str | None = None,
        ttl: float | None = None,
        immutable: bool = False,
        accept: str | None = None,
    ) -> Any:
        """GET with caching: immutable results forever; others for `ttl`
        seconds, then revalidated with If-None-Match (a 304 is free)."""
        key = self._url(path) + "?" + json.dumps(params or {}, sort_keys=True) + (accept or "")
        fresh_ttl = self.settings.cache_ttl_seconds if ttl is None else ttl
        slot = await self.cache.reserve(
            "http", key, ttl=None if immutable else fresh_ttl, repo=repo
        )
        if slot.found:
            return slot.value
        try:
            if immutable:
                body = await self.request_json("GET", path, params=params, accept=accept)
            else:
                body = await self._revalidate(path, params, key, repo, accept)
        except BaseException as exc:
            slot.fail(exc)
            raise
        await slot.fill(body)
        return body

    async def _revalidate(
        self,
        path: str,
        params: dict[str, Any] | None,
        key: str,
        repo: str | None,
        accept: str | None,
    ) -> Any:
        stale = self.cache.peek_stale("etag", key)
        extra = {"If-None-Match": stale[0]} if stale else None
        async with self._send("GET", path, params=params, headers=extra, accept=accept) as resp:
            if resp.status_code == 304 and stale:
                self.metrics.record_cache("etag", True)
                return stale[1]
            body = resp.json() if resp.content else None
            etag = resp.headers.get("etag")
            if etag:
                self.cache.set("etag", key, (etag, body), ttl=None, repo=repo)
            return body

    async def paginate(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        limit: int = 30,
        cursor: str | None = None,
        items_key: str | None = None,
        repo: str | None = None,
        after: bool = False,
    ) -> Page:
        """One page of a list endpoint; the cursor carries GitHub's page number, or with
        after=True GitHub's `after` cursor (endpoints that page by cursor only)."""
        state = decode_cursor(cursor)
        query = dict(params or {}) | {"per_page": limit}
        if after:
            query |= {"after": str(state["after"])} if state.get("after") else {}
        else:
            query["page"] = int(state.get("page", 1))
        async with self._send("GET", path, params=query) as response:
            data = response.json()
            link = response.headers.get("link", "")
        items = data.get(items_key, []) if items_key else data
        total = data.get("total_count") if isinstance(data, dict) else None
        following = next_after(link) if after else next_page(link)
        key = "after" if after else "page"
        next_cursor = encode_cursor({key: following}) if following else None
        return Page(items=items, next_cursor=next_cursor, total=total)

    async def collect(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        max_items: int = 1000,
        items_key: str | None = None,
    ) -> list[Any]:
        """Follow Link headers until done (bounded by max_items)."""
        items: list[Any] = []
        url: str | None = path
        query: dict[str, Any] | None = dict(params or {}) | {"per_page": 100}
        while url and len(items) < max_items:
            async with self._send("GET", url, params=query) as response:
                data = response.json()
                link = response.headers.get("link", "")
            items.extend(data.get(items_key, []) if items_key else data)
            url = link_target(link, "next")
            query = None
        return items[:max_items]

    async def read_raw(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        max_bytes: int,
        accept: str = "application/vnd.github.raw",
    ) -> tuple[bytes, bool, str]:
        """Stream a raw body, stopping after max_bytes + 1 (so truncation is known).

        Returns (bytes, truncated, content_type). A connection lost mid-body is
        retried like one lost before the answer (a GET is idempotent)."""
        for attempt in range(1, 4):
            buf = bytearray()
            truncated = False
            try:
                async with self._send(
                    "GET", path, params=params, accept=accept, stream=True
                ) as resp:
                    content_type = resp.headers.get("content-type", "")
                    async for chunk in resp.aiter_bytes():
                        buf.extend(chunk)
                        if len(buf) > max_bytes:
                            truncated = True
                            break
                return bytes(buf[:max_bytes]), truncated, content_type
            except httpx.TransportError:
                self.metrics.record_retry("body_interrupted")
                if attempt == 3:
                    raise GitHubMCPError(
                        ErrorCode.UPSTREAM_ERROR,
                        "The connection to GitHub broke while reading a file.",
                        retryable=True,
                        hint=(
                            "A retry usually helps; for a large file, read a byte range with "
                            "max_bytes or use the workspace."
                        ),
                    ) from None
                await self._backoff(attempt)
        raise AssertionError("unreachable")

    async def graphql(self, query: str, variables: dict[str, Any] | None = None) -> Any:
        body = await self.request_json(
            "POST",
            self.settings.graphql_url,
            json_body={"query": query, "variables": variables or {}},
            idempotent=query.lstrip().startswith("query"),
        )
        if body.get("errors"):
            raise graphql_error(body["errors"][0])
        return body.get("data")


__all__ = [
    "GitHubClient",
    "Page",
    "decode_cursor",
    "encode_cursor",
    "encode_path",
    "refuse_unstable_path",
    "route_template",
]
