"""Assembly: the FastMCP instance, tool binding, and the HTTP application
(streamable HTTP at /mcp, legacy SSE at /sse, /healthz, /metrics, /status)."""

from __future__ import annotations

import base64
from functools import partial
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from github_mcp import tools as _tools  # noqa: F401 - importing registers the tools
from github_mcp.apps import approval_tool
from github_mcp.apps.wiring import install_apps
from github_mcp.catalog.tool_paths import ToolViewPaths
from github_mcp.config import Settings
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.framework_internals import tool_input_schemas
from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.extension_tools import import_extension_tools
from github_mcp.pipeline.runtime import SERVER_NAME, VERSION, Runtime
from github_mcp.pipeline.schema_listing import SHARED_NOTE
from github_mcp.serving.exposure import LOOPBACK_HOSTS, check_http_exposure, is_loopback
from github_mcp.serving.forwarded import ForwardedHeaders
from github_mcp.serving.framework_guides import register_guides
from github_mcp.serving.framework_tools import ServedToolsProvider, SessionOwnerMiddleware
from github_mcp.serving.header_values import trimmed_mcp_headers
from github_mcp.serving.param_headers import declared_input
from github_mcp.serving.run_watch import add_watching_listen
from github_mcp.serving.tasks import add_tasks
from github_mcp.serving.tool_lookup import ServingMCP

INSTRUCTIONS = (
    "GitHub MCP Controller: read repositories cheaply, change code on feature branches with "
    "verified commits, run tests in a workspace, and drive pull requests. Writes to default "
    "or protected branches need approval (see get_server_config). " + SHARED_NOTE
)


def _bearer_tokens(tokens: tuple[str, ...]) -> Any:
    from github_mcp.hosted.bearer_tokens import BearerTokens  # HTTP only: not on stdio's path

    return BearerTokens(tokens)


def build_mcp(rt: Runtime, *, http_auth: bool = False, sign_in: Any = None) -> FastMCP:
    """`sign_in`: the OAuth provider of GITHUB_MCP_AUTH=oauth (see `hosted`); each request
    then acts with its signed-in user's GitHub token."""
    auth: Any = None
    if sign_in is not None:
        auth = sign_in
    elif http_auth and rt.settings.auth_mode == "bearer" and rt.settings.bearer_tokens:
        auth = _bearer_tokens(rt.settings.bearer_tokens)
    middleware: list[Middleware] = [SessionOwnerMiddleware(rt)]
    if sign_in is not None:
        from github_mcp.hosted import ActAsSignedInUser

        middleware.insert(0, ActAsSignedInUser())
    mcp = ServingMCP(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=VERSION,
        middleware=middleware,
        mask_error_details=True,
        auth=auth,
        # debug messages only for a client that asked for them with logging/setLevel
        client_log_level="info",
    )
    import_extension_tools()
    rt.bound_specs.refresh()
    mcp.add_provider(ServedToolsProvider(rt))
    register_guides(mcp, rt)
    install_apps(mcp)
    approval_tool.install_cards(rt)
    add_tasks(mcp, rt.settings)  # MCP tasks for long calls (serving/tasks.py)
    tool_input_schemas(mcp, partial(declared_input, rt))  # SEP-2243 header checks
    add_watching_listen(mcp, rt)  # subscriptions/listen, watched workflow runs
    return mcp


# -- HTTP ------------------------------------------------------------------


class HttpGuard:
    """Bearer auth, Host/Origin checks (DNS rebinding) and a body-size cap."""

    OPEN_PATHS = ("/healthz", "/health", "/readyz")
    # own sign-in (status/auth.py, status/github_signin.py)
    STATUS_PATHS = ("/status", "/status/login", "/status/logout", "/status/github")
    BROWSER_PATHS = ("/metrics",)
    # the approval pages sign in as /status does (approvals/approver.py), never with Basic
    APPROVAL_PREFIX = "/approvals/"

    def __init__(
        self,
        app: ASGIApp,
        settings: Settings,
        bind_host: str,
        port: int | None,
        public_url: str | None = None,
    ) -> None:
        self.app = app
        self.settings = settings
        self.tokens = _bearer_tokens(settings.bearer_tokens) if settings.bearer_tokens else None
        # oauth: fastmcp's OAuth layer guards /mcp; static tokens only open operator pages
        self.operator_only = settings.auth_mode == "oauth"
        self.open_access = settings.auth_mode == "none"
        self.hosts = {h.lower() for h in LOOPBACK_HOSTS | {bind_host}}
        self.hosts |= {h.strip().lower() for h in settings.allowed_hosts.split(",") if h.strip()}
        self.origins = {
            o.strip().rstrip("/").lower() for o in settings.allowed_origins.split(",") if o.strip()
        }
        if public_url:
            # the public URL's own pages (consent form) post from its origin
            from urllib.parse import urlsplit

            public = urlsplit(public_url)
            self.hosts.add((public.hostname or "").lower())
            self.origins.add(f"{public.scheme}://{public.netloc}".lower())
        self.port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope = trimmed_mcp_headers(scope)  # SEP-2243: OWS around a routing header
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path = scope.get("path", "")
        denial = self._check(headers, path)
        if denial is not None:
            status, message = denial
            extra = None
            if status == 401:
                scheme = "Basic" if self._takes_basic(path) else "Bearer"
                extra = {"WWW-Authenticate": f'{scheme} realm="github-mcp"'}
            response = JSONResponse({"error": message}, status_code=status, headers=extra)
            log_event("http_denied", status=status, path=path, reason=message)
            await response(scope, receive, send)
            return
        length = headers.get("content-length")
        limit = self.settings.max_body_bytes
        too_large = JSONResponse({"error": "request body too large"}, status_code=413)
        if length and length.isdigit() and int(length) > limit:
            await too_large(scope, receive, send)
            return
        if length is None and "chunked" in headers.get("transfer-encoding", "").lower():
            # No declared length: read the body here, up to the cap, so an oversized
            # one is answered 413 before the app has started on it.
            buffered = await _read_capped(receive, limit)
            if buffered is None:
                log_event("http_denied", status=413, path=path, reason="body too large")
                await too_large(scope, receive, send)
                return
            receive = _replay(buffered, receive)
        await self.app(scope, _capped_receive(receive, limit), send)

    def _check(self, headers: dict[str, str], path: str) -> tuple[int, str] | None:
        host = headers.get("host", "").lower()
        hostname = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if "*" not in self.hosts and hostname not in self.hosts:
            return 421 if not host else 403, "host not allowed"
        origin = headers.get("origin")
        if origin and not self._origin_allowed(origin):
            return 403, "origin not allowed"
        if path in self.OPEN_PATHS or path in self.STATUS_PATHS or self.open_access:
            return None
        if path.startswith(self.APPROVAL_PREFIX):
            return None
        if self.operator_only and path not in self.BROWSER_PATHS:
            return None
        if self.tokens is None:
            if self.operator_only:
                return 403, "operator pages need GITHUB_MCP_AUTH_TOKENS with GITHUB_MCP_AUTH=oauth"
            return None
        if self._credential(headers.get("authorization", ""), path) is None:
            return 401, "missing or invalid bearer token"
        return None

    def _credential(self, header: str, path: str) -> str | None:
        """The principal for a bearer token; operator pages (not the MCP endpoints)
        also take HTTP Basic with the token as password, so a browser can log in."""
        assert self.tokens is not None
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer" and value:
            principal: str | None = self.tokens.principal_for(value)
            return principal
        if scheme.lower() == "basic" and value and self._takes_basic(path):
            try:
                password = base64.b64decode(value, validate=True).decode().partition(":")[2]
            except (ValueError, UnicodeDecodeError):
                return None
            return self.tokens.principal_for(password) if password else None
        return None

    def _takes_basic(self, path: str) -> bool:
        return path in self.BROWSER_PATHS

    def _origin_allowed(self, origin: str) -> bool:
        normalized = origin.rstrip("/").lower()
        if normalized in self.origins:
            return True
        try:
            from urllib.parse import urlsplit

            return is_loopback(urlsplit(normalized).hostname or "")
        except ValueError:
            return False


async def _read_capped(receive: Receive, limit: int) -> list[Message] | None:
    """The request's body messages, or None once they pass `limit` bytes."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages  # the client went away; the app sees the disconnect
        size += len(message.get("body", b""))
        if size > limit:
            return None
        if not message.get("more_body", False):
            return messages


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed


def _capped_receive(receive: Receive, limit: int) -> Receive:
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise GitHubMCPError(
                    ErrorCode.INVALID_INPUT,
                    "request body too large",
                    hint=(
                        "Send less in one call: split the change into several commits or use "
                        "the workspace tools."
                    ),
                )
        return message

    return wrapped


def build_http_app(
    rt: Runtime, *, host: str = "127.0.0.1", port: int | None = None, stateless: bool = False
) -> Starlette:
    check_http_exposure(rt.settings, host)
    sign_in, public_url = _sign_in(rt.settings, host, port)
    mcp = build_mcp(rt, http_auth=True, sign_in=sign_in)
    from github_mcp.serving.http_sessions import SessionLimits
    from github_mcp.status.routes import health_routes

    sessions = SessionLimits(
        idle_timeout_s=rt.settings.session_idle_timeout_seconds,
        max_sessions=rt.settings.max_sessions,
        stateless=stateless,
        proxy_id_header=rt.settings.session_id_header,
        hibernate_after_s=rt.settings.session_hibernate_after_seconds,
    )
    for route in [
        *health_routes(rt, sessions, sign_in, public_url or ""),
        *_approval_routes(rt, sign_in, public_url),
    ]:
        methods = sorted(route.methods or ())
        mcp.custom_route(route.path, methods=methods, name=route.name)(route.endpoint)
    event_store = _event_store(rt)
    app = mcp.http_app(
        path="/mcp",
        stateless_http=stateless,
        session_idle_timeout=rt.settings.session_idle_timeout_seconds,
        event_store=event_store,
        retry_interval=rt.settings.stream_retry_ms,
    )
    app.state.event_store = event_store
    sessions.attach(app)
    if rt.shared is not None:
        from github_mcp.state import local_sessions
        from github_mcp.status.health import readiness

        rt.shared.attach_http(app, local_sessions(app))
        if not stateless:  # any replica serves any session (outside the resume relay)
            from github_mcp.serving.shared_sessions import SharedSessions

            SharedSessions(rt.shared.state, sessions, mcp, rt.shared.questions).attach(app)
        readiness(rt).add_check("redis", rt.shared.check)
    if sign_in is None:
        # legacy SSE; not under OAuth, whose tokens are bound to the one resource /mcp
        sse_app = mcp.http_app(path="/sse", transport="sse")
        app.router.routes.extend(r for r in sse_app.router.routes if r not in app.router.routes)
    app.state.runtime = rt
    app.state.sign_in = sign_in
    app.add_middleware(ToolViewPaths)  # inside the guard: /mcp/x/... is checked as /mcp is
    app.add_middleware(
        _GuardMiddlewareFactory,
        settings=rt.settings,
        bind_host=host,
        port=port,
        public_url=public_url,
    )
    if rt.settings.trusted_proxies:  # outermost: the guard checks the host clients use
        app.add_middleware(ForwardedHeaders, trusted=rt.settings.trusted_proxies)
    return app


def _event_store(rt: Runtime) -> Any:
    """Where response streams are kept for resumption (Last-Event-ID): Redis with
    replicas, else this process's memory, bounded by size and age. Either way each
    stream starts with the priming event and its `retry` field."""
    if rt.shared is not None:
        return rt.shared.events
    from github_mcp.serving.stream_events import BoundedEventStore

    settings = rt.settings
    return BoundedEventStore(
        max_bytes=settings.stream_events_max_bytes,
        max_age_s=settings.stream_events_max_age_seconds,
    )


def _approval_routes(rt: Runtime, sign_in: Any, public_url: str | None) -> list[Any]:
    """The approval page (auto mode), signed in the way the caller's principal is."""
    from github_mcp.approvals.page import ApprovalPage

    settings = rt.settings
    rt.pending.public_url = public_url or (settings.public_url or "").rstrip("/") or None
    if sign_in is not None:
        # signing out, or in again, ends the user's write approvals on every replica
        sign_in.on_identity_change = lambda login: rt.gate.revoke_principal(f"github:{login}")
    bearer = None
    if settings.auth_mode == "bearer" and settings.bearer_tokens:
        bearer = _bearer_tokens(settings.bearer_tokens).principal_for
    from github_mcp.approvals.browser_session import BrowserSession
    from github_mcp.status.my_grants import MyGrants

    page = ApprovalPage(
        rt.pending, bearer_principal=bearer, sign_in=sign_in, browser=BrowserSession(settings)
    )
    return MyGrants(page, rt.gate).routes() + page.routes()  # /grants before /{request_id}


def _sign_in(settings: Settings, host: str, port: int | None) -> tuple[Any, str | None]:
    """The OAuth provider and public URL under GITHUB_MCP_AUTH=oauth, else (None, None);
    a configuration that cannot work stops the start with a clear message."""
    if settings.auth_mode != "oauth":
        return None, None
    from github_mcp.hosted import PublicURLError, SignInConfigError, build_sign_in, public_base_url

    try:
        public_url = public_base_url(settings, host, port, loopback=is_loopback(host))
        return build_sign_in(settings, public_url), public_url
    except (PublicURLError, SignInConfigError) as exc:
        raise SystemExit(str(exc)) from None


class _GuardMiddlewareFactory:
    def __init__(
        self,
        app: ASGIApp,
        settings: Settings,
        bind_host: str,
        port: int | None,
        public_url: str | None = None,
    ) -> None:
        self._guard = HttpGuard(app, settings, bind_host, port, public_url)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._guard(scope, receive, send)
