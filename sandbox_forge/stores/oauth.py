"""OAuth apps and the web application flow's records: apps, codes, refresh tokens, sessions.

Two kinds of app, as on GitHub: an OAuth app issues `gho_` tokens that never expire and
carry the scopes the user granted; an app with `expiring=True` behaves like a GitHub App
with expiring user tokens (`ghu_` access tokens for 8 hours, `ghr_` refresh tokens for
about six months, no scopes). Secrets are kept only as SHA-256 digests.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

CODE_TTL_SECONDS = 600  # GitHub: codes expire after 10 minutes
USER_TOKEN_TTL_SECONDS = 28800  # ghu_ tokens: 8 hours
REFRESH_TOKEN_TTL_SECONDS = 15897600  # ghr_ tokens: about six months
SESSION_TTL_SECONDS = 8 * 3600
# Scopes GitHub knows; others are dropped from a request, as GitHub ignores them.
KNOWN_SCOPES = frozenset(
    """repo repo:status repo_deployment public_repo repo:invite security_events
    admin:repo_hook write:repo_hook read:repo_hook admin:org write:org read:org
    admin:public_key write:public_key read:public_key admin:org_hook gist notifications
    user read:user user:email user:follow project read:project delete_repo write:packages
    read:packages delete:packages admin:gpg_key write:gpg_key read:gpg_key codespace
    workflow""".split()
)
_ALNUM = string.ascii_letters + string.digits
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")


def _random(n: int) -> str:
    return "".join(secrets.choice(_ALNUM) for _ in range(n))


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def parse_scopes(raw: str | None) -> tuple[str, ...]:
    """GitHub takes scopes separated by spaces (commas work too); unknown ones drop out."""
    seen: list[str] = []
    for part in (raw or "").replace(",", " ").split():
        if part in KNOWN_SCOPES and part not in seen:
            seen.append(part)
    return tuple(seen)


@dataclass
class OAuthApp:
    client_id: str
    secret_digest: str
    name: str
    callback_urls: tuple[str, ...]
    expiring: bool = False  # GitHub App style: ghu_/ghr_ tokens that expire
    access_token_ttl: int = USER_TOKEN_TTL_SECONDS
    refresh_token_ttl: int = REFRESH_TOKEN_TTL_SECONDS
    created_at: float = field(default_factory=time.time)

    def secret_matches(self, secret: str | None) -> bool:
        return bool(secret) and hmac.compare_digest(_digest(secret or ""), self.secret_digest)

    def resolve_redirect(self, wanted: str | None) -> str | None:
        """The redirect URI to use, or None when it is not registered. GitHub's rule: the
        scheme, host and port match a callback URL and the path is that URL's path or
        below it; a loopback callback accepts any port."""
        if not wanted:
            return self.callback_urls[0] if self.callback_urls else None
        return wanted if any(_redirect_matches(c, wanted) for c in self.callback_urls) else None


def _redirect_matches(callback: str, wanted: str) -> bool:
    try:
        registered, asked = urlsplit(callback), urlsplit(wanted)
        asked_port, registered_port = asked.port, registered.port
    except ValueError:
        return False
    if asked.scheme != registered.scheme or asked.fragment or "\\" in wanted:
        return False
    if asked.username or asked.password or asked.hostname != registered.hostname:
        return False
    loopback = registered.hostname in LOOPBACK_HOSTS
    if asked_port != registered_port and not (loopback and registered_port is None):
        return False
    segments = asked.path.split("/")
    if ".." in segments or "." in segments:
        return False
    base = registered.path.rstrip("/")
    return asked.path == registered.path or asked.path.startswith(base + "/")


@dataclass
class AuthCode:
    code: str
    client_id: str
    login: str
    redirect_uri: str
    scopes: tuple[str, ...]
    code_challenge: str | None
    expires_at: float
    redeemed: bool = False
    issued_tokens: list[str] = field(default_factory=list)


@dataclass
class RefreshGrant:
    token_digest: str
    client_id: str
    login: str
    family: str  # every refresh token descended from one authorization
    access_token: str
    expires_at: float
    used: bool = False


@dataclass
class WebSession:
    id: str
    csrf: str
    login: str | None = None
    created_at: float = field(default_factory=time.time)

    def expired(self) -> bool:
        return time.time() >= self.created_at + SESSION_TTL_SECONDS


class OAuthStore:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.apps: dict[str, OAuthApp] = {}
        self.codes: dict[str, AuthCode] = {}  # keyed by the code's digest
        self.refresh: dict[str, RefreshGrant] = {}  # keyed by the refresh token's digest
        self.sessions: dict[str, WebSession] = {}
        self.grants: dict[tuple[str, str], tuple[str, ...]] = {}  # (login, client) -> scopes

    # --- apps -------------------------------------------------------------------------------

    def register_app(
        self,
        name: str,
        callback_urls: list[str] | tuple[str, ...] | str,
        *,
        expiring: bool = False,
        access_token_ttl: int = USER_TOKEN_TTL_SECONDS,
        refresh_token_ttl: int = REFRESH_TOKEN_TTL_SECONDS,
    ) -> tuple[OAuthApp, str]:
        """A new app and its client secret (shown once, as GitHub does)."""
        urls = (callback_urls,) if isinstance(callback_urls, str) else tuple(callback_urls)
        if not isinstance(name, str) or not name.strip():
            raise ValueError("name is required")
        if not urls or len(urls) > 10:
            raise ValueError("between 1 and 10 callback URLs are required")
        for url in urls:
            parts = urlsplit(url) if isinstance(url, str) else None
            if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"callback URL {url!r} must be an absolute http(s) URL")
            if parts.fragment:
                raise ValueError(f"callback URL {url!r} must not have a fragment")
        if access_token_ttl < 1 or refresh_token_ttl < 1:
            raise ValueError("token lifetimes must be positive")
        # GitHub's client ids: Ov23li… for OAuth apps, Iv23li… for GitHub Apps.
        client_id = ("Iv23li" if expiring else "Ov23li") + _random(14)
        secret = secrets.token_hex(20)
        app = OAuthApp(
            client_id=client_id,
            secret_digest=_digest(secret),
            name=name.strip(),
            callback_urls=urls,
            expiring=expiring,
            access_token_ttl=int(access_token_ttl),
            refresh_token_ttl=int(refresh_token_ttl),
        )
        with self.lock:
            self.apps[client_id] = app
        return app, secret

    def app(self, client_id: str | None) -> OAuthApp | None:
        return self.apps.get(client_id or "")

    def apps_json(self) -> list[dict[str, object]]:
        return [
            {"client_id": a.client_id, "name": a.name, "callback_urls": list(a.callback_urls)}
            for a in self.apps.values()
        ]

    # --- codes ------------------------------------------------------------------------------

    def issue_code(
        self,
        app: OAuthApp,
        login: str,
        redirect_uri: str,
        scopes: tuple[str, ...],
        code_challenge: str | None,
    ) -> str:
        code = secrets.token_hex(10)  # GitHub's codes are 20 hex characters
        record = AuthCode(
            code="",  # only the digest is kept
            client_id=app.client_id,
            login=login,
            redirect_uri=redirect_uri,
            scopes=scopes,
            code_challenge=code_challenge,
            expires_at=time.time() + CODE_TTL_SECONDS,
        )
        with self.lock:
            self.codes[_digest(code)] = record
            self.grants[(login.lower(), app.client_id)] = scopes
        return code

    def take_code(self, code: str) -> tuple[AuthCode | None, bool]:
        """The code's record and whether this is its first use; a code is spent by the
        first attempt to redeem it, whatever the outcome."""
        with self.lock:
            record = self.codes.get(_digest(code))
            if record is None:
                return None, False
            first = not record.redeemed
            record.redeemed = True
            return record, first

    def granted_scopes(self, login: str, client_id: str) -> tuple[str, ...] | None:
        return self.grants.get((login.lower(), client_id))

    # --- refresh tokens ---------------------------------------------------------------------

    def add_refresh(
        self, app: OAuthApp, login: str, family: str, access_token: str
    ) -> tuple[str, RefreshGrant]:
        token = "ghr_" + _random(76)
        grant = RefreshGrant(
            token_digest=_digest(token),
            client_id=app.client_id,
            login=login,
            family=family,
            access_token=access_token,
            expires_at=time.time() + app.refresh_token_ttl,
        )
        with self.lock:
            self.refresh[grant.token_digest] = grant
        return token, grant

    def take_refresh(self, token: str) -> tuple[RefreshGrant | None, bool]:
        """The grant and whether it was still unused; using it spends it."""
        with self.lock:
            grant = self.refresh.get(_digest(token))
            if grant is None:
                return None, False
            fresh = not grant.used
            grant.used = True
            return grant, fresh

    def family(self, family: str) -> list[RefreshGrant]:
        with self.lock:
            return [g for g in self.refresh.values() if g.family == family]

    # --- browser sessions -------------------------------------------------------------------

    def session(self, session_id: str | None) -> WebSession | None:
        with self.lock:
            found = self.sessions.get(session_id or "")
            if found is not None and found.expired():
                del self.sessions[found.id]
                return None
            return found

    def new_session(self, login: str | None = None) -> WebSession:
        # A sign-in always gets a new session id and CSRF token (no session fixation).
        created = WebSession(id=secrets.token_urlsafe(32), csrf=secrets.token_urlsafe(32))
        created.login = login
        with self.lock:
            self.sessions[created.id] = created
        return created

    def end_session(self, session_id: str) -> None:
        with self.lock:
            self.sessions.pop(session_id, None)
