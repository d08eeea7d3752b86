"""Where open approval requests live, and the caps that keep one principal from using
up the approvals of everyone else.

The in-process store is the default. With replicas (GITHUB_MCP_STATE_URL) a Redis
store implements the same calls (state/_requests.py), so a click on the page served by
one replica decides a request opened, and waited on, by another.

Caps, checked before a new request is opened (a repeat of an open request reuses it):
- open requests per session and per principal;
- requests created per principal per minute;
- a global cap that stays fair: once it is reached, a principal below its fair share
  (the cap divided by the principals holding requests) may still open one, so a
  flood from one principal never blocks another.
"""

from __future__ import annotations

import dataclasses
import json
import time
import types
import typing
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from github_mcp.approvals.record import ApprovalRequest
from github_mcp.approvals.summary import WriteSummary
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.principal import ApprovalScope, Principal

RATE_WINDOW_S = 60.0


@dataclasses.dataclass(frozen=True)
class Caps:
    per_session: int = 5
    per_principal: int = 10
    per_principal_per_minute: int = 20
    global_open: int = 1000


@dataclasses.dataclass(frozen=True)
class Counts:
    """Open (pending, unexpired) requests: this session's, this principal's, all, and
    how many principals hold any; plus this principal's creations in the last minute."""

    session: int
    principal: int
    total: int
    principals: int
    recent: int


class RequestStore(Protocol):
    def put(self, request: ApprovalRequest) -> None: ...

    def get(self, request_id: str) -> ApprovalRequest | None: ...

    def settle(self, request: ApprovalRequest, status: str, decided_by: str | None) -> bool:
        """Move a pending request to `status` once; False when it was no longer pending."""
        ...

    def drop(self, request: ApprovalRequest) -> None: ...

    def live(self) -> list[ApprovalRequest]:
        """Every request kept (pending or decided) whose link has not expired."""
        ...

    def counts(self, scope: ApprovalScope) -> Counts: ...

    def secret(self, name: str) -> bytes:
        """A random secret every replica shares (signing the page's cookies)."""
        ...


def admit(counts: Counts, caps: Caps) -> None:
    """Raise `rate_limited` when this principal or session may not open another."""
    if counts.session >= caps.per_session or counts.principal >= caps.per_principal:
        raise _refused(
            f"You already have {counts.principal} approval request(s) open (at most "
            f"{caps.per_principal} per user and {caps.per_session} per session)."
        )
    if counts.recent >= caps.per_principal_per_minute:
        raise _refused(
            f"You opened {counts.recent} approval requests in the last minute (at most "
            f"{caps.per_principal_per_minute})."
        )
    fair_share = caps.global_open // max(1, counts.principals)
    if counts.total >= caps.global_open and (
        counts.principal >= fair_share or counts.total >= 2 * caps.global_open
    ):
        raise _refused("The server holds as many open approval requests as it keeps.")


def _refused(message: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.RATE_LIMITED,
        message + " Nothing new was asked.",
        hint="Let the human answer (or let the open links expire), then retry.",
    )


class MemoryRequestStore:
    """Requests in this process's memory; closed ones are forgotten a link-lifetime
    after they expire."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._items: dict[str, ApprovalRequest] = {}
        self._created: dict[str, deque[float]] = {}
        self._secrets: dict[str, bytes] = {}

    def put(self, request: ApprovalRequest) -> None:
        self._items[request.id] = request
        times = self._created.setdefault(request.scope.principal.key, deque(maxlen=1000))
        times.append(request.created_at)

    def get(self, request_id: str) -> ApprovalRequest | None:
        return self._items.get(request_id)

    def settle(self, request: ApprovalRequest, status: str, decided_by: str | None) -> bool:
        found = self._items.get(request.id)
        if found is None or found.status != "pending":
            return False
        found.status = status  # type: ignore[assignment]
        found.decided_by = decided_by
        found.key = ""  # single use: the link is spent
        found.done.set()
        return True

    def drop(self, request: ApprovalRequest) -> None:
        self._items.pop(request.id, None)

    def live(self) -> list[ApprovalRequest]:
        return list(self._items.values())

    def counts(self, scope: ApprovalScope) -> Counts:
        now = self._clock()
        open_ = [r for r in self._items.values() if r.pending and r.expires_at > now]
        principal = scope.principal.key
        times = self._created.get(principal, deque())
        while times and times[0] <= now - RATE_WINDOW_S:
            times.popleft()
        for key in [k for k, v in self._created.items() if not v]:
            self._created.pop(key, None)
        return Counts(
            session=sum(1 for r in open_ if r.scope == scope),
            principal=sum(1 for r in open_ if r.scope.principal.key == principal),
            total=len(open_),
            principals=len({r.scope.principal.key for r in open_}),
            recent=len(times),
        )

    def secret(self, name: str) -> bytes:
        import secrets

        return self._secrets.setdefault(name, secrets.token_bytes(32))


# -- a request as JSON, for a shared store ------------------------------------------------


def request_to_json(request: ApprovalRequest, clock_offset: float) -> str:
    """Times become wall-clock seconds (`clock_offset` = wall - local clock), so any
    replica can read them against its own clock."""
    scope = request.scope
    body = {
        "id": request.id,
        "key": request.key,
        "csrf": request.csrf,
        "principal": [scope.principal.name, scope.principal.kind],
        "session": scope.session_id,
        "summary": _plain(request.summary),
        "fingerprint": request.fingerprint,
        "created": request.created_at + clock_offset,
        "expires": request.expires_at + clock_offset,
        "window_minutes": request.window_minutes,
        "call_fingerprint": request.call_fingerprint,
    }
    return json.dumps(body, separators=(",", ":"))


def request_from_json(text: str | bytes, clock_offset: float) -> ApprovalRequest:
    body = json.loads(text)
    name, kind = body["principal"]
    summary = body["summary"]
    return ApprovalRequest(
        id=body["id"],
        key=body["key"],
        csrf=body["csrf"],
        scope=ApprovalScope(Principal(name, kind), body["session"]),
        summary=None if summary is None else _revive(WriteSummary, summary),
        fingerprint=body["fingerprint"],
        created_at=body["created"] - clock_offset,
        expires_at=body["expires"] - clock_offset,
        window_minutes=body["window_minutes"],
        call_fingerprint=body.get("call_fingerprint"),
    )


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _revive(hint: Any, value: Any) -> Any:
    """Rebuild `value` (plain JSON) as the type `hint` names: dataclasses, tuples, lists,
    optionals; anything else is kept as it is."""
    if value is None:
        return None
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        names = {f.name for f in dataclasses.fields(hint)}
        return hint(**{k: _revive(hints[k], v) for k, v in value.items() if k in names})
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _revive(inner[0], value) if len(inner) == 1 else value
    if origin is tuple and isinstance(value, list):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_revive(args[0], v) for v in value)
        if args and len(args) == len(value):
            return tuple(_revive(a, v) for a, v in zip(args, value, strict=True))
        return tuple(value)
    if origin is list and isinstance(value, list):
        return [_revive(args[0], v) if args else v for v in value]
    return value
