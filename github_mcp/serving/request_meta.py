"""What a request's `_meta` asks of its answer, over stdio. Pure: no I/O.

Two revisions of the protocol meet here:
- the handshake revisions (2024-11-05 to 2025-11-25): `_meta` may hold a progress token;
  log notifications follow the session's `logging/setLevel`, else the server's `info`;
- the 2026-07-28 revision (no handshake: each request carries its protocol version,
  client info and capabilities, and opts in to log notifications with a level of its
  own): the result also says `resultType: complete` and names the server in its `_meta`.

Other `_meta` keys (an idempotency key, a client's own) pass through to the call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PREFIX = "io.modelcontextprotocol/"
PROTOCOL_VERSION = PREFIX + "protocolVersion"
CLIENT_INFO = PREFIX + "clientInfo"
CLIENT_CAPABILITIES = PREFIX + "clientCapabilities"
LOG_LEVEL = PREFIX + "logLevel"
SERVER_INFO = PREFIX + "serverInfo"
MODERN_VERSIONS = ("2026-07-28",)
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
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
    capabilities: dict[str, Any] = field(default_factory=dict)  # the 2026 revision's


class RpcError(ValueError):
    """A request this server answers with a JSON-RPC error (a `_meta` it cannot serve, bad
    params): its code, message and data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


INVALID_PARAMS = -32602
UNSUPPORTED_PROTOCOL_VERSION = -32022


def parse(meta: Any) -> RequestMeta:
    """The request's asks; RpcError for a malformed one or an unserved revision."""
    if meta is None:
        return RequestMeta()
    if not isinstance(meta, dict):
        raise RpcError(INVALID_PARAMS, "_meta must be an object")
    token = meta.get("progressToken")
    if token is not None and (not isinstance(token, str | int) or isinstance(token, bool)):
        raise RpcError(INVALID_PARAMS, "_meta.progressToken must be a string or an integer")
    if PROTOCOL_VERSION not in meta:
        return RequestMeta(progress_token=token)
    version = meta.get(PROTOCOL_VERSION)
    if version not in MODERN_VERSIONS:
        data = {"supported": list(MODERN_VERSIONS), "requested": version}
        raise RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", data)
    capabilities = meta.get(CLIENT_CAPABILITIES)
    if not isinstance(capabilities, dict):
        raise RpcError(INVALID_PARAMS, f"_meta[{CLIENT_CAPABILITIES!r}] must be an object")
    level = meta.get(LOG_LEVEL)
    if level is not None and level not in SEVERITY:
        raise RpcError(INVALID_PARAMS, f"_meta[{LOG_LEVEL!r}] is not a log level")
    return RequestMeta(token, modern=True, log_level=level, capabilities=capabilities)


def names_revision(message: dict[str, Any]) -> bool:
    """A 2026-revision request: its `_meta` names the protocol version."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and PROTOCOL_VERSION in meta


def sends_log(asks: RequestMeta, level: str, session_level: str) -> bool:
    """Whether a log message at `level` reaches the client: at or above the session's
    level (handshake revisions: the server's floor until the client sets one), or, in the
    2026 revision, only when the request opted in, at or above the level it asked for."""
    rank = SEVERITY.get(level, 0)
    if not asks.modern:
        return rank >= SEVERITY.get(session_level, SEVERITY[SERVER_FLOOR])
    if asks.log_level is None:
        return False
    return rank >= SEVERITY[asks.log_level]


def shaped(result: dict[str, Any], asks: RequestMeta, server: dict[str, str]) -> dict[str, Any]:
    """A result as the request's revision puts it on the wire."""
    if not asks.modern:
        return result
    meta = {**result.get("_meta", {}), SERVER_INFO: server}
    return {**result, "resultType": result.get("resultType", "complete"), "_meta": meta}
