"""Sessions through the SHIPPED deploy/nginx.conf in front of replicas sharing Redis.

The sandbox forge in its own process, redis-server, N `main.py serve` replicas (the
replica tests' cluster helper) and nginx running deploy/nginx.conf with only the upstream
addresses and the port rewritten (tests/replicas/test_shipped_nginx.py). Opens S sessions
(protocol 2025-06-18, which has sessions) and makes C reads in each; a session counts as
working when its initialize, its `initialized` notification and every read answer 200.
Run once with GITHUB_MCP_SESSION_ID_HEADER=X-Request-Id (the shipped compose setting) and
once without (the server minting its own ids, as before).

    python bench/replica_sessions.py [--replicas 2] [--sessions 20] [--calls 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2 as httpx
from _forge_process import ForgeProcess

from tests.replicas.cluster import BEARER, Cluster
from tests.replicas.test_shipped_nginx import ShippedNginx

REPO = "bench-org/sessions"
PROTOCOL = "2025-06-18"


def _post(url: str, body: dict, session: str | None) -> httpx.Response:
    headers = {
        "Authorization": f"Bearer {BEARER}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "mcp-protocol-version": PROTOCOL,
    }
    if session:
        headers["mcp-session-id"] = session
    return httpx.post(url + "/mcp", json=body, headers=headers, timeout=30)


def one_session(url: str, calls: int) -> bool:
    params = {
        "protocolVersion": PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "b", "version": "1"},
    }
    opened = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}, None)
    session = opened.headers.get("mcp-session-id")
    if opened.status_code != 200 or not session:
        return False
    note = _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    if note.status_code >= 300:
        return False
    args = {"full_name": REPO, "path": "README.md", "ref": "main"}
    for i in range(calls):
        body = {
            "jsonrpc": "2.0",
            "id": i + 2,
            "method": "tools/call",
            "params": {"name": "get_file_contents", "arguments": args},
        }
        if _post(url, body, session).status_code != 200:
            return False
    return True


def measure(forge: ForgeProcess, replicas: int, sessions: int, calls: int, header: bool) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GITHUB_MCP_SESSION_ID_HEADER": "X-Request-Id"} if header else {}
        cluster = Cluster(
            Path(tmp),
            api_url=forge.base_url,
            token=forge.token,
            count=replicas,
            stateless=False,
            extra_env=env,
        )
        nginx = ShippedNginx(Path(tmp) / "shipped-nginx", [r.port for r in cluster.replicas])
        try:
            return sum(one_session(nginx.url, calls) for _ in range(sessions))
        finally:
            nginx.stop()
            cluster.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args()
    with ForgeProcess() as forge:
        forge.seed_repo(REPO, {"README.md": "# sessions\n"})
        for header, label in (
            (False, "before (replica-minted ids)"),
            (True, "after (X-Request-Id)"),
        ):
            working = measure(forge, args.replicas, args.sessions, args.calls, header)
            print(
                f"{label}: {working} of {args.sessions} sessions worked on every call "
                f"({args.replicas} replicas, shipped nginx.conf, {args.calls} reads each)"
            )


if __name__ == "__main__":
    main()
