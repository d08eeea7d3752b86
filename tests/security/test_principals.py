"""Approvals belong to the authenticated principal, never to a client-chosen header.

Served over real HTTP (uvicorn on loopback) with two bearer tokens, A and B. The
attacker is B: it presents A's `mcp-session-id` (stateless and stateful, older and
current protocol versions) and tries to write to `main` with A's approval. The
evidence is the forge's branch head and the audit log, not the server's answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from github_mcp.hosted.bearer_tokens import BearerTokens
from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app, build_mcp
from tests.conftest import call_tool, error_code
from tests.test_tools_write import head

TOKEN_A = "alpha-token-principal-0123456789"
TOKEN_B = "bravo-token-principal-0123456789"
OLD_PROTOCOLS = ("2025-03-26", "2025-06-18")
NAMES = BearerTokens((TOKEN_A, TOKEN_B))
NAME_A = NAMES.principal_for(TOKEN_A)
NAME_B = NAMES.principal_for(TOKEN_B)


@pytest.fixture
def repo(forge) -> str:
    full_name = f"principal-org/r-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(full_name, {"README.md": "# principals\n"}, branches={"feature": {}})
    return full_name


@pytest.fixture
def http_server(make_runtime):
    @contextlib.contextmanager
    def start(stateless: bool = False, **settings: Any) -> Iterator[tuple[str, Runtime]]:
        settings.setdefault("approval_mode", "tool")  # approval scoping via the model's toggle
        rt = make_runtime(auth_tokens=f"{TOKEN_A},{TOKEN_B}", **settings)
        with serve_in_thread(build_http_app(rt, stateless=stateless)) as url:
            yield url, rt

    return start


class RawClient:
    """JSON-RPC over streamable HTTP by hand, so a test can send any session header."""

    def __init__(self, url: str, token: str, protocol: str) -> None:
        self.url = url + "/mcp"
        self.token = token
        self.protocol = protocol
        self.ids = iter(range(1, 10_000))

    def headers(self, session: str | None) -> dict[str, str]:
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "mcp-protocol-version": self.protocol,
        }
        if session is not None:
            headers["mcp-session-id"] = session
        return headers

    def initialize(self) -> str:
        params = {
            "protocolVersion": self.protocol,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        }
        answer = self._post({"method": "initialize", "params": params}, None)
        assert answer.status_code == 200, answer.text
        session = answer.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert httpx.post(self.url, json=note, headers=self.headers(session)).status_code < 300
        return session

    def call(self, tool: str, args: dict[str, Any], session: str | None) -> tuple[int, Any]:
        """(HTTP status, tool result) — the result is None unless the status is 200."""
        answer = self._post(
            {"method": "tools/call", "params": {"name": tool, "arguments": args}}, session
        )
        if answer.status_code != 200:
            return answer.status_code, None
        return 200, _jsonrpc_result(answer)

    def _post(self, message: dict[str, Any], session: str | None) -> httpx.Response:
        body = {"jsonrpc": "2.0", "id": next(self.ids), **message}
        return httpx.post(self.url, json=body, headers=self.headers(session), timeout=30)


def _jsonrpc_result(answer: httpx.Response) -> dict[str, Any]:
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in answer.text.splitlines() if line.startswith("data:")]
        message = json.loads(data[-1])
    else:
        message = answer.json()
    return message["result"]


def _main_commit(full_name: str, n: str) -> dict[str, Any]:
    return {
        "full_name": full_name,
        "branch": "main",
        "message": f"write {n}",
        "files": [{"path": f"{n}.txt", "content": f"{n}\n"}],
    }


def _audit(rt: Runtime) -> list[dict[str, Any]]:
    return [json.loads(line) for line in rt.settings.audit_log.read_text().splitlines()]


@pytest.mark.parametrize("protocol", OLD_PROTOCOLS)
async def test_stateless_b_presenting_a_session_id_cannot_use_a_approval(
    http_server, forge, repo, protocol
):
    with http_server(stateless=True) as (url, rt):
        alice = RawClient(url, TOKEN_A, protocol)
        mallory = RawClient(url, TOKEN_B, protocol)
        chosen = "team-session-0001"  # any value a client sends; stateless servers issue none
        # a session id the client chose is no session: no approval window for A at all
        status, granted = alice.call("authorize_write_actions", {"approved": True}, chosen)
        assert status == 200 and granted["isError"], granted
        assert error_code(granted["structuredContent"]) == "write_not_allowed"
        assert rt.gate.grants() == []
        main_before = head(forge, repo, "main")

        status, denied = mallory.call("commit_files", _main_commit(repo, "mallory"), chosen)
        assert status == 200 and denied["isError"]
        assert error_code(denied["structuredContent"]) == "write_not_allowed"
        assert head(forge, repo, "main") == main_before

        feature = _main_commit(repo, "mallory-feature") | {"branch": "feature"}
        status, allowed = mallory.call("commit_files", feature, chosen)
        assert status == 200 and not allowed["isError"], allowed
        # The audit line names B as authenticated, not the session id B chose.
        line = _audit(rt)[-1]
        assert line["principal"] == NAME_B and line["principal_kind"] == "bearer"
        assert chosen not in json.dumps(line) and TOKEN_B not in json.dumps(line)

        # and A, holding no window, cannot write to main either
        status, refused = alice.call("commit_files", _main_commit(repo, "alice"), None)
        assert status == 200 and refused["isError"], refused
        assert head(forge, repo, "main") == main_before


@pytest.mark.parametrize("protocol", OLD_PROTOCOLS)
async def test_stateful_b_presenting_a_session_id_cannot_use_a_approval(
    http_server, forge, repo, protocol
):
    with http_server() as (url, rt):
        alice = RawClient(url, TOKEN_A, protocol)
        mallory = RawClient(url, TOKEN_B, protocol)
        session_a = alice.initialize()
        status, granted = alice.call("authorize_write_actions", {"approved": True}, session_a)
        assert status == 200 and granted["structuredContent"]["scope"] == "session"
        main_before = head(forge, repo, "main")

        status, denied = mallory.call("commit_files", _main_commit(repo, "mallory"), session_a)
        assert status == 404 or error_code(denied["structuredContent"]) == "write_not_allowed"
        # The current protocol has no sessions: the header counts for nothing there.
        transport = StreamableHttpTransport(
            url + "/mcp", headers={"mcp-session-id": session_a}, auth=TOKEN_B
        )
        async with Client(transport) as modern:
            assert modern.protocol_version == "2026-07-28"
            is_error, payload = await call_tool(
                modern, "commit_files", _main_commit(repo, "mallory-modern")
            )
            assert is_error and error_code(payload) == "write_not_allowed"
        assert head(forge, repo, "main") == main_before

        # A's own session still holds the approval; A's other requests without it do not.
        status, other = alice.call("commit_files", _main_commit(repo, "alice-nosession"), None)
        assert status != 200 or error_code(other["structuredContent"]) == "write_not_allowed"
        assert head(forge, repo, "main") == main_before
        status, written = alice.call("commit_files", _main_commit(repo, "alice"), session_a)
        assert status == 200 and not written["isError"], written
        assert head(forge, repo, "main") == written["structuredContent"]["commit_sha"]
        assert _audit(rt)[-1]["principal"] == NAME_A


@pytest.mark.parametrize("stateless", [True, False], ids=["stateless", "stateful"])
async def test_client_without_session_gets_no_approval_window(http_server, forge, repo, stateless):
    """Current-protocol clients send no session header: a window would be their
    principal's across every client it has, so they get none (issue: 'approve for this
    session' applied to all the user's clients). Each gated write is approved alone."""
    main_before = head(forge, repo, "main")
    with http_server(stateless=stateless) as (url, rt):
        async with Client(url + "/mcp", auth=TOKEN_A) as alice:
            assert alice.protocol_version == "2026-07-28"
            is_error, state = await call_tool(alice, "authorize_write_actions", {"approved": True})
            assert is_error and error_code(state) == "write_not_allowed", state
            assert "no session" in state["error"]["message"]
            is_error, written = await call_tool(alice, "commit_files", _main_commit(repo, "one"))
            assert is_error and error_code(written) == "write_not_allowed", written
        assert rt.gate.grants() == []  # the approval store holds nothing for A
        with pytest.raises(Exception, match="no session"):
            rt.gate.set_approval(f"bearer:{NAME_A}", True)  # nor can anything put one there
    assert head(forge, repo, "main") == main_before


def _approvals_on_status_page(url: str) -> int:
    page = httpx.get(url + "/status", headers={"Authorization": f"Bearer {TOKEN_A}"})
    assert page.status_code == 200
    found = re.search(r"(\d+)(?:</strong>)? session\(s\) hold an approval now", page.text)
    assert found, "the status page shows no approval counter"
    return int(found.group(1))


async def test_closed_sessions_drop_their_approvals(http_server, repo):
    sessions = 20
    with http_server() as (url, rt):
        clients = [Client(url + "/mcp", auth=TOKEN_A, mode="legacy") for _ in range(sessions)]
        for client in clients:
            await client.__aenter__()
            is_error, state = await call_tool(client, "authorize_write_actions", {"approved": True})
            assert not is_error and state["scope"] == "session"
        assert _approvals_on_status_page(url) == sessions
        for client in clients:
            await client.__aexit__(None, None, None)  # the client ends its session (DELETE)
        deadline = time.monotonic() + 120
        while _approvals_on_status_page(url) != 0:
            assert time.monotonic() < deadline, "approvals outlived their sessions"
            await asyncio.sleep(0.02)
        assert rt.gate.active_approvals() == 0


async def test_elicit_prompt_nobody_answers_times_out_granting_nothing(make_runtime, forge, repo):
    rt = make_runtime(approval_mode="elicit", approval_prompt_timeout_seconds=0.5)
    answered = asyncio.Event()
    asked: list[str] = []

    async def never_answers(message, response_type, params, context):
        asked.append(message)
        await answered.wait()  # the human never comes back (until the test lets go)
        return True

    main_before = head(forge, repo, "main")
    async with Client(build_mcp(rt), elicitation_handler=never_answers, mode="legacy") as client:
        try:
            is_error, payload = await call_tool(
                client, "authorize_write_actions", {"approved": True}
            )
        finally:
            answered.set()
        assert asked, "the human was never asked"
        assert is_error and error_code(payload) == "timeout"
        assert "nothing was approved" in payload["error"]["message"]
        is_error, config = await call_tool(client, "get_server_config")
        assert not is_error and config["write_policy"]["approved"] is False
        is_error, denied = await call_tool(client, "commit_files", _main_commit(repo, "late"))
        assert error_code(denied) == "write_not_allowed"
    assert head(forge, repo, "main") == main_before
    assert rt.gate.active_approvals() == 0
