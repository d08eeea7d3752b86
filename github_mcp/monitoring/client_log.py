"""Log messages for the MCP client of the tool call in progress.

Services and the GitHub client say what a long call is doing (cloning, waiting for CI,
retrying, waiting out a rate limit) or what went wrong, with `await client_log.info(...)`.
They never see the MCP session: the registry binds a sink for each call (`bind`), and
outside a call (start-up, tests of a service alone) the messages go nowhere. The sink
honours the client's `logging/setLevel`; every message is redacted before it leaves.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

from github_mcp.monitoring.observability import redact

Level = Literal["debug", "info", "notice", "warning", "error"]
Sink = Callable[[Level, str, dict[str, Any]], Awaitable[None]]

# A chatty loop (a CI wait polling for minutes) must not flood the client.
MAX_MESSAGES_PER_CALL = 200
MAX_MESSAGE_CHARS = 1000


class _Binding:
    __slots__ = ("sent", "sink")

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.sent = 0


_CURRENT: contextvars.ContextVar[_Binding | None] = contextvars.ContextVar(
    "github_mcp_client_log", default=None
)


@contextmanager
def bind(sink: Sink) -> Iterator[None]:
    """Route this task's (and its children's) client log messages to `sink`."""
    token = _CURRENT.set(_Binding(sink))
    try:
        yield
    finally:
        _CURRENT.reset(token)


async def log(level: Level, message: str, **fields: Any) -> None:
    """Send one message to the client of the current call, if there is one. Never raises:
    a client that went away must not fail the work it asked for."""
    binding = _CURRENT.get()
    if binding is None or binding.sent >= MAX_MESSAGES_PER_CALL:
        return
    binding.sent += 1
    text = redact(message)[:MAX_MESSAGE_CHARS]
    clean = {k: redact(v) if isinstance(v, str) else v for k, v in fields.items() if v is not None}
    try:
        await binding.sink(level, text, clean)
    except Exception:
        return


async def debug(message: str, **fields: Any) -> None:
    await log("debug", message, **fields)


async def info(message: str, **fields: Any) -> None:
    await log("info", message, **fields)


async def notice(message: str, **fields: Any) -> None:
    await log("notice", message, **fields)


async def warning(message: str, **fields: Any) -> None:
    await log("warning", message, **fields)


async def error(message: str, **fields: Any) -> None:
    await log("error", message, **fields)
