"""GitHub sign-in through fastmcp's OAuth proxy.

To MCP clients this server is an OAuth 2.1 authorization server (metadata, dynamic client
registration, client ID metadata documents, PKCE, consent page with browser binding,
tokens bound to this server's `/mcp` resource, refresh with rotation, revocation). Behind
it, users sign in with GitHub's own web flow; the GitHub token the proxy receives stays
encrypted in its store, and the token a client holds is only a reference to it.

What this subclass adds to the stock proxy: the GitHub host comes from the settings
(github.com, Enterprise Server or the sandbox forge), the allow-list is enforced before
any code reaches the client, and revocation really ends the grant."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx2 as httpx
from fastmcp.server.auth.oauth_proxy import OAuthProxy
from fastmcp.server.auth.oauth_proxy.ui import create_error_html
from key_value.aio.protocols import AsyncKeyValue
from mcp.server.auth.provider import AccessToken, RefreshToken
from mcp.server.auth.settings import RevocationOptions
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse
from starlette.routing import Route

from ..observability import log_event, register_secret
from ._endpoints import CALLBACK_PATH, GitHubOAuthEndpoints
from ._verifier import GitHubAPI, GitHubUserVerifier, SignInPolicy

PRM_PATH = "/.well-known/oauth-protected-resource"


class GitHubSignIn(OAuthProxy):
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
    ) -> None:
        register_secret(client_secret)
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
            # GitHub's token endpoint takes the client credentials in the form body
            token_endpoint_auth_method="client_secret_post",  # noqa: S106 - a method name
            # GitHub has no resource indicators; the audience binding is ours (the JWT aud)
            forward_resource=False,
            forward_pkce=True,
            extra_authorize_params={"scope": " ".join(scopes)} if scopes else None,
            client_storage=storage,
            jwt_signing_key=signing_key,
            require_authorization_consent=True,
            enable_cimd=True,
        )
        self.verifier = verifier
        # GitHub's revocation is not RFC 7009, so the stock proxy would not offer /revoke;
        # revoke_token below ends the grant here and at GitHub.
        self.revocation_options = RevocationOptions(enabled=True)

    def get_routes(self, mcp_path: str | None = None) -> list[Route]:
        """The stock routes, plus the protected resource metadata at the root form of
        the well-known path too (some connectors probe it before the `/mcp` form)."""
        routes = super().get_routes(mcp_path)
        path_form = PRM_PATH + (mcp_path or "")
        for route in list(routes):
            if isinstance(route, Route) and route.path == path_form and path_form != PRM_PATH:
                routes.append(Route(PRM_PATH, endpoint=route.endpoint, methods=route.methods))
                break
        return routes

    # -- sign-in: the allow-list, before a code reaches the client ------------------

    async def _handle_idp_callback(self, request: Request) -> HTMLResponse | RedirectResponse:
        response = await super()._handle_idp_callback(request)
        if not isinstance(response, RedirectResponse):
            return response
        query = parse_qs(urlsplit(response.headers.get("location", "")).query)
        codes = query.get("code")
        if not codes:
            return response  # an error forwarded to the client (e.g. access_denied)
        code = codes[0]
        stored = await self._code_store.get(key=code)
        token = (stored.idp_tokens.get("access_token") if stored else None) or ""
        user, _ = await self.api.user(token) if token else (None, [])
        # (no stored code means no token, so no user: the refusal path below)
        if (
            stored is not None
            and user is not None
            and await self.api.admits(self.policy, user, token)
        ):
            log_event("oauth_sign_in", login=user.login, client_id=stored.client_id)
            return response
        # refused: the code is destroyed before anyone sees it, and the GitHub grant ends
        await self._code_store.delete(key=code)
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
                "expires_at": int(payload["exp"]) if payload.get("exp") else None,
                "claims": claims,
            }
        )

    # -- revocation: the grant ends here and at GitHub --------------------------------

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        if isinstance(token, RefreshToken):
            await self._refresh_token_store.delete(key=_hash(token.token))
            try:
                payload = self.jwt_issuer.verify_token(
                    token.token,
                    expected_token_use="refresh",  # noqa: S106 - a token type, not a secret
                )
                jti = payload["jti"]
            except Exception:
                return
        else:
            jti = (token.claims or {}).get("jti")
        if not jti:
            return
        mapping = await self._jti_mapping_store.get(key=jti)
        await self._jti_mapping_store.delete(key=jti)
        if mapping is None:
            return
        upstream = await self._upstream_token_store.get(key=mapping.upstream_token_id)
        # without its upstream token set, every access and refresh token of this grant
        # fails to load (RFC 7009 §2.1: revoking one may revoke the grant)
        await self._upstream_token_store.delete(key=mapping.upstream_token_id)
        if upstream is not None:
            self.verifier.forget(upstream.access_token)
            await self._revoke_upstream(upstream.access_token)
        log_event("oauth_token_revoked", kind=type(token).__name__)

    async def _revoke_upstream(self, access_token: str) -> None:
        """GitHub's `DELETE /applications/{client_id}/token`, Basic-authenticated with the
        app's credentials. Best effort: local revocation already took effect."""
        secret = self._upstream_client_secret
        if secret is None:
            return
        url = f"{self.endpoints.api}/applications/{self._upstream_client_id}/token"
        try:
            async with httpx.AsyncClient(timeout=10.0) as client:
                response = await client.request(
                    "DELETE",
                    url,
                    json={"access_token": access_token},
                    auth=(self._upstream_client_id, secret.get_secret_value()),
                    headers={"Accept": "application/vnd.github+json"},
                )
            log_event("oauth_upstream_revoke", status=response.status_code)
        except httpx.HTTPError as exc:
            log_event("oauth_upstream_revoke", status=None, error=type(exc).__name__)


def _hash(token: str) -> str:
    from fastmcp.server.auth.oauth_proxy.proxy import _hash_token

    return _hash_token(token)
