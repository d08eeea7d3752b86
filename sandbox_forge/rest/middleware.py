"""The behaviour every GitHub response shares, as one ASGI middleware.

Per request, in order: strip /api/v3, global latency, fault rules, authentication, the
primary rate limit, the handler, ETag/304, rate-limit headers, the request log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sandbox_forge.kernel.errors import JSON_TYPE, ApiError, error_body
from sandbox_forge.rest.auth import Principal, authenticate, oauth_scopes
from sandbox_forge.rest.conditional import complete_headers, conditional
from sandbox_forge.stores.faults import RATE_LIMIT_DOCS, FaultRule
from sandbox_forge.stores.ratelimit import resource_for
from sandbox_forge.stores.state import ForgeState

log = logging.getLogger("sandbox_forge")

API_PREFIX = "/api/v3"
ADMIN_PREFIX = "/_sandbox"
GIT_PATH = re.compile(r"^/[^/]+/[^/]+/(info/refs|git-upload-pack|git-receive-pack)$")
# github.com's web side (sign-in, OAuth): no API credentials, no rate limit, no ETag.
WEB_PATHS = ("/login", "/session", "/logout")
# Never logged: the OAuth flow's secrets, when a client puts them in the query string.
SECRET_PARAMS = re.compile(
    r"(?i)(^|&)(client_secret|code|code_verifier|refresh_token|password)=[^&]*"
)
UNCOUNTED_PATHS = {"/rate_limit"}
API_VERSION = "2022-11-28"


def classify(path: str) -> str:
    if path == ADMIN_PREFIX or path.startswith(ADMIN_PREFIX + "/"):
        return "admin"
    if GIT_PATH.match(path):
        return "git"
    if path in WEB_PATHS or path.startswith("/login/"):
        return "web"
    return "api"


async def drop_connection(send: Send) -> None:
    """Promise a body and never send it: the client sees a broken connection, not a status."""
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", JSON_TYPE.encode()), (b"content-length", b"4096")],
        }
    )
    await send({"type": "http.response.body", "body": b"{", "more_body": True})


class _Capture:
    """Collects a handler's response so the middleware can rewrite it before sending."""

    def __init__(self) -> None:
        self.status = 500
        self.headers = MutableHeaders()
        self.body = bytearray()
        self.started = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
            self.status = message["status"]
            self.headers = MutableHeaders(raw=list(message.get("headers", [])))
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")


class ForgeMiddleware:
    def __init__(self, app: ASGIApp, state: ForgeState):
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope = dict(scope)
        original = scope["path"]
        prefix = (
            API_PREFIX if original == API_PREFIX or original.startswith(API_PREFIX + "/") else ""
        )
        path = original[len(prefix) :] or "/"
        scope.update(
            {
                "path": path,
                "raw_path": scope.get("raw_path", original.encode())[len(prefix) :] or b"/",
                "forge.api_prefix": prefix,
                "forge.original_path": original,
            }
        )
        kind = classify(path)
        if kind == "admin":
            await self.app(scope, receive, send)
            return
        scope["forge.started"] = started = time.perf_counter()
        entry: dict[str, Any] = {
            "method": scope["method"],
            "path": original,
            "query": SECRET_PARAMS.sub(
                r"\1\2=REDACTED", scope.get("query_string", b"").decode("latin-1")
            ),
            "kind": kind,
            "ts": time.time(),
            "status": None,
        }
        # Logged before answering, so a client that got its response always finds it here.
        self.state.log.add(entry)
        scope["forge.log_entry"] = entry  # handlers may add what only they know (GraphQL)
        try:
            await self._handle(scope, receive, send, kind, entry)
        finally:
            entry["duration_ms"] = round((time.perf_counter() - started) * 1000, 2)

    async def _handle(
        self, scope: Scope, receive: Receive, send: Send, kind: str, entry: dict[str, Any]
    ) -> None:
        request_id = secrets.token_hex(8).upper()
        scope["forge.request_id"] = request_id
        if self.state.latency_ms:
            await asyncio.sleep(self.state.latency_ms / 1000)
        rule = self.state.faults.take(scope["method"], scope["path"])
        if rule is not None:
            entry["fault"] = rule.id
            if rule.latency_ms:
                await asyncio.sleep(rule.latency_ms / 1000)
            # until the test releases it, from its own thread: no loop's Event can be set there
            while rule.hold and self.state.faults.held(rule.id):  # noqa: ASYNC110
                await asyncio.sleep(0.02)
            if rule.phase == "before" and rule.replaces_response:
                await self._answer_with_fault(scope, send, rule, entry)
                return
        after = (
            rule if rule is not None and rule.phase == "after" and rule.replaces_response else None
        )
        if kind in ("git", "web"):  # passed through: they answer in their own formats
            await self._git(scope, receive, send, after, entry)
        else:
            await self._api(scope, receive, send, after, entry)

    async def _answer_with_fault(
        self, scope: Scope, send: Send, rule: FaultRule, entry: dict[str, Any]
    ) -> None:
        if rule.drop_connection:
            entry["dropped"] = True
            _settle(scope, entry, entry.get("status"))
            await drop_connection(send)
            return
        status, headers, body = rule.response(scope["forge.request_id"])
        _settle(scope, entry, status)
        request_id = scope["forge.request_id"]
        await _send_json(send, status, body, {"x-github-request-id": request_id, **headers})

    async def _git(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        after: FaultRule | None,
        entry: dict[str, Any],
    ) -> None:
        if after is None:

            async def watch(message: Message) -> None:
                if message["type"] == "http.response.start":
                    _settle(scope, entry, message["status"])
                await send(message)

            await self.app(scope, receive, watch)
            return
        capture = _Capture()
        await self.app(scope, receive, capture)  # the push or fetch really happens
        entry["status"] = capture.status
        await self._answer_with_fault(scope, send, after, entry)

    async def _api(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        after: FaultRule | None,
        entry: dict[str, Any],
    ) -> None:
        state = self.state
        headers = Headers(scope=scope)
        request_id = scope["forge.request_id"]
        client_ip = (scope.get("client") or ("127.0.0.1", 0))[0]
        version = headers.get("x-github-api-version", API_VERSION)
        common = {"x-github-request-id": request_id, "x-github-api-version-selected": version}
        try:
            principal = authenticate(state, headers.get("authorization"), client_ip)
        except ApiError as err:
            anon = state.rate.bucket(f"ip:{client_ip}", "core", anonymous=True)
            body = error_body(err.status, err.message, err.errors, err.documentation_url)
            await self._refuse(scope, send, entry, err.status, body, {**common, **anon.headers()})
            return
        scope["forge.principal"] = principal
        if principal.login:
            entry["login"] = principal.login  # who asked: tests tell users' requests apart
        resource = resource_for(scope["path"])
        counted = scope["path"] not in UNCOUNTED_PATHS
        bucket = state.rate.bucket(principal.rate_key, resource, principal.anonymous)
        if counted and bucket.remaining <= 0:
            body = _rate_limited_body(state, principal, request_id)
            await self._refuse(scope, send, entry, 403, body, {**common, **bucket.headers()})
            return

        capture = await self._run_route(scope, receive)
        if after is not None:
            entry["status"] = capture.status
            await self._answer_with_fault(scope, send, after, entry)
            return

        status, out_headers, raw = capture.status, capture.headers, bytes(capture.body)
        if scope["method"] in ("GET", "HEAD") and status == 200:
            status, raw = conditional(headers, out_headers, raw)
        if counted and status != 304 and status < 500:
            bucket = state.rate.consume(principal.rate_key, resource, principal.anonymous)
        extra = {**common, **bucket.headers(), **_extra_headers(principal, scope)}
        complete_headers(out_headers, extra, status, raw)
        if state.contract is not None and not scope.get("forge.client_gone"):
            content_type = out_headers.get("content-type", "")
            crash, location = scope.get("forge.crash", ""), out_headers.get("location", "")
            state.contract.rest(
                scope["method"], scope["path"], status, content_type, raw, crash, location
            )
        # Logged and recorded before answering: a client holding the response finds it there.
        self._record(scope, status, out_headers.get("content-type", ""), raw, dict(out_headers))
        _settle(scope, entry, status)
        await send({"type": "http.response.start", "status": status, "headers": out_headers.raw})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else raw}
        )

    async def _refuse(
        self,
        scope: Scope,
        send: Send,
        entry: dict[str, Any],
        status: int,
        body: dict[str, Any],
        headers: dict[str, str],
    ) -> None:
        """Answer before the handler runs (no credentials, no rate left)."""
        raw = json.dumps(body).encode()
        self._record(scope, status, JSON_TYPE, raw, {})
        if self.state.contract is not None:
            self.state.contract.rest(scope["method"], scope["path"], status, JSON_TYPE, raw)
        _settle(scope, entry, status)
        await _send_json(send, status, body, headers)

    async def _run_route(self, scope: Scope, receive: Receive) -> _Capture:
        """Run the route; a handler that raises answers 500 as GitHub does."""
        capture = _Capture()
        if self.state.log.record_responses:
            receive = _keep_request_body(scope, receive)
        try:
            await self.app(scope, receive, capture)
        except ClientDisconnect:
            # the client left before its request was read: no answer reaches anyone, so
            # there is nothing to hold to GitHub's description (nginx's 499)
            scope["forge.client_gone"] = True
            capture = _Capture()
            capture.status = 499
        except Exception as exc:
            log.exception("forge handler failed: %s %s", scope["method"], scope["path"])
            scope["forge.crash"] = f"{type(exc).__name__}: {exc}"[:300]
            capture = _Capture()
            capture.status = 500
            capture.headers = MutableHeaders({"content-type": JSON_TYPE})
            capture.body = bytearray(json.dumps(error_body(500, "Server Error")).encode())
        return capture

    def _record(
        self, scope: Scope, status: int, content_type: str, body: bytes, headers: dict[str, str]
    ) -> None:
        if not self.state.log.record_responses:
            return
        parsed: Any = None
        if body:
            try:  # JSON under any media type (application/json, vnd.github.object…)
                parsed = json.loads(body)
            except ValueError:
                parsed = body[:65536].decode("utf-8", "replace")
        self.state.log.add_response(
            {
                "method": scope["method"],
                "path": scope["path"],
                "original_path": scope["forge.original_path"],
                "query": scope.get("query_string", b"").decode("latin-1"),
                "status": status,
                "content_type": content_type,
                "body": parsed,
                "headers": headers,
                "request_body": _parsed_json(scope.get("forge.request_body")),
            }
        )


def _keep_request_body(scope: Scope, receive: Receive) -> Receive:
    """Wrap receive so the request body is kept for the response record: contract tests
    check what clients sent against the operation's documented requestBody."""
    scope["forge.request_body"] = bytearray()

    async def wrapped() -> Message:
        message = await receive()
        if message["type"] == "http.request":
            scope["forge.request_body"] += message.get("body", b"")
        return message

    return wrapped


def _parsed_json(raw: bytearray | None) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _settle(scope: Scope, entry: dict[str, Any], status: int | None) -> None:
    entry["status"] = status
    entry["duration_ms"] = round((time.perf_counter() - scope["forge.started"]) * 1000, 2)


def _extra_headers(principal: Principal, scope: Scope) -> dict[str, str]:
    headers = {
        "vary": "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding",
        "x-github-media-type": "github.v3; format=json",  # raw and diff answers set their own
    }
    token = principal.token
    if token is not None and token.kind in ("classic", "oauth"):
        headers["x-oauth-scopes"] = oauth_scopes(token)
        headers["x-accepted-oauth-scopes"] = "repo" if scope["path"].startswith("/repos/") else ""
    return headers


def _rate_limited_body(state: ForgeState, principal: Principal, request_id: str) -> dict[str, Any]:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    support = (
        f" If you reach out to GitHub Support for help, please include the request ID "
        f"{request_id} and timestamp {stamp}."
    )
    token = principal.token
    if token is not None and token.installation_id is not None:
        who = f"installation ID {token.installation_id}."
    elif token is not None:
        user = state.user(token.login)
        who = f"user ID {user.id if user else 0}."
    elif principal.app is not None:
        who = f"app ID {principal.app.app_id}."
    else:
        who = (
            f"{principal.client_ip}. (But here's the good news: Authenticated requests get a "
            "higher rate limit. Check out the documentation for more details.)"
        )
    return error_body(403, f"API rate limit exceeded for {who}{support}", None, RATE_LIMIT_DOCS)


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: dict[str, str]
) -> None:
    payload = json.dumps(body, separators=(",", ":")).encode()
    raw = [(b"content-type", JSON_TYPE.encode()), (b"content-length", str(len(payload)).encode())]
    raw += [(k.lower().encode(), str(v).encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": payload})
