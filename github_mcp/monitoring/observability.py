"""JSON logs on stderr and secret redaction. Metrics live in metrics.py."""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import os
import re
import sys
import threading
import time
from typing import Any, TextIO

_LOGGER = logging.getLogger("github_mcp")
_SECRETS: set[str] = set()
_SECRET_LOCK = threading.Lock()
# The tool call this task works for: every log line, span and client message made on
# its behalf carries it, so one id finds a call everywhere.
CURRENT_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "github_mcp_call_id", default=None
)
_TOKEN_PATTERNS = re.compile(
    r"(gh[pousr]_[A-Za-z0-9_]{8,}|github_pat_[A-Za-z0-9_]{8,}"
    r"|(?i:authorization)\s*[:=]\s*\S+(?:\s+\S+)?"
    r"|(?i:bearer|token|basic)\s+[A-Za-z0-9._~+/=-]{12,}"
    r"|x-access-token:[^@\s]+"
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----)"
)


def register_secret(value: str | None) -> None:
    """Remember a secret so that `redact` removes it wherever it appears."""
    if value and len(value) >= 6:
        with _SECRET_LOCK:
            _SECRETS.add(value)


# Every alternative of _TOKEN_PATTERNS contains one of these (in ASCII lower case): a
# line without any is left alone without running the pattern (every log line is redacted).
_TOKEN_MARKERS = (
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "authorization",
    "bearer",
    "token",
    "basic",
    "eyj",
    "-----begin",
)


def redact(text: str) -> str:
    for secret in tuple(_SECRETS):
        if secret in text:
            text = text.replace(secret, "[REDACTED]")
    if text.isascii():  # non-ASCII: case-insensitive matching may fold other letters
        lowered = text.lower()
        if not any(marker in lowered for marker in _TOKEN_MARKERS):
            return text
    return _TOKEN_PATTERNS.sub("[REDACTED]", text)


def _json_line(created: float, level: str, logger: str, event: str, fields: dict[str, Any]) -> str:
    data: dict[str, Any] = {"ts": round(created, 3), "level": level, "logger": logger}
    data["event"] = event
    data.update(fields)
    return redact(json.dumps(data, default=str, ensure_ascii=False))


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        event = getattr(record, "event", None)
        if event and not record.exc_info:
            fields = getattr(record, "fields", {})
            return _json_line(record.created, record.levelname.lower(), record.name, event, fields)
        data: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        if event:
            data["event"] = event
            data.update(getattr(record, "fields", {}))
        else:
            data["message"] = record.getMessage()
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return redact(json.dumps(data, default=str, ensure_ascii=False))


# The handler configure_logging installed. While it is the only place our events go (no
# other handler, filter or level in the way: a test's caplog adds one), log_event writes
# the line itself: the same text the formatter makes, without a LogRecord (its caller
# lookup, thread and process names cost more than the line).
_HANDLER: logging.StreamHandler[TextIO] | None = None


def _direct_handler(level: int) -> logging.StreamHandler[TextIO] | None:
    handler, root = _HANDLER, logging.root
    if handler is None or _LOGGER.handlers or _LOGGER.filters or not _LOGGER.propagate:
        return None
    if len(root.handlers) != 1 or root.handlers[0] is not handler or root.filters:
        return None
    if handler.filters or handler.level > level:
        return None
    return handler


def configure_logging(level: str = "INFO") -> None:
    """All logging to stderr as JSON lines; stdout stays for protocol frames."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter())
    global _HANDLER
    _HANDLER = handler
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # fastmcp installs its own (rich, multi-line) handler when it is imported, and prints its
    # start-up lines and warnings there: told not to (it is imported later, lazily), and
    # undone when it already was, its records come through ours as JSON, warnings and up
    # unless debugging (its "Starting MCP server" is no news in our own start-up events).
    os.environ.setdefault("FASTMCP_LOG_ENABLED", "false")
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
    for name in ("fastmcp", "mcp"):
        library = logging.getLogger(name)
        library.handlers[:] = []
        library.propagate = True
    logging.getLogger("fastmcp").setLevel(max(root.level, logging.WARNING))
    for noisy in ("httpx", "httpx2", "httpcore", "httpcore2", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def log_event(event: str, *, level: int = logging.INFO, **fields: Any) -> None:
    if not _LOGGER.isEnabledFor(level):
        return
    clean = {k: v for k, v in fields.items() if v is not None}
    if "call_id" not in clean and (call_id := CURRENT_CALL_ID.get()) is not None:
        clean["call_id"] = call_id
    handler = _direct_handler(level)
    if handler is not None:
        name = logging.getLevelName(level).lower()
        line = _json_line(time.time(), name, _LOGGER.name, event, clean)
        with handler.lock or contextlib.nullcontext():
            try:
                handler.stream.write(line + handler.terminator)
                handler.flush()
                return
            except Exception:  # noqa: S110 - the logging path below reports it
                pass
    _LOGGER.log(level, event, extra={"event": event, "fields": clean})


from github_mcp.monitoring.metrics import Metrics  # noqa: E402 - re-exported for existing importers

__all__ = [
    "CURRENT_CALL_ID",
    "Metrics",
    "configure_logging",
    "log_event",
    "redact",
    "register_secret",
]
