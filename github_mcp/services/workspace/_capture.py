"""A command's output, captured within a cap: its head and its tail, whatever its size."""

from __future__ import annotations

import asyncio
import codecs
from collections import deque


class OutputCapture:
    """Keeps the head and the tail of a stream; memory stays bounded whatever its size."""

    def __init__(self, max_chars: int, keep_tail_chars: int = 0) -> None:
        self.max_chars = max(max_chars, 0)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self._tail_keep = max(self.max_chars - self.max_chars // 2, keep_tail_chars)
        self._tail_trimmed = False
        self.total_chars = 0
        self.last_line = ""

    def feed(self, data: bytes) -> None:
        self._add(self._decoder.decode(data))

    def close(self) -> None:
        self._add(self._decoder.decode(b"", final=True))

    def _add(self, text: str) -> None:
        if not text:
            return
        self.total_chars += len(text)
        lines = [ln for ln in text.replace("\r", "\n").split("\n") if ln.strip()]
        if lines:
            self.last_line = lines[-1].strip()[:160]
        room = self.max_chars - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += len(text[:room])
            text = text[room:]
        if text:
            self._tail.append(text)
            self._tail_len += len(text)
            while self._tail and self._tail_len - len(self._tail[0]) >= self._tail_keep:
                self._tail_len -= len(self._tail.popleft())
                self._tail_trimmed = True

    @property
    def truncated(self) -> bool:
        return self.total_chars > self.max_chars

    def tail_text(self, n: int) -> str:
        """The last n characters of the stream (exact while n fits what was kept)."""
        if n <= 0:
            return ""
        tail = "".join(self._tail)
        if not self._tail_trimmed:
            tail = "".join(self._head) + tail
        return tail[-n:]

    def text(self) -> str:
        head = "".join(self._head)
        if not self.truncated:
            return head
        keep_head = self.max_chars // 2
        keep_tail = self.max_chars - keep_head
        tail = self.tail_text(keep_tail)
        omitted = self.total_chars - keep_head - len(tail)
        marker = f"\n… [{omitted} characters truncated: showing head and tail] …\n"
        return head[:keep_head] + marker + tail


async def pump(stream: asyncio.StreamReader | None, capture: OutputCapture) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        capture.feed(chunk)
    capture.close()
