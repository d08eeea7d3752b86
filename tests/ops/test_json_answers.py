"""Each request POST is answered with one JSON body unless its call needs a stream
(serving/json_answers): a plain read is `application/json`; a call that sends a log
message, asks the human (elicitation) or runs long is `text/event-stream`, and such a
stream still resumes with Last-Event-ID. Driven by real MCP clients over real HTTP; the
wire's content types are read from the client's own HTTP responses."""

from __future__ import annotations

import json
from typing import Any

import httpx2 as httpx
import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StreamableHttpTransport

from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.approvals.conftest import branch_head
from tests.conftest import call_tool, error_code

TOKEN = "json-answers-token-0123456789"
REPO = "octo-org/json-answers"
BIG = "".join(f"line {i}\n" for i in range(2000))
SSE = "text/event-stream"
JSON = "application/json"


@pytest.fixture(scope="module")
def seeded(forge) -> str:
    forge.seed_repo(REPO, {"big.txt": BIG, "README.md": "# json answers\n"})
    return REPO


class Wire:
    """The content type of each tools/call POST's answer, as the client's HTTP saw it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def _seen(self, response: httpx.Response) -> None:
        request = response.request
        if request.method == "POST" and b'"tools/call"' in request.content:
            self.calls.append(response.headers.get("content-type", "").split(";")[0])

    def client(self, **kwargs: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(**kwargs, event_hooks={"response": [self._seen]})


def _client(url: str, wire: Wire, **kwargs: Any) -> Client:
    transport = StreamableHttpTransport(url + "/mcp", auth=TOKEN, httpx_client_factory=wire.client)
    return Client(transport, mode="legacy", **kwargs)


@pytest.mark.parametrize("stateless", [False, True], ids=["sessions", "stateless"])
async def test_a_read_answers_in_json_and_a_call_that_logs_streams(seeded, make_runtime, stateless):
    logs: list[Any] = []

    async def on_log(message: Any) -> None:
        logs.append(message)

    wire = Wire()
    app = build_http_app(make_runtime(auth_tokens=TOKEN), stateless=stateless)
    with serve_in_thread(app) as url:
        async with _client(url, wire, log_handler=on_log) as client:
            is_error, read = await call_tool(
                client, "get_file_contents", {"full_name": REPO, "path": "README.md"}
            )
            assert not is_error and read["content"] == "# json answers\n"
            assert logs == []
            args = {"full_name": REPO, "path": "big.txt", "max_bytes": 200}
            is_error, cut = await call_tool(client, "get_file_contents", args)
            assert not is_error and cut["content"] == BIG[:200]
    assert wire.calls == [JSON, SSE]
    assert [m.level for m in logs] == ["warning"] and "truncated" in logs[0].data["msg"]


async def test_an_approval_asked_during_a_call_streams(seeded, forge, make_runtime):
    """The elicitation is a server-to-client request inside the call: its stream carries
    it, the human's answer comes back, and the call ends on it (here: declined)."""
    asked: list[Any] = []

    async def human(message: str, response_type: Any, params: Any, context: Any) -> Any:
        asked.append(params)
        return ElicitResult(action="decline")

    head = branch_head(forge, REPO)
    wire = Wire()
    app = build_http_app(make_runtime(auth_tokens=TOKEN))
    write = {
        "full_name": REPO,
        "branch": "main",
        "message": "Update the README",
        "files": [{"path": "README.md", "content": "changed\n"}],
    }
    with serve_in_thread(app) as url:
        async with _client(url, wire, elicitation_handler=human) as client:
            is_error, refused = await call_tool(client, "commit_files", write)
            assert is_error and error_code(refused) == "write_not_allowed", refused
            _, after = await call_tool(
                client, "get_file_contents", {"full_name": REPO, "path": "README.md"}
            )
    assert len(asked) == 1
    assert wire.calls == [SSE, JSON]
    assert after["content"] == "# json answers\n"
    assert branch_head(forge, REPO) == head


def _events(text: str) -> list[dict[str, str]]:
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            name, _, value = line.partition(":")
            fields[name] = value.strip()
        if fields.keys() & {"data", "id"}:
            events.append(fields)
    return events


def _resume(url: str, headers: dict[str, str], last_event_id: str) -> list[dict[str, Any]]:
    """The messages a GET with Last-Event-ID replays, up to the call's answer (the
    resumed stream itself stays open for anything the session sends later)."""
    messages: list[dict[str, Any]] = []
    resume = {**headers, "Last-Event-ID": last_event_id}
    with httpx.stream("GET", url, headers=resume, timeout=60) as answer:
        for line in answer.iter_lines():
            if line.startswith("data:") and line[5:].strip():
                messages.append(json.loads(line[5:]))
                if "result" in messages[-1] or "error" in messages[-1]:
                    break
    return messages


def _post(url: str, headers: dict[str, str], body: dict[str, Any]) -> httpx.Response:
    return httpx.post(url, json=body, headers=headers, timeout=60)


def _session(url: str) -> dict[str, str]:
    headers = {
        "Authorization": f"Bearer {TOKEN}",
        "Accept": f"{JSON}, {SSE}",
        "Content-Type": JSON,
        "mcp-protocol-version": "2025-11-25",
    }
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }
    opened = _post(
        url, headers, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}
    )
    headers["mcp-session-id"] = opened.headers["mcp-session-id"]
    _post(url, headers, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return headers


def test_a_stream_opened_by_a_log_message_resumes_after_it(seeded, make_runtime):
    """The stream's first event is the warning, with its id and the retry interval; a
    client that lost the stream after it gets the answer again with Last-Event-ID."""
    app = build_http_app(make_runtime(auth_tokens=TOKEN, stream_retry_ms=2500))
    with serve_in_thread(app) as url:
        mcp = url + "/mcp"
        headers = _session(mcp)
        args = {"full_name": REPO, "path": "big.txt", "max_bytes": 200}
        call = {"name": "get_file_contents", "arguments": args}
        answer = _post(
            mcp, headers, {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call}
        )
        assert answer.headers["content-type"].startswith(SSE)
        first, *rest = _events(answer.text)
        assert json.loads(first["data"])["method"] == "notifications/message"
        assert first["id"] and first["retry"] == "2500"
        assert [json.loads(e["data"]).get("id") for e in rest] == [7]
        replayed = _resume(mcp, headers, first["id"])
        assert [m.get("id") for m in replayed] == [7]
        assert replayed[0]["result"]["structuredContent"]["content"] == BIG[:200]
        # stored before it, unsent: the priming event that records whom the stream is for
        # (a replica resuming it reads that); this store numbers events one by one
        tag, _, seq = first["id"].rpartition(".")
        whole = _resume(mcp, headers, f"{tag}.{int(seq) - 1}")
        assert [m.get("method", m.get("id")) for m in whole] == ["notifications/message", 7]


def test_a_call_silent_past_the_threshold_streams_from_a_priming_event(seeded, forge, make_runtime):
    """A slow call (the forge answers after 1.5 s, past STREAM_AFTER_S) gets the stream it
    always had: the priming event first, then its answer, resumable from the priming id."""
    app = build_http_app(make_runtime(auth_tokens=TOKEN))
    with serve_in_thread(app) as url:
        mcp = url + "/mcp"
        headers = _session(mcp)
        call = {"name": "get_file_contents", "arguments": {"full_name": REPO, "path": "big.txt"}}
        forge.set_latency(1500)
        try:
            answer = _post(
                mcp, headers, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}
            )
        finally:
            forge.set_latency(0)
        assert answer.headers["content-type"].startswith(SSE)
        priming, *rest = _events(answer.text)
        assert priming["id"] and priming.get("data", "") == ""
        assert [json.loads(e["data"]).get("id") for e in rest] == [3]
        replayed = _resume(mcp, headers, priming["id"])
        assert [m.get("id") for m in replayed] == [3]
