"""The scale bench's HTTP client: HTTP/1.1 POSTs on asyncio streams, keep-alive
connections pooled per host, answers read whole (Content-Length, chunked, or to the
connection's end). It does what bench/_scale_client.py needs and no more, at a fraction
of a general client's CPU per request: on the shared 2-core machine, a client's CPU is
taken from the server it measures (httpx took 2.6 ms a call there, a third of what a
replica spends on a cached read).

Failures are raised as httpx's exceptions (a timeout, a connection that could not be
made or broke), so callers handle them as they would httpx's. Not a benchmark itself.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from typing import Any
from urllib.parse import urlsplit

import httpx2 as httpx

_Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class Reply:
    """What a request was answered: status, headers (lower-case names), body."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status_code, self.headers, self.content = status, headers, body

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.content)


class RawHttp:
    def __init__(self, timeout_s: float, connect_s: float = 10.0) -> None:
        self.timeout_s, self.connect_s = timeout_s, connect_s
        self._idle: dict[tuple[str, int], list[_Streams]] = defaultdict(list)

    async def post(self, url: str, *, content: str | bytes, headers: dict[str, str]) -> Reply:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        body = content.encode() if isinstance(content, str) else content
        head = [f"POST {parts.path or '/'} HTTP/1.1", f"Host: {host}:{port}"]
        head += [f"{name}: {value}" for name, value in headers.items()]
        head.append(f"Content-Length: {len(body)}")
        request = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
        try:
            return await asyncio.wait_for(self._send((host, port), request), self.timeout_s)
        except TimeoutError:
            raise httpx.ReadTimeout(f"no answer in {self.timeout_s:g} s") from None

    async def _send(self, where: tuple[str, int], request: bytes) -> Reply:
        pooled = self._idle[where]
        while pooled:  # an idle connection the server closed meanwhile: the next one
            streams = pooled.pop()
            try:
                return await self._exchange(where, streams, request, reused=True)
            except _ClosedWhileIdle:
                continue
        try:
            streams = await asyncio.wait_for(asyncio.open_connection(*where), self.connect_s)
        except (OSError, TimeoutError) as exc:
            raise httpx.ConnectError(f"{type(exc).__name__}: {exc}") from None
        try:
            return await self._exchange(where, streams, request, reused=False)
        except _ClosedWhileIdle:
            raise httpx.RemoteProtocolError("closed before answering") from None

    async def _exchange(
        self, where: tuple[str, int], streams: _Streams, request: bytes, *, reused: bool
    ) -> Reply:
        reader, writer = streams
        keep = False
        try:
            writer.write(request)
            await writer.drain()
            status_line = await reader.readline()
            if not status_line:
                raise _ClosedWhileIdle  # closed before a byte of the answer
            reply, keep = await _read_reply(reader, status_line)
            return reply
        except _ClosedWhileIdle:
            raise
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            raise httpx.ReadError(f"{type(exc).__name__}: {exc}") from None
        finally:
            if keep:
                self._idle[where].append(streams)
            else:
                writer.close()

    async def __aenter__(self) -> RawHttp:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for pooled in self._idle.values():
            for _, writer in pooled:
                writer.close()
        self._idle.clear()


class _ClosedWhileIdle(Exception):
    pass


async def _read_reply(reader: asyncio.StreamReader, status_line: bytes) -> tuple[Reply, bool]:
    """(the reply, whether its connection may carry another request)."""
    version, status, _ = status_line.decode("latin-1").split(" ", 2)
    headers: dict[str, str] = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n"):
            break
        if not line:
            raise ValueError("headers cut")
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    keep = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = await _chunked(reader)
    elif "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    else:
        body, keep = await reader.read(), False  # delimited by the connection's end
    return Reply(int(status), headers, body), keep


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    chunks = []
    while True:
        size = int((await reader.readline()).split(b";", 1)[0].strip() or b"x", 16)
        if size == 0:
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(chunks)
        chunks.append(await reader.readexactly(size))
        await reader.readexactly(2)  # the chunk's CRLF
