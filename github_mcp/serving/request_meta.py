"""What a `tools/call` request's `_meta` asks of the answer, for calls answered without the
MCP framework (direct_calls.py). Pure: no I/O.

Two revisions of the protocol meet here:
- the handshake revisions (2024-11-05 to 2025-11-25): `_meta` holds at most a progress
  token; log notifications follow the session's `logging/setLevel`, else the server's
  `info`;
- the 2026-07-28 revision (no handshake: each request carries its protocol version,
  client info and capabilities, and opts in to log notifications with a level of its
  own): the result also says `resultType: complete` and names the server in its `_meta`.

Anything else in `_meta` (a key this module does not know) leaves the call to the server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PREFIX = "io.modelcontextprotocol/"
PROTOCOL_VERSION = PREFIX + "protocolVersion"
CLIENT_INFO = PREFIX + "clientInfo"
CLIENT_CAPABILITIES = PREFIX + "clientCapabilities"
LOG_LEVEL = PREFIX + "logLevel"
SERVER_INFO = PREFIX + "serverInfo"
MODERN_VERSIONS = frozenset({"2026-07-28"})
MODERN_KEYS = frozenset({PROTOCOL_VERSION, CLIENT_INFO, CLIENT_CAPABILITIES, LOG_LEVEL})
SEVERITY = {
    "debug": 0,
    "info": 1,
    "notice": 2,
    "warning": 3,
    "error": 4,
    "critical": 5,
    "alert": 6,
    "emergency": 7,
}
SERVER_FLOOR = "info"  # the server's own least level for client log notifications


@dataclass(frozen=True)
class RequestMeta:
    progress_token: str | int | None = None
    modern: bool = False
    log_level: str | None = None  # the 2026 revision's per-request opt-in


def parse(meta: Any) -> RequestMeta | None:
    """The request's asks, or None when its `_meta` is not one this module answers."""
    if meta is None:
        return RequestMeta()
    if not isinstance(meta, dict) or not set(meta) <= MODERN_KEYS | {"progressToken"}:
        return None
    token = meta.get("progressToken")
    if token is not None and (not isinstance(token, str | int) or isinstance(token, bool)):
        return None
    if not set(meta) & MODERN_KEYS:
        return RequestMeta(progress_token=token)
    level = meta.get(LOG_LEVEL)
    if (
        meta.get(PROTOCOL_VERSION) not in MODERN_VERSIONS
        or not isinstance(meta.get(CLIENT_INFO), dict)
        or not isinstance(meta.get(CLIENT_CAPABILITIES), dict)
        or (level is not None and level not in SEVERITY)
    ):
        return None
    return RequestMeta(progress_token=token, modern=True, log_level=level)


def names_revision(message: dict[str, Any]) -> bool:
    """A 2026-revision request: its `_meta` names the protocol version."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and PROTOCOL_VERSION in meta


def sends_log(asks: RequestMeta, level: str, session_level: str) -> bool:
    """Whether a log message at `level` reaches the client: at or above the session's
    level (handshake revisions), or, in the 2026 revision, only when the request opted in,
    at or above both its level and the server's floor."""
    rank = SEVERITY.get(level, 0)
    if not asks.modern:
        return rank >= SEVERITY.get(session_level, SEVERITY[SERVER_FLOOR])
    if asks.log_level is None:
        return False
    return rank >= max(SEVERITY[asks.log_level], SEVERITY[SERVER_FLOOR])


def shaped(result: dict[str, Any], asks: RequestMeta, server: dict[str, str]) -> dict[str, Any]:
    """A tools/call result as the request's revision puts it on the wire."""
    if not asks.modern:
        return result
    meta = {**result.get("_meta", {}), SERVER_INFO: server}
    return {**result, "resultType": "complete", "_meta": meta}
