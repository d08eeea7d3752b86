"""GitHub sign-in through fastmcp's OAuth proxy.

To MCP clients this server is an OAuth 2.1 authorization server (metadata, dynamic client
registration, client ID metadata documents, PKCE, consent page with browser binding,
tokens bound to this server's `/mcp` resource, refresh with rotation, revocation). Behind
it, users sign in with GitHub's own web flow; the GitHub token the proxy receives stays
encrypted in its store, and the token a client holds is only a reference to it.

What this subclass adds to the stock proxy: the GitHub host comes from the settings
(github.com, Enterprise Server or the sandbox forge), the allow-list is enforced before
any code reaches the client, revocation really ends the grant, and the endpoints keep to
the RFCs where the stock ones do not (_routes.py, _rotation.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2 as httpx
from fastmcp.server.auth.oauth_proxy.models import HTTP_TIMEOUT_SECONDS, ProxyDCRClient
from fastmcp.server.auth.oauth_proxy.ui import create_error_html
from key_value.aio.protocols import AsyncKeyValue
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.server.auth.settings import RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import SecretStr
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from github_mcp.hosted._endpoints import CALLBACK_PATH, GitHubOAuthEndpoints
from github_mcp.hosted._rotation import (
    LOCAL_REFRESH,
    SPENT_REFRESH_S,
    LocalRefreshClient,
    ReplayLedger,
    StrictJWTIssuer,
    remaining,
    reusable,
    reused_upstream,
)
from github_mcp.hosted._routes import (
    LOGO_DATA_URI,
    SECRET_METHODS,
    ExplainingCIMDManager,
    conforming_routes,
    narrow_scopes,
)
from github_mcp.hosted._verifier import GitHubAPI, GitHubUserVerifier, SignInPolicy
from github_mcp.kernel.framework_internals import OAuthProxyHooks, token_key
from github_mcp.monitoring.observability import log_event, register_secret

PRM_PATH = "/.well-known/oauth-protected-resource"
# GitHub's token endpoint takes the client credentials in the form body
UPSTREAM_AUTH_METHOD = "client_secret_post"


class GitHubSignIn(OAuthProxyHooks):
    def __init__(
        self,
        *,
        endpoints: GitHubOAuthEndpoints,
        client_id: str,
        client_secret: str,
        public_url: str,
        scopes: list[str],
        policy: SignInPolicy,
        api: GitHubAPI,
        signing_key: bytes,
        storage: AsyncKeyValue,
        access_token_ttl: int = 3600,
    ) -> None:
        register_secret(client_secret)
        # the GitHub app's credentials (the proxy keeps its own copy out of reach)
        self.app_client_id = client_id
        self.app_client_secret = SecretStr(client_secret)
        self.signing_key = signing_key
        self.policy = policy
        self.api = api
        self.endpoints = endpoints
        verifier = GitHubUserVerifier(api, policy)
        super().__init__(
            upstream_authorization_endpoint=endpoints.authorize,
            upstream_token_endpoint=endpoints.access_token,
            upstream_client_id=client_id,
            upstream_client_secret=client_secret,
            token_verifier=verifier,
            base_url=public_url,
            redirect_path=CALLBACK_PATH,
            issuer_url=public_url,
            token_endpoint_auth_method=UPSTREAM_AUTH_METHOD,
            # GitHub has no resource indicators; the audience binding is ours (the JWT aud)
            forward_resource=False,
            forward_pkce=True,
            extra_authorize_params={"scope": " ".join(scopes)} if scopes else None,
            # what clients may ask for (and scopes_supported): the GitHub scopes asked of users
            valid_scopes=scopes or None,
            client_storage=storage,
            jwt_signing_key=signing_key,
            require_authorization_consent=True,
            fastmcp_access_token_expiry_seconds=access_token_ttl,
            enable_cimd=True,
        )
        self.verifier = verifier
        self.access_token_ttl = access_token_ttl
        self.ledger = ReplayLedger(storage)
        self.replace_cimd_manager(
            ExplainingCIMDManager(enable_cimd=True, default_scope=self._default_scope())
        )
        # GitHub's revocation is not RFC 7009, so the stock proxy would not offer /revoke;
        # revoke_token below ends the grant here and at GitHub.
        self.revocation_options = RevocationOptions(enabled=True)
        # Called with a GitHub login that signed in or signed out: its write approvals end.
        self.on_identity_change: Callable[[str], object] | None = None

    def _default_scope(self) -> str:
        """What a client registering without a scope gets (as the stock proxy sets it)."""
        options = self.client_registration_options
        return " ".join(options.default_scopes or []) if options is not None else ""

    def get_routes(self, mcp_path: str | None = None) -> list[Route]:
        """The stock routes with the RFC-conforming endpoints of _routes.py, plus the
        protected resource metadata at the root form of the well-known path too (some
        connectors probe it before the `/mcp` form)."""
        routes: list[Any] = conforming_routes(self, super().get_routes(mcp_path), CALLBACK_PATH)
        path_form = PRM_PATH + (mcp_path or "")
        for route in list(routes):
            if isinstance(route, Route) and route.path == path_form and path_form != PRM_PATH:
                routes.append(Route(PRM_PATH, endpoint=route.endpoint, methods=route.methods))
                break
        return routes

    def set_mcp_path(self, mcp_path: str | None) -> None:
        super().set_mcp_path(mcp_path)
        self.replace_jwt_issuer(
            StrictJWTIssuer(
                issuer=str(self.issuer_url),
                audience=self.jwt_issuer.audience,  # the resource URL the stock one names
                signing_key=self.signing_key,
            )
        )

    def upstream_client(self) -> LocalRefreshClient:
        return LocalRefreshClient(
            client_id=self.app_client_id,
            client_secret=self.app_client_secret.get_secret_value(),
            token_endpoint_auth_method=UPSTREAM_AUTH_METHOD,
            timeout=HTTP_TIMEOUT_SECONDS,
        )

    # -- registration: scopes narrowed, secret-based methods honoured ------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        client = await super().get_client(client_id)
        if isinstance(client, ProxyDCRClient) and not isinstance(client, _NarrowingClient):
            narrowed = _NarrowingClient.model_validate(client, from_attributes=True)
            narrowed.allow_unregistered_redirect_uris = client.allow_unregistered_redirect_uris
            return narrowed
        return client

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        # (the SDK's handler has refused methods other than these and private_key_jwt)
        method = client_info.token_endpoint_auth_method
        secret = client_info.client_secret
        await super().register_client(client_info)  # stores a public client
        if method not in SECRET_METHODS or not secret:
            return
        # the client asked for a secret: it gets one, and the token endpoint requires it
        stored = await self.client_store.get(key=str(client_info.client_id))
        if stored is None:
            raise RegistrationError("invalid_client_metadata", "registration was not stored")
        stored.token_endpoint_auth_method = method
        stored.client_secret = secret
        await self.client_store.put(key=str(client_info.client_id), value=stored)
        client_info.token_endpoint_auth_method = method
        client_info.client_secret = secret
        client_info.client_secret_expires_at = 0

    # -- sign-in: the allow-list, before a code reaches the client ------------------

    async def idp_callback(self, request: Request) -> Response:
        response = await super().idp_callback(request)
        if not isinstance(response, RedirectResponse):
            return response
        query = parse_qs(urlsplit(response.headers.get("location", "")).query)
        codes = query.get("code")
        if not codes:
            return response  # an error forwarded to the client (e.g. access_denied)
        code = codes[0]
        stored = await self.code_store.get(key=code)
        token = (stored.idp_tokens.get("access_token") if stored else None) or ""
        user, _ = await self.api.user(token) if token else (None, [])
        # (no stored code means no token, so no user: the refusal path below)
        if (
            stored is not None
            and user is not None
            and await self.api.admits(self.policy, user, token)
        ):
            log_event("oauth_sign_in", login=user.login, client_id=stored.client_id)
            if not stored.idp_tokens.get("refresh_token"):
                # an OAuth App's token: the grant refreshes locally (_rotation.py)
                stored.idp_tokens["refresh_token"] = LOCAL_REFRESH
                ttl = max(int(stored.expires_at - time.time()), 1)
                await self.code_store.put(key=code, value=stored, ttl=ttl)
            self._identity_changed(user.login)
            return response
        # refused: the code is destroyed before anyone sees it, and the GitHub grant ends
        await self.code_store.delete(key=code)
        if token:
            await self._revoke_upstream(token)
        who = user.login if user is not None else "this GitHub account"
        log_event("oauth_sign_in_refused", login=user.login if user else None)
        page = create_error_html(
            error_title="Sign-in refused",
            error_message=(
                f"{who} is not allowed to use this server. It admits "
                f"{self.policy.describe()}. Ask its operator to add you, or sign in to "
                "GitHub as another user and try again."
            ),
            server_icon_url=LOGO_DATA_URI,
        )
        return HTMLResponse(content=page, status_code=403)

    # -- requests: the client's own id on the token, for revocation -------------------

    # The stock proxy declares the SDK token type here, against its base's fastmcp subtype
    # (with its own ignore); this override keeps the proxy's signature.
    async def load_access_token(self, token: str) -> AccessToken | None:  # type: ignore[override]
        validated = await super().load_access_token(token)
        if validated is None:
            return None
        try:
            payload = self.jwt_issuer.verify_token(token)
        except Exception:
            return None
        # The verifier names the GitHub user; the MCP client the token was issued to is in
        # the JWT, and revocation checks it against the client asking.
        claims = dict(validated.claims or {})
        claims["jti"] = payload.get("jti")
        return validated.model_copy(
            update={
                "client_id": str(payload.get("client_id", "")),
                "expires_at": int(payload["exp"]),
                "claims": claims,
            }
        )

    # -- rotation and replay (RFC 6749 §4.1.2, §10.4; RFC 9700 §4.14.2) -----------------

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        code = await super().load_authorization_code(client, authorization_code)
        if code is None:
            await self._replayed(authorization_code)
        return code

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        tokens = await super().exchange_authorization_code(client, authorization_code)
        grant = await self._grant_of(tokens.access_token, "access")
        if grant is not None:
            # the legitimate client redeems its code within seconds of the attacker
            await self.ledger.spend(authorization_code.code, grant, "authorization_code", 86400)
        return tokens

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        try:
            self.jwt_issuer.verify_token(
                refresh_token,
                expected_token_use="refresh",  # noqa: S106 - a token type, not a secret
            )
        except Exception:
            return None
        token = await super().load_refresh_token(client, refresh_token)
        if token is None:
            await self._replayed(refresh_token)
        return token

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        grant = await self._grant_of(refresh_token.token, "refresh")
        upstream = await self.upstream_token_store.get(key=grant) if grant else None
        reused = None
        if upstream is not None:
            valid = await self.verifier.verify_token(upstream.access_token) is not None
            if not valid and upstream.refresh_token == LOCAL_REFRESH:
                # no upstream refresh: the GitHub token itself must still work
                await self._end_grant(upstream.upstream_token_id)
                raise TokenError("invalid_grant", "GitHub no longer accepts this sign-in")
            reused = reusable(upstream, valid)
        reset = reused_upstream.set(reused)
        try:
            tokens = await super().exchange_refresh_token(client, refresh_token, scopes)
        finally:
            reused_upstream.reset(reset)
        if grant is not None:
            # remembered while an idle client may still come back with the one it holds
            life = remaining(self.jwt_issuer, tokens.refresh_token, "refresh", SPENT_REFRESH_S)
            await self.ledger.spend(
                refresh_token.token, grant, "refresh_token", min(life, SPENT_REFRESH_S)
            )
        return tokens

    async def transparent_refresh(self, upstream_token_set: Any) -> Any:
        if upstream_token_set.refresh_token == LOCAL_REFRESH:
            # GitHub refused the token and there is nothing to refresh it with
            raise TokenError("invalid_grant", "GitHub no longer accepts this sign-in")
        return await super().transparent_refresh(upstream_token_set)

    async def _grant_of(self, token: str | None, use: str) -> str | None:
        """The upstream token set (the grant) a token of ours refers to."""
        if not token:
            return None
        try:
            jti = self.jwt_issuer.verify_token(token, expected_token_use=use)["jti"]
        except Exception:
            return None
        mapping = await self.jti_mapping_store.get(key=jti)
        return mapping.upstream_token_id if mapping is not None else None

    async def _replayed(self, secret: str) -> None:
        spent = await self.ledger.grant_of(secret)
        if spent is None:
            return
        log_event("oauth_replay_detected", kind=spent.kind)
        await self._end_grant(spent.upstream_token_id)

    # -- revocation: the grant ends here and at GitHub --------------------------------

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        if isinstance(token, RefreshToken):
            await self.refresh_token_store.delete(key=token_key(token.token))
            grant = await self._grant_of(token.token, "refresh")
        else:
            jti = (token.claims or {}).get("jti")
            mapping = await self.jti_mapping_store.get(key=jti) if jti else None
            grant = mapping.upstream_token_id if mapping is not None else None
            if jti:
                await self.jti_mapping_store.delete(key=jti)
        if grant is not None:
            await self._end_grant(grant)
        log_event("oauth_token_revoked", kind=type(token).__name__)

    async def _end_grant(self, upstream_token_id: str) -> None:
        """Without its upstream token set, every access and refresh token of the grant
        fails to load (RFC 7009 §2.1: revoking one may revoke the grant); the GitHub
        token is revoked at GitHub too."""
        upstream = await self.upstream_token_store.get(key=upstream_token_id)
        await self.upstream_token_store.delete(key=upstream_token_id)
        if upstream is not None:
            signed_in = await self.verifier.verify_token(upstream.access_token)
            self._identity_changed(signed_in.subject if signed_in else None)
            self.verifier.forget(upstream.access_token)
            await self._revoke_upstream(upstream.access_token)

    def _identity_changed(self, login: str | None) -> None:
        if login and self.on_identity_change is not None:
            self.on_identity_change(login)

    async def _revoke_upstream(self, access_token: str) -> None:
        """GitHub's `DELETE /applications/{client_id}/token`, Basic-authenticated with the
        app's credentials. Best effort: local revocation already took effect."""
        secret = self.app_client_secret
        url = f"{self.endpoints.api}/applications/{self.app_client_id}/token"
        try:
            async with httpx.AsyncClient(timeout=10.0) as client:
                response = await client.request(
                    "DELETE",
                    url,
                    json={"access_token": access_token},
                    auth=(self.app_client_id, secret.get_secret_value()),
                    headers={"Accept": "application/vnd.github+json"},
                )
            log_event("oauth_upstream_revoke", status=response.status_code)
        except httpx.HTTPError as exc:
            log_event("oauth_upstream_revoke", status=None, error=type(exc).__name__)


class _NarrowingClient(ProxyDCRClient):
    """A registered client whose requested scopes outside its registration are narrowed
    away instead of refused (claude.ai asks for `claudeai` at /authorize too)."""

    def validate_scope(self, requested_scope: str | None) -> list[str] | None:
        return narrow_scopes(requested_scope.split() if requested_scope else None, self.scope)
