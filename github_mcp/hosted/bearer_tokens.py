"""Static bearer tokens for an HTTP deployment without OAuth sign-in."""

from __future__ import annotations

import hashlib
import hmac

from fastmcp.server.auth import AccessToken, TokenVerifier

from github_mcp.kernel.principal import PRINCIPAL_KIND_CLAIM, PRINCIPAL_NAME_CLAIM


class BearerTokens(TokenVerifier):
    """Static bearer tokens, compared in constant time. The principal is named by a
    digest of the token, so logs and the audit trail never hold the token itself.

    A token's AccessToken never changes, so it is built once and shared by every request
    that presents the token (it was ~2 KB of allocations per request); only tokens that
    matched are remembered, so there are never more than the configured ones."""

    def __init__(self, tokens: tuple[str, ...]) -> None:
        super().__init__()
        self._digests = [hashlib.sha256(t.encode()).digest() for t in tokens]
        self._verified: dict[bytes, AccessToken] = {}

    def principal_for(self, token: str) -> str | None:
        digest = hashlib.sha256(token.encode()).digest()
        return _principal(digest) if self._known(digest) else None

    def _known(self, digest: bytes) -> bool:
        matched = False
        for known in self._digests:
            matched |= hmac.compare_digest(digest, known)
        return matched

    async def verify_token(self, token: str) -> AccessToken | None:
        digest = hashlib.sha256(token.encode()).digest()
        if not self._known(digest):
            return None
        verified = self._verified.get(digest)
        if verified is None:
            principal = _principal(digest)
            claims = {PRINCIPAL_NAME_CLAIM: principal, PRINCIPAL_KIND_CLAIM: "bearer"}
            verified = AccessToken(
                token=token, client_id=principal, scopes=[], expires_at=None, claims=claims
            )
            self._verified[digest] = verified
        return verified


def _principal(digest: bytes) -> str:
    return "bearer-" + digest.hex()[:16]
