"""Append-only JSON-lines audit log of executed writes."""

from __future__ import annotations

import json
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from github_mcp.kernel.principal import Principal
from github_mcp.monitoring.observability import log_event, redact


class AuditLog:
    """One fsync'd JSON line per executed write; the latest entries stay in memory.
    With replicas, `stream` also sends each entry to the shared audit stream in Redis."""

    def __init__(self, path: Path | None, keep: int = 50) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.recent: deque[dict[str, Any]] = deque(maxlen=keep)
        self.stream: Callable[[dict[str, Any]], None] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    def record(
        self,
        call_id: str,
        principal: Principal,
        tool: str,
        repo: str | None,
        ref: str | None,
        outcome: str,
        **result: Any,
    ) -> None:
        entry = {
            "ts": round(time.time(), 3),
            "call_id": call_id,
            # the authenticated identity's name (a token digest or a login), never a credential
            "principal": principal.name,
            "principal_kind": principal.kind,
            "tool": tool,
            "repo": repo,
            "ref": ref,
            "outcome": outcome,
            **result,
        }
        line = redact(json.dumps(entry, ensure_ascii=False, default=str))
        with self._lock:
            self.recent.append(json.loads(line))
            if self.stream is not None:
                self.stream(self.recent[-1])
            if self.path is None:
                return
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    os.write(fd, (line + "\n").encode())
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError as exc:
                log_event("audit_write_failed", error=type(exc).__name__)
