"""HTTP field values as RFC 9110 defines them: without the optional whitespace around
them. The HTTP parser keeps it, and the MCP SDK compares the 2026-07-28 routing headers
(`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) with the body byte for byte, so a value sent
as `"  get_me  "` would be refused as a mismatch where SEP-2243 says it must be
accepted. Only those headers are trimmed; nothing else is rewritten."""

from __future__ import annotations

from starlette.types import Scope

_OWS = b" \t"


def trimmed_mcp_headers(scope: Scope) -> Scope:
    """`scope` with the whitespace around each `mcp-*` header's value removed."""
    headers = scope.get("headers") or []
    if not any(name.lower().startswith(b"mcp-") for name, _ in headers):
        return scope
    fixed = [
        (name, value.strip(_OWS) if name.lower().startswith(b"mcp-") else value)
        for name, value in headers
    ]
    return {**scope, "headers": fixed}
