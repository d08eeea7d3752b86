"""A real OAuth client (the MCP SDK's provider: discovery, registration, PKCE, token,
refresh) whose browser step is headless Chromium driven through the consent page and
the forge's GitHub-style login and authorize pages."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from tests.shared_browser import fresh_context


class _CallbackHandler(BaseHTTPRequestHandler):
    """The client's own loopback redirect endpoint, as a native MCP client runs one."""

    def do_GET(self) -> None:
        body = b"signed in; you may close this window"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        return


_callback_server = ThreadingHTTPServer(("127.0.0.1", 0), _CallbackHandler)
threading.Thread(target=_callback_server.serve_forever, daemon=True).start()
CLIENT_REDIRECT = f"http://127.0.0.1:{_callback_server.server_address[1]}/oauth/callback"


class MemoryTokens(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@dataclass
class BrowserResult:
    redirect: str | None = None  # the final redirect to the client, with code and state
    pages: list[str] = field(default_factory=list)  # what the browser visited, in order
    refused_text: str | None = None  # the text of an error page that stopped the flow


async def sign_in_in_browser(
    authorization_url: str,
    login: str,
    password: str,
    *,
    approve: bool = True,
    redirect_prefix: str = CLIENT_REDIRECT,
) -> BrowserResult:
    """Open the authorization URL; approve the consent page; sign in on the forge;
    authorize the app. Stops at the redirect to the client (`redirect_prefix`: this
    module's callback server, or another client's own) or at an error page."""
    result = BrowserResult()
    # the worker's Chromium; this sign-in in a context of its own
    async with fresh_context() as context:
        page = await context.new_page()
        page.on(
            "request",
            lambda request: (
                result.pages.append(f"{request.method} {_elided(request.url)}")
                if request.is_navigation_request()
                else None
            ),
        )
        await page.goto(authorization_url)
        await page.click("button[value=approve]" if approve else "button[value=deny]")
        await page.wait_for_load_state()
        if await page.locator("#login_field").count():
            await page.fill("#login_field", login)
            await page.fill("#password", password)
            await page.click("button[name=commit]")
            await page.wait_for_load_state()
        if await page.locator("#js-oauth-authorize-btn").count():
            await page.click("#js-oauth-authorize-btn")
        # the flow ends at the client's redirect URI, or on a page that stopped it
        await page.wait_for_url(
            lambda url: url.startswith(redirect_prefix) or "/auth/callback" in url,
            timeout=30_000,
        )
        if page.url.startswith(redirect_prefix):
            result.redirect = page.url
        else:
            await page.wait_for_load_state()
            result.refused_text = await page.inner_text("body")
    return result


def _elided(url: str) -> str:
    """A URL with its query values elided (codes, states, challenges are secrets here)."""
    parts = urlsplit(url)
    keys = sorted(parse_qs(parts.query, keep_blank_values=True))
    query = "&".join(f"{k}=…" for k in keys)
    return f"{parts.scheme}://{parts.netloc}{parts.path}" + (f"?{query}" if query else "")


class BrowserSignIn:
    """redirect_handler/callback_handler pair for OAuthClientProvider."""

    def __init__(self, login: str, password: str) -> None:
        self.login = login
        self.password = password
        self.result: BrowserResult | None = None

    async def redirect(self, authorization_url: str) -> None:
        self.result = await sign_in_in_browser(authorization_url, self.login, self.password)

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None
        if self.result.redirect is None:
            raise RuntimeError(f"sign-in stopped: {self.result.refused_text!r}")
        query = parse_qs(urlsplit(self.result.redirect).query)
        if "error" in query:
            raise RuntimeError(f"sign-in refused: {query['error'][0]}")
        return AuthorizationCodeResult(
            code=query["code"][0],
            state=(query.get("state") or [None])[0],
            iss=(query.get("iss") or [None])[0],
        )


def oauth_provider(
    mcp_url: str, login: str, password: str
) -> tuple[OAuthClientProvider, MemoryTokens, BrowserSignIn]:
    storage = MemoryTokens()
    browser = BrowserSignIn(login, password)
    provider = OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(
            client_name="oauth test client",
            redirect_uris=[AnyUrl(CLIENT_REDIRECT)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
    )
    return provider, storage, browser


@asynccontextmanager
async def signed_in_client(
    mcp_url: str, login: str, password: str, **client_options: Any
) -> AsyncIterator[Any]:
    """A fastmcp Client over streamable HTTP that signs `login` in on first use
    (`mode="legacy"`: the handshake-era protocol, whose connections are sessions)."""
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    provider, storage, browser = oauth_provider(mcp_url, login, password)
    async with Client(StreamableHttpTransport(mcp_url, auth=provider), **client_options) as client:
        client.oauth_storage = storage  # type: ignore[attr-defined]
        client.oauth_browser = browser  # type: ignore[attr-defined]
        yield client
