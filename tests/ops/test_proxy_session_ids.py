"""GITHUB_MCP_SESSION_ID_HEADER: the proxy's request id becomes a new session's id (so a
proxy hashing on it routes the session back; tests/replicas/test_shipped_nginx.py has the
real nginx). Only a 32-hex value, only when opening a session, never one in use, and
never without the setting. Over real HTTP on loopback."""

from __future__ import annotations

import secrets

import httpx2 as httpx

from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app

TOKEN = "proxy-ids-token-0123456789"
PROTOCOL = "2025-06-18"


def _open(url: str, extra: dict[str, str]) -> httpx.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    headers = {
        "Authorization": f"Bearer {TOKEN}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "mcp-protocol-version": PROTOCOL,
        **extra,
    }
    return httpx.post(url + "/mcp", json=body, headers=headers, timeout=30)


def test_the_proxy_id_names_the_session_only_when_configured_and_well_formed(make_runtime):
    proposed = secrets.token_hex(16)
    with serve_in_thread(
        build_http_app(make_runtime(auth_tokens=TOKEN, session_id_header="X-Request-Id"))
    ) as url:
        adopted = _open(url, {"X-Request-Id": proposed})
        again = _open(url, {"X-Request-Id": proposed})  # in use: not taken twice
        odd = _open(url, {"X-Request-Id": "not-a-request-id"})
        upper = _open(url, {"X-Request-Id": proposed.upper()})
    assert adopted.status_code == 200
    assert adopted.headers["mcp-session-id"] == proposed
    assert again.status_code == 200 and again.headers["mcp-session-id"] != proposed
    for answer in (odd, upper):
        assert answer.status_code == 200
        assert answer.headers["mcp-session-id"] not in ("not-a-request-id", proposed.upper())

    with serve_in_thread(build_http_app(make_runtime(auth_tokens=TOKEN))) as url:
        unset = _open(url, {"X-Request-Id": secrets.token_hex(16)})
    assert unset.status_code == 200
    assert unset.headers["mcp-session-id"] != unset.request.headers["X-Request-Id"]
