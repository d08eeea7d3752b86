"""The resumable-stream event store of a process with no shared state, bounded.

The streamable HTTP transport stores every SSE event it sends so that a client whose
stream breaks can reconnect with Last-Event-ID and get the rest. Each tool call has its
own stream, ended by the call's answer. Kept forever (or for an hour, as the framework's
default store does), every call would cost memory for as long as the process lives. Here:

- a stream whose call has answered is kept `FINISHED_KEEP_S` longer (time for a client
  whose connection broke just then to come back), then dropped;
- no stream outlives `max_age_s` since its last event;
- all streams together hold at most `max_bytes` of events; past it the least recently
  written streams go first;
- one stream keeps at most `MAX_EVENTS_PER_STREAM` events (the oldest go).

A dropped stream resumes nothing: the client's reconnect is told the event is unknown,
as the transport does for any event it never stored.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCMessage
from mcp_types.jsonrpc import jsonrpc_message_adapter

FINISHED_KEEP_S = 10.0  # a client reconnects after the `retry` interval (1 s by default)
MAX_EVENTS_PER_STREAM = 1000
_OVERHEAD = 200  # bytes a stored event costs beyond its JSON (ids, tuple, deque slot)


@dataclass
class _Stream:
    events: deque[tuple[int, bytes | None]] = field(default_factory=deque)
    size: int = 0
    updated: float = 0.0
    finished: bool = False


def _answers(message: JSONRPCMessage) -> bool:
    """Whether the message ends its call's stream (a response or an error)."""
    return hasattr(message, "result") or hasattr(message, "error")


def _event_id(stream_id: str, seq: int) -> str:
    tag = base64.urlsafe_b64encode(stream_id.encode()).decode().rstrip("=")
    return f"{tag}.{seq}"


def _parse(event_id: str) -> tuple[str, int] | None:
    tag, _, seq = event_id.rpartition(".")
    if not tag or not seq.isdigit():
        return None
    try:
        return base64.urlsafe_b64decode(tag + "=" * (-len(tag) % 4)).decode(), int(seq)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


class BoundedEventStore(EventStore):
    def __init__(
        self,
        *,
        max_bytes: int,
        max_age_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_bytes = max_bytes
        self.max_age_s = max_age_s
        self._clock = clock
        self._seq = itertools.count(1)
        # least recently written first; finished streams also in the order they ended
        self._streams: OrderedDict[str, _Stream] = OrderedDict()
        self._finished: OrderedDict[str, float] = OrderedDict()
        self.size = 0

    def __len__(self) -> int:
        return len(self._streams)

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        now = self._clock()
        stream = self._streams.pop(stream_id, None) or _Stream()
        self._streams[stream_id] = stream
        data = None
        if message is not None:
            data = message.model_dump_json(by_alias=True, exclude_unset=True).encode()
        seq = next(self._seq)
        stream.events.append((seq, data))
        cost = _OVERHEAD + len(data or b"")
        stream.size += cost
        self.size += cost
        stream.updated = now
        if len(stream.events) > MAX_EVENTS_PER_STREAM:
            _, old = stream.events.popleft()
            stream.size -= _OVERHEAD + len(old or b"")
            self.size -= _OVERHEAD + len(old or b"")
        if message is not None and _answers(message) and not stream.finished:
            stream.finished = True
            self._finished[stream_id] = now
        self._evict(now)
        return _event_id(stream_id, seq)

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        self._evict(self._clock())
        parsed = _parse(last_event_id)
        if parsed is None:
            return None
        stream_id, after = parsed
        stream = self._streams.get(stream_id)
        if stream is None or all(seq != after for seq, _ in stream.events):
            return None  # dropped, or trimmed past the client's event: nothing to resume
        for seq, data in list(stream.events):
            if seq > after and data is not None:
                message = jsonrpc_message_adapter.validate_json(data)
                await send_callback(EventMessage(message, _event_id(stream_id, seq)))
        return stream_id

    def _evict(self, now: float) -> None:
        while self._finished:
            stream_id, ended = next(iter(self._finished.items()))
            if now - ended < min(FINISHED_KEEP_S, self.max_age_s):
                break
            self._drop(stream_id)
        while self._streams:
            stream_id, stream = next(iter(self._streams.items()))
            if now - stream.updated < self.max_age_s and self.size <= self.max_bytes:
                break
            self._drop(stream_id)

    def _drop(self, stream_id: str) -> None:
        stream = self._streams.pop(stream_id, None)
        self._finished.pop(stream_id, None)
        if stream is not None:
            self.size -= stream.size
