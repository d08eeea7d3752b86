"""Where things are: GitHub's OAuth endpoints for the configured host, and this server's
public URL."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from github_mcp.config import Settings

CALLBACK_PATH = "/auth/callback"
MCP_PATH = "/mcp"


@dataclass(frozen=True)
class GitHubOAuthEndpoints:
    authorize: str
    access_token: str
    api: str

    @classmethod
    def for_settings(cls, settings: Settings) -> GitHubOAuthEndpoints:
        """github.com signs in at https://github.com/login/oauth/…, an Enterprise Server
        (https://HOST/api/v3) at https://HOST/login/oauth/…, and the sandbox forge at its
        own base URL: the web host the API URL belongs to, in every case."""
        web = settings.web_base_url.rstrip("/")
        return cls(
            authorize=f"{web}/login/oauth/authorize",
            access_token=f"{web}/login/oauth/access_token",
            api=settings.github_api_url.rstrip("/"),
        )


class PublicURLError(ValueError):
    """The public URL is missing or unusable (a start-up error)."""


def public_base_url(settings: Settings, host: str, port: int | None, *, loopback: bool) -> str:
    """GITHUB_MCP_PUBLIC_URL, or the bound address when serving on loopback."""
    if settings.public_url:
        url = settings.public_url.strip().rstrip("/")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise PublicURLError(
                f"GITHUB_MCP_PUBLIC_URL must be an http(s) URL like https://mcp.example.com, "
                f"not {settings.public_url!r}"
            )
        if parts.query or parts.fragment:
            raise PublicURLError("GITHUB_MCP_PUBLIC_URL must not carry a query or fragment")
        if parts.scheme == "http" and not loopback and not _is_loopback_name(parts.hostname):
            raise PublicURLError(
                "GITHUB_MCP_PUBLIC_URL must be https off loopback: OAuth clients "
                "(ChatGPT, Claude) refuse plain http, and tokens would travel in clear"
            )
        return url
    if not loopback:
        raise PublicURLError(
            "GITHUB_MCP_AUTH=oauth off loopback needs GITHUB_MCP_PUBLIC_URL, the https URL "
            "clients reach this server at (it names the OAuth resource and GitHub's callback)"
        )
    shown = host or "127.0.0.1"
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}" if port else f"http://{shown}"


def _is_loopback_name(hostname: str) -> bool:
    import ipaddress

    if hostname in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(hostname.strip("[]")).is_loopback
    except ValueError:
        return False
