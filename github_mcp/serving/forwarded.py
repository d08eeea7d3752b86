"""X-Forwarded-Proto, -Host and -Port from a trusted proxy (GITHUB_MCP_TRUSTED_PROXIES).

Behind a proxy the server sees the proxy's request: its scheme (plain HTTP from a TLS
terminator) and whatever Host the proxy sends (nginx's `$host` has no port). Links the
server hands out (approval pages) and its cookies' Secure flag follow the request, so a
request from a trusted proxy's address gets the scheme, host and port its client used,
from the proxy's X-Forwarded-* headers, before anything else sees it (the Host checks
included, which then check the host clients use). From any other address, or with a
malformed value, the headers are ignored.
"""

from __future__ import annotations

import ipaddress
import re

from starlette.types import ASGIApp, Receive, Scope, Send

# host (a name, IPv4, or [IPv6]) with an optional port: nothing else gets into a link
_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$")
_DEFAULT_PORT = {"http": "80", "https": "443"}

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_trusted(value: str) -> tuple[Network, ...]:
    """GITHUB_MCP_TRUSTED_PROXIES: comma-separated addresses or CIDR ranges."""
    return tuple(
        ipaddress.ip_network(part.strip(), strict=False)
        for part in value.split(",")
        if part.strip()
    )


def _first(value: str) -> str:
    return value.split(",", 1)[0].strip()


def forwarded_origin(headers: dict[str, str], scheme: str, host: str) -> tuple[str, str] | None:
    """(scheme, host[:port]) the client used, from the X-Forwarded-* headers; None when
    they name nothing different or are malformed."""
    proto = _first(headers.get("x-forwarded-proto", "")).lower() or scheme
    if proto not in _DEFAULT_PORT:
        return None
    forwarded_host = _first(headers.get("x-forwarded-host", "")) or host
    match = _HOST.match(forwarded_host)
    if match is None:
        return None
    port = _first(headers.get("x-forwarded-port", ""))
    if port and (not port.isdigit() or not 0 < int(port) < 65536):
        return None
    if match.group(2) is None and port and port != _DEFAULT_PORT[proto]:
        forwarded_host = f"{match.group(1)}:{port}"
    return proto, forwarded_host.lower()


class ForwardedHeaders:
    def __init__(self, app: ASGIApp, trusted: str) -> None:
        self.app = app
        self.trusted = parse_trusted(trusted)

    def _from_trusted(self, scope: Scope) -> bool:
        client = scope.get("client")
        if not self.trusted or not client:
            return False
        try:
            address = ipaddress.ip_address(client[0])
        except ValueError:
            return False
        return any(address in network for network in self.trusted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self._from_trusted(scope):
            headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]}
            if any(name.startswith("x-forwarded-") for name in headers):
                found = forwarded_origin(
                    headers, scope.get("scheme", "http"), headers.get("host", "")
                )
                if found is not None:
                    scheme, host = found
                    if scope["type"] == "websocket":
                        scheme = "wss" if scheme == "https" else "ws"
                    raw = [(k, v) for k, v in scope["headers"] if k.lower() != b"host"]
                    raw.append((b"host", host.encode("latin-1")))
                    scope = dict(scope, scheme=scheme, headers=raw)
        await self.app(scope, receive, send)
