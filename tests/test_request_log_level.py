"""Per-request log levels (the 2026-07-28 revision's `_meta["io.modelcontextprotocol/
logLevel"]`) on both transports, with a real server process against the sandbox forge:

- over HTTP a call that logs at or above the asked level answers as an SSE stream whose
  `notifications/message` come before the response; one with nothing to send (a level
  above what it logs, or no level at all: the spec's opt-in) answers plain JSON;
- the level filters: `error` on a failing call gets the failure, not the debug line;
- an unknown level is refused with -32602 (Invalid params);
- a real SDK client of the 2026 revision gets the logs through its log handler, and the
  same over stdio, where the revision is chosen per request.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import sys
from typing import Any
from urllib.parse import urlsplit

import pytest
from mcp import Client

from tests.conftest import DEMO_REPO, ROOT
from tests.stdio_session import modern_meta, request, run
from tests.test_tasks_http import Server

LOG_LEVEL = "io.modelcontextprotocol/logLevel"
FAILING = {"name": "get_failing_tests", "arguments": {"pr": f"{DEMO_REPO}#1", "limit": 1}}
MISSING = {"name": "get_failing_tests", "arguments": {"pr": f"{DEMO_REPO}#9999"}}


@pytest.fixture(scope="module")
def server(forge, forge_token, tmp_path_factory):
    """One server for the module: every call is a read, each on its own request (the SDK
    client's on its own session), so no test sees another's level."""
    running = Server(tmp_path_factory.mktemp("levels"), forge.base_url, forge_token)
    yield running
    running.stop()


def _post(url: str, call: dict[str, Any], level: str | None) -> tuple[str, list[dict]]:
    """A raw 2026-07-28 tools/call: the answer's content type and its JSON-RPC messages
    in order (one for a JSON body, every event's data for a stream)."""
    meta: dict[str, Any] = modern_meta("raw")
    if level is not None:
        meta[LOG_LEVEL] = level
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {**call, "_meta": meta}}
    sent = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": call["name"],
        "Mcp-Param-Pr": call["arguments"]["pr"],  # its declared header (SEP-2243)
    }
    connection = http.client.HTTPConnection(urlsplit(url).netloc, timeout=120)
    try:
        connection.request("POST", "/mcp", body=json.dumps(body), headers=sent)
        response = connection.getresponse()
        kind = (response.getheader("content-type") or "").split(";")[0]
        text = response.read().decode()
    finally:
        connection.close()
    if kind == "text/event-stream":
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return kind, [json.loads(d) for d in data if d]
    return kind, [json.loads(text)]


def _logs(messages: list[dict]) -> list[dict]:
    return [m["params"] for m in messages if m.get("method") == "notifications/message"]


def test_a_log_level_turns_the_answer_into_a_stream_of_logs_then_the_result(server):
    kind, messages = _post(server.url, FAILING, "debug")
    assert kind == "text/event-stream", messages
    logs = _logs(messages)
    assert logs and logs[0]["level"] == "debug", messages
    assert logs[0]["data"]["msg"].startswith("get_failing_tests: started"), logs
    assert logs[0]["logger"] == "github_mcp" and logs[0]["data"]["extra"]["call_id"]
    answer = messages[-1]  # the response comes last, after every log
    assert answer["id"] == 7 and answer["result"]["structuredContent"]["status"] == "failed"
    assert all("id" not in m for m in messages[:-1]), messages


@pytest.mark.parametrize("level", ["warning", None])
def test_nothing_to_send_answers_plain_json(server, level):
    kind, messages = _post(server.url, FAILING, level)
    assert kind == "application/json", messages
    (answer,) = messages
    assert answer["result"]["structuredContent"]["status"] == "failed", answer


def test_the_level_filters_what_is_sent(server):
    kind, messages = _post(server.url, MISSING, "error")
    assert kind == "text/event-stream", messages
    logs = _logs(messages)
    assert [log["level"] for log in logs] == ["error"], logs
    assert logs[0]["data"]["msg"].startswith("get_failing_tests failed: not_found"), logs
    assert messages[-1]["result"]["isError"] is True, messages[-1]
    _, everything = _post(server.url, MISSING, "debug")
    levels = [log["level"] for log in _logs(everything)]
    assert levels[0] == "debug" and levels[-1] == "error", everything


def test_an_unknown_level_is_invalid_params(server):
    _, (answer,) = _post(server.url, FAILING, "loud")
    assert answer["error"]["code"] == -32602, answer


async def test_a_2026_sdk_client_gets_the_logs_through_its_handler(server):
    received: list[Any] = []
    arrived = asyncio.Event()

    async def on_log(message: Any) -> None:
        received.append(message)
        arrived.set()

    async def next_log() -> None:  # the handler runs apart from the call's answer
        await asyncio.wait_for(arrived.wait(), timeout=60)  # bounds a hang only
        arrived.clear()

    # the Python SDK's own client: fastmcp's declares the tasks extension, and a task has
    # no response stream to carry logs (get_failing_tests may wait for CI: a task tool)
    client_of = Client(
        server.url + "/mcp", mode="2026-07-28", log_level="debug", logging_callback=on_log
    )
    async with client_of as client:
        result = await client.call_tool(FAILING["name"], FAILING["arguments"])
        assert result.structuredContent["status"] == "failed"
        await next_log()
        assert received[0].level == "debug", received
        assert received[0].data["msg"].startswith("get_failing_tests: started"), received
        received.clear()
        # a call of its own asks for errors only (the request's _meta wins): nothing
        # comes of it, so the next call's debug line is the first log to arrive
        quiet = await client.call_tool(
            FAILING["name"], FAILING["arguments"], meta={LOG_LEVEL: "error"}
        )
        assert quiet.structuredContent["status"] == "failed"
        await client.call_tool(FAILING["name"], FAILING["arguments"])
        await next_log()
        calls = {m.data["extra"]["call_id"] for m in received}
        assert len(calls) == 1 and received[0].level == "debug", received


def test_over_stdio_the_request_level_applies(forge, forge_token, tmp_path):
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": forge_token,
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
    }

    def call(ident: int, level: str | None) -> dict[str, Any]:
        meta = modern_meta() if level is None else {**modern_meta(), LOG_LEVEL: level}
        return request(ident, "tools/call", {**FAILING, "_meta": meta})

    steps = [[call(1, "debug")], [call(2, "warning")], [call(3, None)]]
    session = run([sys.executable, "main.py", "serve"], steps, cwd=ROOT, env=env)
    assert session.returncode == 0
    logs = [f for f in session.frames if f.get("method") == "notifications/message"]
    assert [log["params"]["level"] for log in logs] == ["debug"], logs
    assert logs[0]["params"]["data"]["msg"].startswith("get_failing_tests: started")
    first_answer = next(i for i, f in enumerate(session.frames) if f.get("id") == 1)
    assert session.frames.index(logs[0]) < first_answer  # before the response it belongs to
    for ident in (1, 2, 3):
        assert session.result(ident)["structuredContent"]["status"] == "failed"
