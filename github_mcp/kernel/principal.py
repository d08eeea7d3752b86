"""Who is calling: the authenticated principal and the approval scope built from it.

An approval and an audit line belong to the identity the transport authenticated,
never to anything the client chose (a session header, a client name). Over HTTP that
is the bearer token's principal name (a digest, never the token) or, with OAuth, the
GitHub login; over stdio it is the server process, which serves a single client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

PrincipalKind = Literal["process", "bearer", "github", "anonymous"]

# Claims an access token carries to name its principal (set by our token verifiers).
PRINCIPAL_NAME_CLAIM = "github_mcp_principal"
PRINCIPAL_KIND_CLAIM = "github_mcp_principal_kind"


@dataclass(frozen=True)
class Principal:
    """An authenticated identity. `name` is safe to log: never a credential."""

    name: str
    kind: PrincipalKind

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name}"


PROCESS = Principal("stdio", "process")
ANONYMOUS = Principal("anonymous", "anonymous")


def principal_from_token(client_id: str, claims: Mapping[str, Any]) -> Principal:
    """The principal an access token names: our own claims first (bearer tokens),
    then a GitHub login (OAuth sign-in), then the token's client id."""
    name = claims.get(PRINCIPAL_NAME_CLAIM)
    kind = claims.get(PRINCIPAL_KIND_CLAIM)
    if isinstance(name, str) and name and kind in ("bearer", "github"):
        return Principal(name, kind)
    login = claims.get("login")
    if isinstance(login, str) and login:
        return Principal(login, "github")
    return Principal(client_id, "bearer")


@dataclass(frozen=True)
class ApprovalScope:
    """What one approval is keyed on: a principal, plus a session id only when the
    server issued that session to this same principal."""

    principal: Principal
    session_id: str | None = None

    @property
    def key(self) -> str:
        if self.session_id is None:
            return self.principal.key
        return f"{self.principal.key}/session:{self.session_id}"

    @property
    def label(self) -> Literal["process", "session", "principal"]:
        if self.principal.kind == "process":
            return "process"
        return "session" if self.session_id is not None else "principal"
