"""One GitHub request, as named steps: send one attempt, then decide what its outcome
calls for (retry a transport error, wait out a secondary rate limit, retry a server error,
follow a redirect) or raise the structured error. The decisions themselves (which statuses,
how many attempts) are plain functions in retries.py; the steps here do the I/O around them.

`deliver` is the loop the client's `_send` runs; it hands back an open response that the
caller closes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import httpx2 as httpx

from github_mcp.github.redirects import MAX_REDIRECTS, redirect_target
from github_mcp.github.retries import (
    MAX_ATTEMPTS,
    MAX_RATE_LIMIT_ATTEMPTS,
    error_for,
    observe_rate_limit,
    retries_failure,
    secondary_limit_wait,
    shares_rate_limit,
    wants_redirect,
)
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring import client_log, tracing
from github_mcp.monitoring.observability import log_event

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.monitoring.observability import Metrics


class Sender(Protocol):
    """What the steps need of client.py's GitHubClient, which calls them; a Protocol so
    that this module does not import client.py back."""

    settings: Settings
    metrics: Metrics
    base_url: str
    rate_limits: Any
    write_fence: Any

    @property
    def http(self) -> httpx.AsyncClient: ...

    async def dispatch(self, request: httpx.Request, *, stream: bool) -> httpx.Response: ...

    async def token(self) -> str | None: ...

    async def _headers(
        self, accept: str | None, extra: dict[str, str] | None
    ) -> dict[str, str]: ...

    def _semaphore(self) -> asyncio.Semaphore: ...

    async def _backoff(self, attempt: int) -> None: ...

    async def _share_rate_limit(
        self, response: httpx.Response, status: int, stream: bool
    ) -> None: ...


@dataclass
class Outgoing:
    """What one `_send` asks for, and how far it got (attempts, redirects, where to)."""

    method: str
    route: str
    url: str
    params: dict[str, Any] | None
    json_body: Any
    accept: str | None
    headers: dict[str, str] | None
    retryable: bool
    stream: bool
    follow_redirects: bool
    attempt: int = 0
    redirects: int = 0


async def deliver(client: Sender, out: Outgoing) -> httpx.Response:
    """Send until an answer is final: the open response of a success (or 304), else the
    structured error."""
    while True:
        out.attempt += 1
        try:
            response = await send_attempt(client, out)
        except httpx.TransportError as exc:  # timeouts included
            await retry_transport_error(client, out, exc)
            continue
        if await _next_step(client, out, response):
            continue
        await raise_for_status(client, out, response)
        return response


async def _next_step(client: Sender, out: Outgoing, response: httpx.Response) -> bool:
    """Record the answer; True when a retry or a redirect sends the request again."""
    client.metrics.record_github(out.route, out.method, response.status_code)
    observe_rate_limit(client.metrics, response)
    if client.rate_limits is not None and shares_rate_limit(response):
        await client._share_rate_limit(response, response.status_code, out.stream)
    return (
        await retry_rate_limit(client, out, response)
        or await retry_server_error(client, out, response)
        or await follow_redirect(client, out, response)
    )


async def send_attempt(client: Sender, out: Outgoing) -> httpx.Response:
    """One attempt on the wire: the replicas' shared back-off, fresh headers (a token may
    have been refreshed), the concurrency cap, and a span."""
    if client.rate_limits is not None:
        await client.rate_limits.wait_turn(await client.token(), out.route)
    if client.write_fence is not None and changes(out):
        await client.write_fence()  # right before it leaves: the wait above may be long
    headers = await client._headers(out.accept, out.headers)
    request = client.http.build_request(
        out.method, out.url, params=out.params, json=out.json_body, headers=headers
    )
    async with client._semaphore():
        client.metrics.github_in_flight(1)
        try:
            attributes = {
                "http.request.method": out.method,
                "url.template": out.route,
                "github.attempt": out.attempt,
            }
            with tracing.span(f"GitHub {out.method} {out.route}", **attributes) as span:
                response = await client.dispatch(request, stream=out.stream)
                tracing.annotate(span, **{"http.response.status_code": response.status_code})
        finally:
            client.metrics.github_in_flight(-1)
    return response


def changes(out: Outgoing) -> bool:
    """Whether the request may change something on GitHub (a GraphQL query does not)."""
    if out.method in ("GET", "HEAD", "OPTIONS"):
        return False
    if isinstance(out.json_body, dict) and out.url.endswith("/graphql"):
        query = out.json_body.get("query")
        return not (isinstance(query, str) and query.lstrip().startswith(("query", "{")))
    return True


async def retry_transport_error(client: Sender, out: Outgoing, exc: httpx.TransportError) -> None:
    """Back off before the next attempt after a timeout or a network error, or raise."""
    timeout = isinstance(exc, httpx.TimeoutException)
    kind = "timeout" if timeout else "network_error"
    if timeout:
        client.metrics.record_timeout()
    client.metrics.record_github(out.route, out.method, kind)
    if retries_failure(out.retryable, out.attempt):
        client.metrics.record_retry(kind)
        what = (
            f"GitHub did not answer {out.method} {out.route} in time"
            if timeout
            else f"Network error on {out.method} {out.route}"
        )
        await client_log.warning(f"{what}; retrying (attempt {out.attempt + 1} of {MAX_ATTEMPTS})")
        await client._backoff(out.attempt)
        return
    if timeout:
        raise GitHubMCPError(
            ErrorCode.TIMEOUT,
            f"GitHub did not answer in time ({out.method} {out.route}).",
            hint=(
                "Retry; for a large listing, ask for a smaller page (per_page) or a narrower range."
            ),
        ) from None
    log_event("github_network_error", route=out.route, error=type(exc).__name__)
    raise GitHubMCPError(
        ErrorCode.UPSTREAM_ERROR,
        f"Network error talking to GitHub ({out.method} {out.route}).",
        retryable=True,
        hint=(
            "A retry after a short wait usually helps; if it persists, check GitHub's status page."
        ),
    ) from None


async def retry_rate_limit(client: Sender, out: Outgoing, response: httpx.Response) -> bool:
    """Wait out a short secondary rate limit (403/429 with Retry-After); True to retry."""
    if response.status_code not in (403, 429):
        return False
    wait = await secondary_limit_wait(
        response, out.stream, client.metrics, client.settings.github_max_retry_wait
    )
    if wait is None or out.attempt >= MAX_RATE_LIMIT_ATTEMPTS:
        return False
    client.metrics.record_retry("secondary_rate_limit")
    await response.aclose()
    await client_log.warning(
        f"GitHub's secondary rate limit: waiting {wait:g} s before retrying "
        f"{out.method} {out.route}"
    )
    await asyncio.sleep(wait)
    return True


async def retry_server_error(client: Sender, out: Outgoing, response: httpx.Response) -> bool:
    """Back off and retry a 5xx of an idempotent request; True to retry."""
    status = response.status_code
    if not retries_failure(out.retryable, out.attempt, status):
        return False
    client.metrics.record_retry("server_error")
    await response.aclose()
    await client_log.info(
        f"GitHub answered {status} to {out.method} {out.route}; retrying "
        f"(attempt {out.attempt + 1} of {MAX_ATTEMPTS})"
    )
    await client._backoff(out.attempt)
    return True


async def follow_redirect(client: Sender, out: Outgoing, response: httpx.Response) -> bool:
    """Point the request at a 3xx's Location (reads, same host; see redirects.py); True
    to send it there. The attempts start again: a new address is a new request."""
    if not (out.follow_redirects and wants_redirect(response.status_code)):
        return False
    target = await redirect_target(response, out.method, out.route, out.stream, client.base_url)
    out.redirects += 1
    if out.redirects > MAX_REDIRECTS:
        raise GitHubMCPError(
            ErrorCode.UPSTREAM_ERROR,
            f"GitHub redirected {out.method} {out.route} more than {MAX_REDIRECTS} times.",
            hint=(
                "GitHub kept redirecting; retry later, and report the call_id to the "
                "server operator if it persists."
            ),
        )
    out.url, out.params, out.attempt = target, None, 0  # the Location carries its query
    return True


async def raise_for_status(client: Sender, out: Outgoing, response: httpx.Response) -> None:
    """Close a failed answer and raise its structured error; a success (or 304) passes."""
    status = response.status_code
    if status < 400 or status == 304:
        return
    try:
        if out.stream:
            await response.aread()
        raise error_for(response, out.method, out.route, client.metrics)
    finally:
        await response.aclose()
