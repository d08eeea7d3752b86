"""Hosted sign-in: MCP authorization with GitHub as the identity provider.

`build_sign_in` assembles the OAuth provider for `GITHUB_MCP_AUTH=oauth`; `ActAsSignedInUser`
makes each request act with the signed-in user's GitHub token."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.hosted._endpoints import (
        CALLBACK_PATH,
        MCP_PATH,
        GitHubOAuthEndpoints,
        PublicURLError,
    )
    from github_mcp.hosted._endpoints import public_base_url as public_base_url
    from github_mcp.hosted._identity import ActAsSignedInUser, signed_in_user
    from github_mcp.hosted._provider import GitHubSignIn
    from github_mcp.hosted._verifier import GitHubAPI, GitHubUserVerifier, SignInPolicy

# Imported on first use: `hosted.bearer_tokens` (every HTTP start) must not pay for the
# OAuth provider and its cryptography, which only GITHUB_MCP_AUTH=oauth needs.
_LAZY = {
    "CALLBACK_PATH": "_endpoints",
    "MCP_PATH": "_endpoints",
    "GitHubOAuthEndpoints": "_endpoints",
    "PublicURLError": "_endpoints",
    "public_base_url": "_endpoints",
    "ActAsSignedInUser": "_identity",
    "signed_in_user": "_identity",
    "GitHubSignIn": "_provider",
    "GitHubAPI": "_verifier",
    "GitHubUserVerifier": "_verifier",
    "SignInPolicy": "_verifier",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)


class SignInConfigError(ValueError):
    """OAuth mode cannot start with these settings (shown as a start-up error)."""


def build_sign_in(settings: Settings, public_url: str) -> GitHubSignIn:
    from github_mcp.hosted._endpoints import CALLBACK_PATH, GitHubOAuthEndpoints
    from github_mcp.hosted._keys import encrypted_store, signing_key
    from github_mcp.hosted._provider import GitHubSignIn
    from github_mcp.hosted._verifier import GitHubAPI, SignInPolicy

    if not settings.oauth_client_id or settings.oauth_client_secret is None:
        raise SignInConfigError(
            "GITHUB_MCP_AUTH=oauth needs GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET "
            f"of a GitHub OAuth App (or GitHub App) whose callback URL is "
            f"{public_url}{CALLBACK_PATH} (see docs/DEPLOY.md)"
        )
    if settings.state_url is not None and settings.oauth_signing_key is None:
        # each replica would make its own key: tokens one signs, the others would refuse
        raise SignInConfigError(
            "GITHUB_MCP_STATE_URL (replicas) with GITHUB_MCP_AUTH=oauth needs "
            "GITHUB_MCP_OAUTH_SIGNING_KEY, the same on every replica"
        )
    key = signing_key(settings)
    return GitHubSignIn(
        endpoints=GitHubOAuthEndpoints.for_settings(settings),
        client_id=settings.oauth_client_id,
        client_secret=settings.oauth_client_secret.get_secret_value(),
        public_url=public_url,
        scopes=settings.oauth_scopes.split(),
        policy=SignInPolicy.from_settings(settings),
        api=GitHubAPI(settings.github_api_url, settings.github_api_version),
        signing_key=key,
        storage=encrypted_store(settings, key),
        access_token_ttl=settings.oauth_access_token_ttl_seconds,
    )


__all__ = [
    "CALLBACK_PATH",
    "MCP_PATH",
    "ActAsSignedInUser",
    "GitHubAPI",
    "GitHubOAuthEndpoints",
    "GitHubSignIn",
    "GitHubUserVerifier",
    "PublicURLError",
    "SignInConfigError",
    "SignInPolicy",
    "build_sign_in",
    "public_base_url",
    "signed_in_user",
]
