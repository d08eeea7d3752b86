"""Who may reach an HTTP server: loopback addresses, and the rule that refuses to serve
off loopback without authentication. Stdlib only, so an HTTP start checks it before it
imports the MCP stack or opens its port."""

from __future__ import annotations

import ipaddress

from github_mcp.config import Settings

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_http_exposure(settings: Settings, host: str) -> None:
    """Refuse to serve off loopback without authentication unless explicitly allowed."""
    if settings.auth_mode == "none":
        if is_loopback(host):
            return
        raise SystemExit(
            f"GITHUB_MCP_AUTH=none serves only on loopback, not on {host}: use "
            "GITHUB_MCP_AUTH=oauth (each user signs in with GitHub) or bearer tokens."
        )
    if settings.auth_mode == "oauth":
        return  # every MCP request needs a signed-in user (the public URL is checked later)
    if is_loopback(host) or settings.bearer_tokens or settings.allow_unauthenticated:
        return
    raise SystemExit(
        "Refusing to serve HTTP on a non-loopback address without GITHUB_MCP_AUTH_TOKENS. "
        "Set GITHUB_MCP_ALLOW_UNAUTHENTICATED=true to override (not recommended)."
    )
