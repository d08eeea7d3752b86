"""The browser's sign-in to this server's own pages: /status, the approval pages and
/approvals/grants share one session cookie, so a human signs in once (with a bearer token in
/status's form, or with GitHub) and is never shown a browser's HTTP Basic prompt.

The cookie is HttpOnly, SameSite=Strict, Path=/, Secure when the pages are served over
HTTPS. Its value is the principal ("github:<login>" for a GitHub user, else the bearer
token's principal), an expiry and an HMAC under a key derived from secrets every replica
shares (the configured tokens and, under OAuth, the app's client secret): any replica
accepts it, and changing those secrets ends every session. With none of them there is no
key, and no session is issued or accepted.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import TYPE_CHECKING

from starlette.responses import Response

if TYPE_CHECKING:
    from github_mcp.config import Settings

COOKIE = "github_mcp_status"
SESSION_S = 8 * 3600
GITHUB_PREFIX = "github:"


class BrowserSession:
    def __init__(self, settings: Settings) -> None:
        seed = sorted(hashlib.sha256(t.encode()).digest() for t in settings.bearer_tokens)
        secret = settings.oauth_client_secret
        if settings.auth_mode == "oauth" and secret is not None:
            seed.append(hashlib.sha256(b"oauth\0" + secret.get_secret_value().encode()).digest())
        self.keyed = bool(seed)
        self.key = hashlib.sha256(b"github-mcp status session\0" + b"\0".join(seed)).digest()
        self.secure_default = (settings.public_url or "").startswith("https://")

    def mac(self, text: str) -> str:
        return hmac.new(self.key, text.encode(), hashlib.sha256).hexdigest()

    def value_for(self, principal: str) -> str:
        expires = str(int(time.time()) + SESSION_S)
        return f"{principal}|{expires}|{self.mac(f'{principal}|{expires}')}"

    def principal(self, value: str) -> str | None:
        """The principal a cookie value names, if this server signed it and it is current."""
        if not self.keyed:
            return None
        principal, _, rest = value.partition("|")
        expires, _, mac = rest.partition("|")
        if not (principal and expires.isdigit() and mac):
            return None
        if not same(mac, self.mac(f"{principal}|{expires}")) or int(expires) < time.time():
            return None
        return principal

    def github_login(self, value: str) -> str | None:
        principal = self.principal(value) or ""
        return (
            principal.removeprefix(GITHUB_PREFIX) if principal.startswith(GITHUB_PREFIX) else None
        )

    def start(self, response: Response, principal: str, *, secure: bool) -> None:
        response.set_cookie(
            COOKIE, self.value_for(principal), path="/", httponly=True, samesite="strict",
            secure=secure or self.secure_default, max_age=SESSION_S,
        )  # fmt: skip

    @staticmethod
    def end(response: Response) -> None:
        response.delete_cookie(COOKIE, path="/")
        response.delete_cookie(COOKIE, path="/status")  # a session from before Path=/


def same(a: str, b: str) -> bool:
    """Both given and equal, compared in constant time."""
    return bool(a) and bool(b) and hmac.compare_digest(a.encode(), b.encode())
