"""Who is calling, and what they may touch: tokens, App JWTs, and repository access."""

from __future__ import annotations

import base64
import binascii
import time
from dataclasses import dataclass

import jwt

from sandbox_forge.rest.errors import ApiError
from sandbox_forge.stores.state import AppRecord, ForgeState, RepoRecord, TokenRecord

BAD_CREDENTIALS = "Bad credentials"
JWT_UNDECODABLE = "A JSON web token could not be decoded"
JWT_EXP_TOO_FAR = "'Expiration time' claim ('exp') is too far in the future"
JWT_EXPIRED = (
    "'Expiration time' claim ('exp') must be a numeric value representing the future time "
    "at which the assertion expires"
)
JWT_IAT_INVALID = (
    "'Issued at' claim ('iat') must be an Integer representing the time that the assertion "
    "was issued"
)
JWT_MAX_LIFETIME = 600  # GitHub: exp at most 10 minutes ahead
JWT_CLOCK_DRIFT = 60  # GitHub recommends iat 60 s in the past; accept that much ahead too


@dataclass(frozen=True)
class Principal:
    kind: str  # "anonymous", "token" or "app"
    rate_key: str
    token: TokenRecord | None = None
    app: AppRecord | None = None
    client_ip: str = "127.0.0.1"

    @property
    def anonymous(self) -> bool:
        return self.kind == "anonymous"

    @property
    def login(self) -> str | None:
        return self.token.login if self.token else None

    @property
    def is_installation(self) -> bool:
        return bool(self.token and self.token.kind == "installation")

    @property
    def forbidden_message(self) -> str:
        """GitHub names the kind of credential that lacked the permission."""
        if self.is_installation or self.kind == "app":
            return "Resource not accessible by integration"
        return "Resource not accessible by personal access token"


def credential_from_header(value: str | None) -> str | None:
    """The secret in an Authorization header: token X, Bearer X, or Basic user:X."""
    if not value:
        return None
    scheme, _, rest = value.strip().partition(" ")
    scheme = scheme.lower()
    rest = rest.strip()
    if scheme in ("token", "bearer"):
        return rest or ""
    if scheme == "basic":
        try:
            decoded = base64.b64decode(rest, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return ""
        _user, _, password = decoded.partition(":")
        return password
    return ""


def looks_like_jwt(credential: str) -> bool:
    return credential.count(".") == 2 and credential.startswith("eyJ")


def authenticate(state: ForgeState, authorization: str | None, client_ip: str) -> Principal:
    credential = credential_from_header(authorization)
    if credential is None:
        return Principal("anonymous", f"ip:{client_ip}", client_ip=client_ip)
    if looks_like_jwt(credential):
        app = verify_app_jwt(state, credential)
        return Principal("app", f"app:{app.app_id}", app=app, client_ip=client_ip)
    record = state.tokens.get(credential)
    if record is None or record.expired():
        raise ApiError(401, BAD_CREDENTIALS)
    key = (
        f"installation:{record.installation_id}"
        if record.installation_id is not None
        else f"user:{record.login.lower()}"
    )
    return Principal("token", key, token=record, client_ip=client_ip)


def verify_app_jwt(state: ForgeState, token: str) -> AppRecord:
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
        app = state.apps.get(str(claims.get("iss")))
        if app is None:
            raise ApiError(401, JWT_UNDECODABLE)
        jwt.decode(
            token,
            app.public_key_pem,
            algorithms=["RS256"],
            options={"verify_exp": False, "verify_iat": False, "verify_nbf": False},
        )
    except jwt.PyJWTError as exc:
        raise ApiError(401, JWT_UNDECODABLE) from exc
    now = time.time()
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(iat, int) or iat > now + JWT_CLOCK_DRIFT:
        raise ApiError(401, JWT_IAT_INVALID)
    if not isinstance(exp, int | float) or exp <= now:
        raise ApiError(401, JWT_EXPIRED)
    if exp > now + JWT_MAX_LIFETIME:
        raise ApiError(401, JWT_EXP_TOO_FAR)
    return app


def token_covers(token: TokenRecord, repo: RepoRecord) -> bool:
    return token.repos is None or repo.full_name.lower() in token.repos


def can_read(principal: Principal, repo: RepoRecord) -> bool:
    if principal.kind == "app":
        return False
    if not repo.private:
        return True
    return principal.token is not None and token_covers(principal.token, repo)


def can_write(principal: Principal, repo: RepoRecord) -> bool:
    token = principal.token
    return token is not None and token.access == "write" and token_covers(token, repo)


def check_repo(principal: Principal, repo: RepoRecord | None, write: bool) -> RepoRecord:
    """GitHub hides what a caller cannot read (404) and refuses writes it may not make."""
    if repo is None or not can_read(principal, repo):
        raise ApiError(404, "Not Found")
    if write and not can_write(principal, repo):
        if principal.anonymous:
            raise ApiError(401, "Requires authentication")
        raise ApiError(403, principal.forbidden_message)
    return repo


def require_user(principal: Principal) -> str:
    """Endpoints about "the authenticated user"."""
    if principal.anonymous:
        raise ApiError(401, "Requires authentication")
    if principal.kind == "app" or principal.is_installation or principal.login is None:
        raise ApiError(403, "Resource not accessible by integration")
    return principal.login


def oauth_scopes(token: TokenRecord) -> str:
    return "repo, read:org, workflow" if token.access == "write" else "read:org, read:user"
