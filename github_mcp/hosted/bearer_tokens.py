"""Static bearer tokens for an HTTP deployment without OAuth sign-in."""

from __future__ import annotations

import hashlib
import hmac

from fastmcp.server.auth import AccessToken, TokenVerifier

from github_mcp.kernel.principal import PRINCIPAL_KIND_CLAIM, PRINCIPAL_NAME_CLAIM


class BearerTokens(TokenVerifier):
    """Static bearer tokens, compared in constant time. The principal is named by a
    digest of the token, so logs and the audit trail never hold the token itself."""

    def __init__(self, tokens: tuple[str, ...]) -> None:
        super().__init__()
        self._digests = [hashlib.sha256(t.encode()).digest() for t in tokens]

    def principal_for(self, token: str) -> str | None:
        digest = hashlib.sha256(token.encode()).digest()
        matched = False
        for known in self._digests:
            matched |= hmac.compare_digest(digest, known)
        return "bearer-" + digest.hex()[:16] if matched else None

    async def verify_token(self, token: str) -> AccessToken | None:
        principal = self.principal_for(token)
        if principal is None:
            return None
        claims = {PRINCIPAL_NAME_CLAIM: principal, PRINCIPAL_KIND_CLAIM: "bearer"}
        return AccessToken(
            token=token, client_id=principal, scopes=[], expires_at=None, claims=claims
        )
