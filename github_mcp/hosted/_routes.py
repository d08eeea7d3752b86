"""The sign-in endpoints where the stock proxy departs from the RFCs, and the headers of
the sign-in pages.

- /register narrows a requested scope the server does not grant (claude.ai asks for
  `claudeai`) instead of answering 400, and an omitted auth method means a public client.
- /token answers RFC 6749 §5.2 status codes: 400, and 401 only for `invalid_client`.
- /revoke takes a public client's `client_id` alone (RFC 7009 §2.1).
- A client ID metadata document that cannot be used gets an error saying why.
- The consent, callback and authorize pages load nothing from another origin and are
  never cached or framed."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from fastmcp.server.auth.auth import PrivateKeyJWTClientAuthenticator, TokenHandler
from fastmcp.server.auth.cimd import CIMDClientManager, CIMDFetchError, CIMDValidationError
from fastmcp.server.auth.handlers.authorize import AuthorizationHandler
from fastmcp.utilities.ui import FASTMCP_LOGO_URL
from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.provider import OAuthAuthorizationServerProvider
from mcp.server.auth.routes import build_metadata, cors_middleware
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
# the pages are forms and text: inline styles, a data: image, nothing fetched elsewhere
PAGE_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "frame-ancestors 'none'"
)
PAGE_HEADERS = {
    **NO_STORE,
    "Content-Security-Policy": PAGE_CSP,
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # no-referrer would make form posts Origin: null
    "X-Content-Type-Options": "nosniff",
}
# a key in a circle, drawn inline so no page fetches a logo from another origin
LOGO_DATA_URI = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'%3E"
    "%3Ccircle cx='12' cy='12' r='11' fill='%2324292f'/%3E%3Ccircle cx='9' cy='12' r='3' "
    "fill='none' stroke='white' stroke-width='2'/%3E%3Cpath d='M12 12h7v3' fill='none' "
    "stroke='white' stroke-width='2'/%3E%3C/svg%3E"
)
SECRET_METHODS = ("client_secret_post", "client_secret_basic")


def sign_in_page(endpoint: Any) -> Any:
    """An HTML-serving sign-in endpoint with the page headers on every answer, and the
    library's remote logo swapped for an inline one."""

    async def page(request: Request) -> Response:
        response: Response = await endpoint(request)
        if response.media_type == "text/html" or isinstance(response, HTMLResponse):
            body = bytes(response.body).replace(FASTMCP_LOGO_URL.encode(), LOGO_DATA_URI.encode())
            response.body = body
            response.headers["content-length"] = str(len(body))
        for name, value in PAGE_HEADERS.items():
            response.headers[name] = value
        return response

    return page


# -- registration -------------------------------------------------------------------


def narrowed_registration(body: bytes, supported: list[str]) -> bytes:
    """The registration body with `scope` narrowed to what this server grants, and a
    missing `token_endpoint_auth_method` made `none` (a public client, which the
    response says). Unparseable bodies pass through for the SDK to refuse."""
    try:
        metadata = json.loads(body)
    except ValueError:
        return body
    if not isinstance(metadata, dict):
        return body
    scope = metadata.get("scope")
    if isinstance(scope, str):
        kept = [s for s in scope.split() if s in supported]
        if kept:
            metadata["scope"] = " ".join(kept)
        else:
            metadata.pop("scope")  # the server's default: every scope it grants
    if metadata.get("token_endpoint_auth_method") is None:
        metadata["token_endpoint_auth_method"] = "none"
    return json.dumps(metadata).encode()


class NarrowingRegistration:
    def __init__(self, handler: Any, supported: list[str]) -> None:
        self.handler = handler
        self.supported = supported

    async def handle(self, request: Request) -> Response:
        body = narrowed_registration(await request.body(), self.supported)
        request._body = body  # Starlette's cached body: the SDK handler reads this one
        response: Response = await self.handler.handle(request)
        return response


def narrow_scopes(requested: list[str] | None, granted: str | None) -> list[str] | None:
    """Requested scopes the client was registered for; none of them means all of those
    (an unknown scope is narrowed, never an error)."""
    if requested is None:
        return None
    allowed = (granted or "").split()
    kept = [s for s in requested if s in allowed]
    return kept or allowed


# -- token --------------------------------------------------------------------------


async def client_error_status(request: Request, response: Response) -> None:
    """RFC 6749 §5.2 on an `invalid_client` answer: 401 when the client tried to
    authenticate (a `Basic` challenge when it used the Authorization header), else 400."""
    basic = request.headers.get("authorization", "").lower().startswith("basic ")
    form = await request.form()
    tried = basic or bool(form.get("client_secret")) or bool(form.get("client_assertion"))
    response.status_code = 401 if tried else 400
    if basic:
        response.headers["WWW-Authenticate"] = 'Basic realm="oauth"'


class RFCTokenHandler(TokenHandler):
    """The proxy's handler answers `invalid_grant` with 401; RFC 6749 §5.2 says 400 for
    every error, and 401 only for `invalid_client` when the client tried to authenticate."""

    async def handle(self, request: Any) -> Response:
        response: Response = await super().handle(request)
        if response.status_code not in (400, 401):
            return response
        try:
            error = json.loads(bytes(response.body)).get("error")
        except (ValueError, AttributeError):
            return response
        if error == "invalid_client":
            await client_error_status(request, response)
        else:
            response.status_code = 400
        return response


# -- revocation ---------------------------------------------------------------------


class PublicClientRevocation:
    """RFC 7009: a public client revokes with its `client_id` alone; a confidential one
    authenticates as it registered. Unknown or foreign tokens still answer 200."""

    def __init__(self, provider: OAuthAuthorizationServerProvider[Any, Any, Any]) -> None:
        self.provider = provider
        self.authenticator = ClientAuthenticator(provider)

    async def handle(self, request: Request) -> Response:
        try:
            client = await self.authenticator.authenticate_request(request)
        except AuthenticationError as exc:
            refused = JSONResponse(
                {"error": "invalid_client", "error_description": exc.message},
                status_code=401,
                headers=NO_STORE,
            )
            await client_error_status(request, refused)
            return refused
        form = await request.form()
        token = form.get("token")
        if not isinstance(token, str) or not token:
            return JSONResponse(
                {"error": "invalid_request", "error_description": "token is required"},
                status_code=400,
                headers=NO_STORE,
            )
        hint = form.get("token_type_hint")
        loaders: list[Callable[[str], Awaitable[Any]]] = [
            self.provider.load_access_token,
            lambda t: self.provider.load_refresh_token(client, t),
        ]
        if hint == "refresh_token":
            loaders.reverse()
        for load in loaders:
            found = await load(token)
            if found is not None:
                if found.client_id == client.client_id:
                    await self.provider.revoke_token(found)
                break
        return Response(status_code=200, headers=NO_STORE)


# -- client ID metadata documents ----------------------------------------------------


class _RecordingFetcher:
    """The manager's document fetcher, noting why a fetch failed."""

    def __init__(self, inner: Any, failures: OrderedDict[str, str]) -> None:
        self.inner = inner
        self.failures = failures

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def fetch(self, client_id_url: str) -> Any:
        try:
            document = await self.inner.fetch(client_id_url)
        except (CIMDFetchError, CIMDValidationError) as exc:
            self.failures[client_id_url] = str(exc)
            while len(self.failures) > 256:
                self.failures.popitem(last=False)
            raise
        self.failures.pop(client_id_url, None)
        return document


class ExplainingCIMDManager(CIMDClientManager):
    """Remembers why a client's metadata document could not be used, so the authorize
    error can say so instead of "not registered"."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.failures: OrderedDict[str, str] = OrderedDict()
        self._fetcher = _RecordingFetcher(self._fetcher, self.failures)  # type: ignore[assignment]


def cimd_failure_text(client_id: str, reason: str) -> str:
    if "blocked IP" in reason:
        return (
            f"The client metadata document {client_id} is blocked: its host resolves to a "
            "private, loopback, link-local or reserved address, which this server never "
            "fetches. Publish the document on a public HTTPS host."
        )
    return f"The client metadata document {client_id} could not be used: {reason}"


class ExplainingAuthorization(AuthorizationHandler):
    """The stock authorize handler, with a client metadata document's failure explained."""

    def __init__(self, *, cimd: ExplainingCIMDManager | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cimd = cimd

    async def _create_enhanced_error_response(
        self, request: Request, client_id: str, state: str | None
    ) -> Response:
        reason = self.cimd.failures.get(client_id) if self.cimd is not None else None
        if reason is None:
            return await super()._create_enhanced_error_response(request, client_id, state)
        text = cimd_failure_text(client_id, reason)
        if "text/html" in request.headers.get("accept", ""):
            from html import escape

            page = f"<!doctype html><title>Client refused</title><p>{escape(text)}</p>"
            return HTMLResponse(page, status_code=400, headers=PAGE_HEADERS)
        body = {"error": "invalid_client", "error_description": text}
        if state:
            body["state"] = state
        return JSONResponse(body, status_code=400, headers=NO_STORE)


# -- the routes, assembled -------------------------------------------------------------

PAGE_PATHS = ("/consent", "/authorize")


def conforming_routes(provider: Any, routes: Sequence[BaseRoute], callback: str) -> list[Any]:
    """The proxy's routes with the endpoints above in place of the stock ones."""
    out: list[Any] = []
    for route in routes:
        path = route.path if isinstance(route, Route) else None
        if path == "/token":
            out.append(_route("/token", _token_handler(provider).handle, ["POST", "OPTIONS"]))
        elif path == "/revoke":
            out.append(
                _route("/revoke", PublicClientRevocation(provider).handle, ["POST", "OPTIONS"])
            )
        elif path == "/register":
            sdk = RegistrationHandler(
                provider=provider,
                options=provider.client_registration_options or ClientRegistrationOptions(),
            )
            handler = NarrowingRegistration(sdk, list(provider.scopes_supported or []))
            out.append(_route("/register", handler.handle, ["POST", "OPTIONS"]))
        elif path is not None and path.startswith("/.well-known/oauth-authorization-server"):
            metadata = MetadataHandler(_metadata(provider))
            out.append(_route(path, metadata.handle, ["GET", "OPTIONS"]))
        elif path == "/authorize":
            authorize = ExplainingAuthorization(
                cimd=provider._cimd_manager,
                provider=provider,
                base_url=provider.base_url,
                issuer_url=provider.issuer_url,
                server_name=None,
                server_icon_url=LOGO_DATA_URI,
            )
            endpoint = sign_in_page(authorize.handle)
            out.append(Route("/authorize", endpoint=endpoint, methods=["GET", "POST"]))
        elif path is not None and path in ("/consent", callback) and isinstance(route, Route):
            out.append(Route(path, endpoint=sign_in_page(route.endpoint), methods=route.methods))
        else:
            out.append(route)
    return out


def _route(path: str, endpoint: Any, methods: list[str]) -> Route:
    cors_methods = [m for m in methods if m != "OPTIONS"] + ["OPTIONS"]
    return Route(path, endpoint=cors_middleware(endpoint, cors_methods), methods=methods)


def _token_handler(provider: Any) -> RFCTokenHandler:
    authenticator = PrivateKeyJWTClientAuthenticator(
        provider=provider,
        cimd_manager=provider._cimd_manager,
        token_endpoint_url=provider.token_endpoint_url,
    )
    return RFCTokenHandler(provider=provider, client_authenticator=authenticator)


def _metadata(provider: Any) -> Any:
    metadata = build_metadata(
        provider.base_url,
        provider.service_documentation_url,
        provider.client_registration_options or ClientRegistrationOptions(),
        provider.revocation_options or RevocationOptions(enabled=True),
    )
    metadata.issuer = provider.issuer_url
    metadata.scopes_supported = list(provider.scopes_supported or [])
    metadata.authorization_response_iss_parameter_supported = True
    metadata.client_id_metadata_document_supported = True
    metadata.token_endpoint_auth_methods_supported = ["none", *SECRET_METHODS, "private_key_jwt"]
    metadata.revocation_endpoint_auth_methods_supported = ["none", *SECRET_METHODS]
    return metadata
