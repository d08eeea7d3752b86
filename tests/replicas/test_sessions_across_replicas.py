"""A 2025-11-25 session opened on one replica goes on on another, without initializing
again (serving/shared_sessions.py): two `main.py serve` processes with sessions (not
--stateless) sharing a real redis-server, raw MCP over HTTP.

- The session is opened on replica 0, enables the `gists` toolset and sets its logging
  level to `debug` there; replica 1, which never saw it, answers its tools/list with the
  gists tools listed, its call from that toolset, and a read with the read's debug log
  lines, after replica 0 is SIGKILLed (no initialize is ever sent to 1).
- Another credential presenting the session's id gets 404 there, as for an unknown id.
- The client's DELETE ends it: its id then gets 404, and is not revived from Redis."""

from __future__ import annotations

import json
import signal
import uuid
from typing import Any

import httpx2 as httpx
import pytest

from tests.conftest import traversable
from tests.replicas.cluster import Cluster, wait_for

TOKEN_A = "sessions-owner-alpha-0123456789"
TOKEN_B = "sessions-owner-bravo-0123456789"
PROTOCOL = "2025-11-25"


@pytest.fixture(scope="module")
def _shared_replicas(forge, forge_token, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("replicas")
    cluster = Cluster(
        tmp_path,
        api_url=forge.base_url,
        token=forge_token,
        count=2,
        stateless=False,
        workspace_dir=traversable(tmp_path),
        extra_env={"GITHUB_MCP_AUTH_TOKENS": f"{TOKEN_A},{TOKEN_B}"},
    )
    yield cluster
    cluster.close()


@pytest.fixture
def two_replicas(_shared_replicas):
    """Two replicas shared by the module's tests, each with sessions of its own; a replica
    a test killed is started again, and Redis let go, before the next test."""
    return _shared_replicas.revive()


def _post(url: str, body: dict[str, Any], token: str, session: str | None = None) -> httpx.Response:
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "mcp-protocol-version": PROTOCOL,
    }
    if session is not None:
        headers["mcp-session-id"] = session
    return httpx.post(url + "/mcp", json=body, headers=headers, timeout=120)


def _messages(response: httpx.Response) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a JSON body or an event stream."""
    assert response.status_code == 200, (response.status_code, response.text[:500])
    if response.headers.get("content-type", "").startswith("application/json"):
        return [response.json()]
    return [
        json.loads(line[5:])
        for line in response.text.splitlines()
        if line.startswith("data:") and line[5:].strip()
    ]


def _answer(response: httpx.Response, request_id: int) -> dict[str, Any]:
    """The JSON-RPC response to `request_id`."""
    for message in _messages(response):
        if message.get("id") == request_id:
            return message
    raise AssertionError(f"no response to {request_id} in {response.text[:500]}")


def _call(url: str, token: str, session: str, request_id: int, method: str, **params: Any):
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return _post(url, body, token, session)


def _open(url: str, token: str) -> str:
    opening = _post(
        url,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "raw-replica-client", "version": "1"},
            },
        },
        token,
    )
    assert _answer(opening, 1)["result"]["protocolVersion"] == PROTOCOL
    session = opening.headers["mcp-session-id"]
    done = _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, token, session)
    assert done.status_code == 202, done.text
    return session


@pytest.mark.timeout(300)
def test_a_session_goes_on_on_another_replica_with_its_toolsets(two_replicas, forge):
    repo = f"octo-org/moved-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"notes.txt": "moved\n" * 50})
    first, second = (r.url for r in two_replicas.replicas)
    session = _open(first, TOKEN_A)
    level = _call(first, TOKEN_A, session, 10, "logging/setLevel", level="debug")
    assert "error" not in _answer(level, 10), level.text
    listed = _answer(_call(first, TOKEN_A, session, 2, "tools/list"), 2)["result"]["tools"]
    assert "list_gists" not in {t["name"] for t in listed}  # not a default toolset
    enabled = _call(
        first, TOKEN_A, session, 3, "tools/call", name="enable_toolset", arguments={"name": "gists"}
    )
    assert _answer(enabled, 3)["result"]["structuredContent"]["toolset"] == "gists"

    two_replicas.replicas[0].kill()
    listed = _answer(_call(second, TOKEN_A, session, 4, "tools/list"), 4)["result"]["tools"]
    assert "list_gists" in {t["name"] for t in listed}
    gists = _call(
        second, TOKEN_A, session, 5, "tools/call", name="list_gists", arguments={"limit": 5}
    )
    result = _answer(gists, 5)["result"]
    assert result.get("isError") is not True, result
    assert "gists" in result["structuredContent"]

    read = _call(
        second,
        TOKEN_A,
        session,
        8,
        "tools/call",
        name="get_file_contents",
        arguments={"full_name": repo, "path": "notes.txt"},
    )
    messages = _messages(read)
    assert _answer(read, 8)["result"].get("isError") is not True
    levels = {m["params"]["level"] for m in messages if m.get("method") == "notifications/message"}
    assert "debug" in levels, messages  # the level the session set on replica 0

    # another credential with the same id: exactly as an unknown session
    stranger = _call(second, TOKEN_B, session, 6, "tools/list")
    assert stranger.status_code == 404, stranger.text
    unknown = _call(second, TOKEN_A, "0" * 32, 7, "tools/list")
    assert unknown.status_code == 404, unknown.text


@pytest.mark.timeout(300)
def test_a_deleted_session_is_not_revived(two_replicas):
    first, second = (r.url for r in two_replicas.replicas)
    session = _open(first, TOKEN_A)
    moved = _answer(_call(second, TOKEN_A, session, 2, "tools/list"), 2)
    assert moved["result"]["tools"]
    ended = httpx.delete(
        second + "/mcp",
        headers={
            "Authorization": f"Bearer {TOKEN_A}",
            "mcp-session-id": session,
            "mcp-protocol-version": PROTOCOL,
        },
        timeout=60,
    )
    assert ended.status_code == 200, ended.text
    gone = _call(second, TOKEN_A, session, 3, "tools/list")
    assert gone.status_code == 404, gone.text


@pytest.mark.timeout(300)
def test_with_redis_away_another_replica_answers_retry_not_404(two_replicas):
    """A replica that cannot read the session's record (Redis frozen) cannot know whether
    the session exists: it answers 503 with a retryable error (a 404 would make the client
    initialize again), and takes the session over once Redis answers again."""
    first, second = (r.url for r in two_replicas.replicas)
    session = _open(first, TOKEN_A)
    redis_server = two_replicas.redis.proc
    redis_server.send_signal(signal.SIGSTOP)  # frozen: it keeps the record
    try:
        away = _call(second, TOKEN_A, session, 2, "tools/list")
    finally:
        redis_server.send_signal(signal.SIGCONT)
    assert away.status_code == 503, away.text
    assert away.json()["error"]["data"] == {"code": "unavailable", "retryable": True}
    assert away.headers["retry-after"] == "1"
    wait_for(lambda: httpx.get(second + "/readyz", timeout=5).status_code == 200, "readiness")
    back = _answer(_call(second, TOKEN_A, session, 3, "tools/list"), 3)
    assert back["result"]["tools"]


@pytest.mark.timeout(300)
def test_a_session_opened_while_redis_was_away_is_recorded_once_it_is_back(two_replicas):
    first, second = (r.url for r in two_replicas.replicas)
    redis_server = two_replicas.redis.proc
    redis_server.send_signal(signal.SIGSTOP)
    try:
        session = _open(first, TOKEN_A)  # its record could not be written
    finally:
        redis_server.send_signal(signal.SIGCONT)
    wait_for(lambda: httpx.get(first + "/readyz", timeout=5).status_code == 200, "readiness")
    here = _answer(_call(first, TOKEN_A, session, 2, "tools/list"), 2)  # written now
    assert here["result"]["tools"]
    moved = _answer(_call(second, TOKEN_A, session, 3, "tools/list"), 3)
    assert moved["result"]["tools"]
