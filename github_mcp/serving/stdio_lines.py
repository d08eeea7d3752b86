"""MCP's stdio framing for the front: one JSON-RPC message per line. Stdlib only."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any


def open_descriptors() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        return list(range(256))


def lines(fd: int) -> Iterator[bytes]:
    pending = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            if pending:
                yield pending
            return
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line + b"\n"


def message(line: bytes) -> dict[str, Any] | None:
    try:
        parsed = json.loads(line)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def id_key(value: Any) -> str:
    return json.dumps(value)
