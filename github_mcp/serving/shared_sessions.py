"""A 2025-11-25 session outlives the replica that opened it (with GITHUB_MCP_STATE_URL).

Each session a replica opens is written to Redis as a small record: the credential that
opened it (the SDK's owner check: client id, issuer, subject; never a token), the
principal the server issued it to, the negotiated protocol version, the client's
`initialize` parameters (info and capabilities), the toolsets it enabled and the logging
level it set; written before any answer that opened or changed it is sent. A request
for a session this replica does not hold (its replica died, or the proxy's hash moved it
when a replica left or came back) looks the record up; when it exists and the request
carries the credential that opened it, the session is revived here as a sleeping session
(serving/session_hibernation) and woken by that very request, so the client carries on
without initializing again. Without a record, or with another credential, the request
gets the SDK's 404 as before.

The record lives as long as the idle timeout, renewed while the session is used (at most
once every quarter of it per replica), and is deleted by the client's DELETE. A question
the server asked the client mid-call (an elicitation) is answered through whichever
replica the answer reaches (serving/shared_questions). What does not move: a request in
flight on the lost replica (retried with the same idempotency key, a write is still done
once). A copy of a session that ends on one
replica (its idle timeout) ends only there.

A 2026-07-28 client needs none of this: each of its requests stands alone.
"""

from __future__ import annotations

import json
import time
from typing import Any, get_args

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp.server.connection import Connection
from mcp.types import InitializeRequestParams, LoggingLevel
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.kernel.framework_internals import NO_CHANNEL, client_log_levels, sessions
from github_mcp.monitoring.observability import log_event
from github_mcp.serving.framework_tools import SESSIONS, SessionRecord
from github_mcp.serving.http_sessions import SessionLimits
from github_mcp.serving.shared_questions import requesting_principal, take_answer
from github_mcp.state import _wrap_endpoint
from github_mcp.state._connection import SharedState, pending
from github_mcp.state._questions import SharedQuestions

SESSION_HEADER = b"mcp-session-id"
LOG_LEVELS = frozenset(get_args(LoggingLevel))


def _requestor(scope: Scope) -> Any:
    user = scope.get("user")
    return authorization_context(user) if isinstance(user, AuthenticatedUser) else None


class SharedSessions:
    """The session records in Redis, and the endpoint wrapper that keeps and revives them."""

    def __init__(
        self,
        shared: SharedState,
        limits: SessionLimits,
        server: Any,
        questions: SharedQuestions | None = None,
    ) -> None:
        self.shared = shared
        self.questions = questions  # answers to questions asked on other replicas
        self.limits = limits
        self.levels = client_log_levels(server)
        self.ttl_s = max(int(limits.idle_timeout_s), 1)
        self.renew_s = self.ttl_s / 4
        self._saved: dict[str, tuple[float, Any]] = {}  # id -> (when, what was written)
        limits.keep_sessions = True  # a session manager that can take a revived session

    def _key(self, session_id: str) -> str:
        return SharedState.key("session", session_id)

    def attach(self, app: Starlette) -> None:
        """Keep and revive sessions at `app`'s /mcp, inside its auth (the owner check needs
        the authenticated user)."""
        _wrap_endpoint(app, self._wrap)

    def _wrap(self, inner: ASGIApp) -> ASGIApp:
        async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
            await self.serve(inner, scope, receive, send)

        return endpoint

    async def serve(self, inner: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        manager = self.limits.manager
        if scope["type"] != "http" or manager is None:
            await inner(scope, receive, send)
            return
        asked = dict(scope.get("headers") or []).get(SESSION_HEADER, b"").decode("latin-1")
        owner = _requestor(scope)
        if asked and scope.get("method") == "POST" and self.questions is not None:
            principal = requesting_principal()
            taken = await take_answer(self.questions, asked, principal, scope, receive, send)
            if taken is None:
                return  # an answer to a question another replica asked: relayed there
            receive = taken
        if asked and asked not in sessions(manager) and not await self._revive(asked, owner):
            await _unreachable(scope, receive, send)  # not a 404: the session may well exist
            return
        await inner(scope, receive, self._keeping(send, asked, owner))
        if asked and scope.get("method") == "DELETE":
            await self._drop(asked)

    def _keeping(self, send: Send, asked: str, owner: Any) -> Send:
        """`send`, writing the session's record before each part of a response body: a
        client told its session opened, or its toolset enabled, may go on on another
        replica at once."""
        session = [asked] if asked else []

        async def keeping(message: Message) -> None:
            if message["type"] == "http.response.start" and not asked:
                for name, value in message.get("headers") or []:
                    if name.lower() == SESSION_HEADER:
                        session.append(value.decode("latin-1"))
            elif message["type"] == "http.response.body" and session:
                await self._keep(session[0], owner)
            await send(message)

        return keeping

    async def _keep(self, session_id: str, owner: Any) -> None:
        """Write the session's record when it opens or its toolsets change, and renew it
        often enough that it outlives the idle timeout by at most a quarter of it."""
        record = SESSIONS.get(session_id)
        connection = self.limits.connection_of(session_id)
        if record is None or connection is None or connection.client_params is None:
            return
        toolsets = frozenset(record.enabled)
        level = self.levels.get(session_id)
        saved = self._saved.get(session_id)
        now = time.monotonic()
        if saved is not None and saved[1] == (toolsets, level):
            if now - saved[0] < self.renew_s:
                return
            key = self._key(session_id)
            renewed = await self._run("session_renew", lambda r: r.expire(key, self.ttl_s))
            if renewed is True:
                self._saved[session_id] = (now, (toolsets, level))
                return
            self._saved.pop(session_id, None)  # tried again at the next answer
            if renewed is _UNREACHABLE:
                return
            # the record is gone (a Redis that restarted without its data): written again
        body = {
            "owner": owner,
            "principal": record.owner,
            "version": connection.protocol_version,
            "client": connection.client_params.model_dump(
                mode="json", by_alias=True, exclude_none=True
            ),
            "toolsets": sorted(toolsets),
            "log_level": level,
        }
        text, key = json.dumps(body), self._key(session_id)
        if await self._run("session_keep", lambda r: r.set(key, text, ex=self.ttl_s)) is True:
            self._saved[session_id] = (now, (toolsets, level))  # else tried again next time

    async def _load(self, session_id: str) -> dict[str, Any] | None:
        raw = await self._run("session_load", lambda r: r.get(self._key(session_id)))
        if raw is _UNREACHABLE:
            raise _Unreachable
        if not raw:
            return None
        try:
            body = json.loads(raw)
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    async def _drop(self, session_id: str) -> None:
        self._saved.pop(session_id, None)
        await self._run("session_drop", lambda r: r.delete(self._key(session_id)))

    async def _revive(self, session_id: str, requestor: Any) -> bool:
        """Take the session over from its record; False only when Redis cannot say
        whether it has one (else the SDK goes on: the session, or its 404)."""
        try:
            body = await self._load(session_id)
        except _Unreachable:
            return False
        manager = self.limits.manager
        if body is None or manager is None or session_id in sessions(manager):
            return True  # none (the SDK answers 404), or revived meanwhile by another request
        if body.get("owner") != requestor:
            return True  # another credential: answered exactly as an unknown session
        self._enter(session_id, requestor, body)
        return True

    def _enter(self, session_id: str, requestor: Any, body: dict[str, Any]) -> None:
        try:
            params = InitializeRequestParams.model_validate(body["client"])
            connection = Connection(
                NO_CHANNEL,
                protocol_version=str(body["version"]),
                session_id=session_id,
                client_params=params,
            )
            record = SessionRecord(str(body["principal"]))
            record.enabled = {str(name) for name in body.get("toolsets", [])}
            level = body.get("log_level")
            if level is not None and level not in LOG_LEVELS:
                raise ValueError(level)
        except (KeyError, TypeError, ValueError):
            return
        connection.initialized.set()
        SESSIONS[session_id] = record
        # this copy's end (idle, DELETE) ends it here; the record and approvals stay shared
        connection.exit_stack.callback(SESSIONS.pop, session_id, None)
        connection.exit_stack.callback(self._saved.pop, session_id, None)
        if level is not None:
            self.levels[session_id] = level
            connection.exit_stack.callback(self.levels.pop, session_id, None)
        if not self.limits.revive(session_id, connection, requestor):
            SESSIONS.pop(session_id, None)
            return
        self._saved[session_id] = (time.monotonic(), (frozenset(record.enabled), level))
        log_event("session_revived", session=session_id[:8])

    async def _run(self, what: str, command: Any) -> Any:
        """One Redis command; `_UNREACHABLE` when Redis is down."""
        try:
            async with self.shared.op(what) as r:
                return await pending(command(r))
        except GitHubMCPError:
            return _UNREACHABLE


_UNREACHABLE = object()


class _Unreachable(Exception):
    pass


async def _unreachable(scope: Scope, receive: Receive, send: Send) -> None:
    """503 and a retryable JSON-RPC error: the client should retry, not initialize again."""
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32000,
            "message": "This session is held by another replica and the shared state "
            "(Redis) is unreachable; retry in a second.",
            "data": {"code": "unavailable", "retryable": True},
        },
    }
    headers = {"Retry-After": "1"}
    await JSONResponse(body, status_code=503, headers=headers)(scope, receive, send)
