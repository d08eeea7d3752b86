"""Who is calling, and what they may touch: tokens, App JWTs, and repository access."""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import jwt

from sandbox_forge.kernel.errors import ApiError
from sandbox_forge.stores.access import at_least, lowest, user_role
from sandbox_forge.stores.records import AppRecord, RepoRecord, TokenRecord
from sandbox_forge.stores.state import ForgeState

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
NEEDS_ADMIN = "Must have admin rights to Repository."


@dataclass(frozen=True)
class Principal:
    kind: str  # "anonymous", "token", "app" or "oauth_app" (client id and secret)
    rate_key: str
    token: TokenRecord | None = None
    app: AppRecord | None = None
    client_ip: str = "127.0.0.1"
    # The user's own role per repository, for tokens that act within it (see TokenRecord).
    role_of: Callable[[RepoRecord], str | None] | None = field(default=None, compare=False)
    oauth_client_id: str | None = None  # kind "oauth_app": the app that authenticated

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
        token = self.token
        integration = self.kind in ("app", "oauth_app") or (token and token.client_id)
        if self.is_installation or integration:
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


def oauth_client_from_header(state: ForgeState, value: str | None) -> str | None:
    """The OAuth app's client id, when Basic credentials are its client id and secret (how
    GitHub's /applications/{client_id}/… endpoints authenticate)."""
    scheme, _, rest = (value or "").strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(rest.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    client_id, _, secret = decoded.partition(":")
    app = state.oauth.app(client_id)
    return client_id if app is not None and app.secret_matches(secret) else None


def looks_like_jwt(credential: str) -> bool:
    return credential.count(".") == 2 and credential.startswith("eyJ")


def authenticate(state: ForgeState, authorization: str | None, client_ip: str) -> Principal:
    credential = credential_from_header(authorization)
    if credential is None:
        return Principal("anonymous", f"ip:{client_ip}", client_ip=client_ip)
    if looks_like_jwt(credential):
        app = verify_app_jwt(state, credential)
        return Principal("app", f"app:{app.app_id}", app=app, client_ip=client_ip)
    client_id = oauth_client_from_header(state, authorization)
    if client_id is not None:
        return Principal(
            "oauth_app", f"oauth_app:{client_id}", client_ip=client_ip, oauth_client_id=client_id
        )
    record = state.tokens.get(credential)
    if record is None or record.expired():
        raise ApiError(401, BAD_CREDENTIALS)
    return token_principal(state, record, client_ip)


def token_principal(state: ForgeState, record: TokenRecord, client_ip: str) -> Principal:
    key = (
        f"installation:{record.installation_id}"
        if record.installation_id is not None
        else f"user:{record.login.lower()}"
    )
    role_of = None
    if record.user_roles:
        login = record.login

        def role_of(repo: RepoRecord) -> str | None:
            return user_role(state, repo, login)

    return Principal("token", key, token=record, client_ip=client_ip, role_of=role_of)


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


def repo_role(principal: Principal, repo: RepoRecord) -> str | None:
    """What the caller may do in repo: None (it does not exist for them), or read, triage,
    write, maintain, admin. A token never exceeds its user's role, its own access, its
    repository list or its OAuth scopes."""
    if principal.kind == "app":
        return None
    public = None if repo.private else "read"
    token = principal.token
    if token is None or not token_covers(token, repo):
        return public
    granted = "admin" if token.access == "write" else "read"
    if token.scopes is not None:  # an OAuth app's grant: `repo`, or `public_repo` for public
        if repo.private and "repo" not in token.scopes:
            return public
        if "repo" not in token.scopes and not ("public_repo" in token.scopes and public):
            granted = "read"
    if principal.role_of is not None:
        return lowest(granted, principal.role_of(repo))
    return granted


def can_read(principal: Principal, repo: RepoRecord) -> bool:
    return at_least(repo_role(principal, repo), "read")


def can_write(principal: Principal, repo: RepoRecord) -> bool:
    return at_least(repo_role(principal, repo), "write")


def check_repo(
    principal: Principal, repo: RepoRecord | None, write: bool, need: str | None = None
) -> RepoRecord:
    """GitHub hides what a caller cannot read (404) and refuses writes it may not make.
    need names a role beyond write ("admin") for settings-like endpoints."""
    role = None if repo is None else repo_role(principal, repo)
    if repo is None or not at_least(role, "read"):
        raise ApiError(404, "Not Found")
    wanted = need or ("write" if write else "read")
    if not at_least(role, wanted):
        if principal.anonymous:
            raise ApiError(401, "Requires authentication")
        if wanted == "admin" and at_least(role, "write"):
            raise ApiError(403, NEEDS_ADMIN)
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
    if token.scopes is not None:
        return ", ".join(token.scopes)
    return "repo, read:org, workflow" if token.access == "write" else "read:org, read:user"
