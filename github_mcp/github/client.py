"""Async GitHub REST client: retries, rate limits, ETag revalidation, pagination,
streamed bodies and GraphQL. The connection under it (keep-alive clients and the
concurrency cap per event loop, auth headers, the URL guard) is in connection.py; the
steps of one request in sending.py, the retry and rate-limit policy in retries.py,
redirects in redirects.py, the path guard in paths.py.

It knows nothing of MCP. Failures surface as `GitHubMCPError` with a code.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit

import httpx2 as httpx

from github_mcp.github.connection import Connection
from github_mcp.github.paths import refuse_unstable_path
from github_mcp.github.provenance import AnswerReader, Sources
from github_mcp.github.retries import IDEMPOTENT_METHODS, graphql_error
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


class GitHubClient(Connection):
    """The request API the services use, on the connection of connection.py. Every
    answer it hands back has been shown to `answers` first, which notes the sources it
    names on the call in progress (provenance.py): the read record of the
    cross-visibility guard, kept below the tools so that no tool can leave it out."""

    @cached_property
    def answers(self) -> AnswerReader:
        return AnswerReader(self.settings.github_api_url, self.settings.web_base_url)

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
        graphql = isinstance(json_body, dict) and path == self.settings.graphql_url
        self.answers.request(path, json_body.get("variables") if graphql else None)
        try:
            yield response
        finally:
            await response.aclose()

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
        body, _ = await self._json(
            method, path, params=params, json_body=json_body, idempotent=idempotent, accept=accept
        )
        return body

    async def _json(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json_body: Any = None,
        idempotent: bool | None = None,
        accept: str | None = None,
    ) -> tuple[Any, Sources | None]:
        """The body and the sources it names (provenance.py)."""
        async with self._send(
            method,
            path,
            params=params,
            json_body=json_body,
            idempotent=idempotent,
            accept=accept,
        ) as response:
            if response.status_code == 204 or not response.content:
                return None, None
            return self.answers.parse_named(response.content)

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
            self.answers.request(path)
            self._named_again("http", key, slot.value, slot.value)
            return slot.value
        try:
            if immutable:
                body, named = await self._json("GET", path, params=params, accept=accept)
            else:
                body, named = await self._revalidate(path, params, key, repo, accept)
        except BaseException as exc:
            slot.fail(exc)
            raise
        await slot.fill(body)
        if named is not None:  # beside the body, for the calls it is served to again
            self.cache.keep_sources("http", key, body, named)
        return body

    def _named_again(self, namespace: str, key: str, entry: Any, body: Any) -> None:
        """A cached body's sources noted on this call: as its parse found them, or (a body
        from the shared cache, or parsed outside a call) by walking it. `entry` is what
        the cache holds (the body, or an ETag and the body)."""
        named = self.cache.sources_of(namespace, key)
        if named is not None:
            self.answers.replay(named)
        elif (named := self.answers.body(body)) is not None:
            self.cache.keep_sources(namespace, key, entry, named)

    async def _revalidate(
        self,
        path: str,
        params: dict[str, Any] | None,
        key: str,
        repo: str | None,
        accept: str | None,
    ) -> tuple[Any, Sources | None]:
        stale = self.cache.peek_stale("etag", key)
        extra = {"If-None-Match": stale[0]} if stale else None
        async with self._send("GET", path, params=params, headers=extra, accept=accept) as resp:
            if resp.status_code == 304 and stale:
                self.metrics.record_cache("etag", True)
                self._named_again("etag", key, stale, stale[1])
                return stale[1], None
            body, named = self.answers.parse_named(resp.content) if resp.content else (None, None)
            etag = resp.headers.get("etag")
            if etag:
                kept = (etag, body)
                self.cache.set("etag", key, kept, ttl=None, repo=repo)
                if named is not None:
                    self.cache.keep_sources("etag", key, kept, named)
            return body, named

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
            data = self.answers.parse(response.content)
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
                data = self.answers.parse(response.content)
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
