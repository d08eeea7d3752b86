"""Log messages to the client (`notifications/message`): what a long call is doing,
warnings and errors, honouring `logging/setLevel`, never carrying a secret."""

from __future__ import annotations

import itertools
import json
from typing import Any

import httpx2 as httpx
import pytest
from fastmcp import Client

from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app, build_mcp

REPO = "octo-org/client-log"
BIG = "".join(f"line {i}\n" for i in range(2000))


@pytest.fixture(scope="module")
def seeded(forge) -> str:
    forge.seed_repo(REPO, {"big.txt": BIG, "small.txt": "hi\n"})
    return REPO


async def _collect(rt, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Messages a current-protocol client receives: fastmcp's client asks for every level
    (debug) in each request's _meta, having no logging/setLevel to ask with."""
    received: list[Any] = []

    async def handler(message: Any) -> None:
        received.append(message)

    async with Client(build_mcp(rt), log_handler=handler) as client:
        for name, args in calls:
            await client.call_tool(name, args, raise_on_error=False)
    return received


async def test_truncation_is_a_warning_with_the_call_id(seeded, forge, make_runtime):
    messages = await _collect(
        make_runtime(),
        [("get_file_contents", {"full_name": REPO, "path": "big.txt", "max_bytes": 200})],
    )
    warnings = [m for m in messages if m.level == "warning"]
    assert warnings and "truncated" in warnings[0].data["msg"]
    assert warnings[0].logger == "github_mcp"
    assert len(warnings[0].data["extra"]["call_id"]) == 16
    # fastmcp's client asks for debug on each request (_meta logLevel), and gets it
    debug = [m for m in messages if m.level == "debug"]
    assert any("started" in m.data["msg"] for m in debug), [m.data for m in debug]


async def test_retries_are_reported_and_errors_name_their_code(
    seeded, forge, forge_token, make_runtime
):
    forge.add_fault(path=f"/repos/{REPO}$", method="GET", status=502, times=1)
    forge.add_fault(
        path="/repos/octo-org/client-log/contents/missing.txt",
        method="GET",
        status=404,
        body={"message": f"Not Found (token {forge_token})"},
        times=None,
    )
    messages = await _collect(
        make_runtime(),
        [
            ("get_repository", {"full_name": REPO}),
            ("get_file_contents", {"full_name": REPO, "path": "missing.txt"}),
        ],
    )
    texts = [(m.level, m.data["msg"]) for m in messages]
    assert any(level == "info" and "retrying" in text and "502" in text for level, text in texts)
    errors = [text for level, text in texts if level == "error"]
    assert errors and "get_file_contents failed: not_found" in errors[-1]
    assert all(forge_token not in json.dumps(m.data) for m in messages)


def _events(answer: httpx.Response) -> list[dict[str, Any]]:
    if not answer.headers.get("content-type", "").startswith("text/event-stream"):
        return [answer.json()]
    return [
        json.loads(line[5:].strip())
        for line in answer.text.splitlines()
        if line.startswith("data:") and line[5:].strip()
    ]


class _Session:
    """A 2025-06-18 client by hand: the handshake era, where logging/setLevel exists."""

    def __init__(self, url: str) -> None:
        self.url = url + "/mcp"
        self.ids = itertools.count(1)
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "mcp-protocol-version": "2025-06-18",
        }
        params = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        }
        answer = self.request("initialize", params)
        self.headers["mcp-session-id"] = answer.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        httpx.post(self.url, json=note, headers=self.headers, timeout=30)

    def request(self, method: str, params: dict[str, Any]) -> httpx.Response:
        body = {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}
        return httpx.post(self.url, json=body, headers=self.headers, timeout=30)

    def logs_of(self, tool: str, args: dict[str, Any]) -> list[tuple[str, str]]:
        answer = self.request("tools/call", {"name": tool, "arguments": args})
        return [
            (e["params"]["level"], e["params"]["data"]["msg"])
            for e in _events(answer)
            if e.get("method") == "notifications/message"
        ]


async def test_set_level_filters_what_the_client_receives(seeded, forge, make_runtime):
    rt = make_runtime()
    truncating = {"full_name": REPO, "path": "big.txt", "max_bytes": 200}
    failing = {"full_name": REPO, "path": "nothing-here.txt"}
    with serve_in_thread(build_http_app(rt)) as url:
        session = _Session(url)
        # A client that never set a level gets info and above, never debug.
        unasked = session.logs_of("get_file_contents", truncating)
        assert "warning" in {level for level, _ in unasked}
        assert "debug" not in {level for level, _ in unasked}

        assert session.request("logging/setLevel", {"level": "debug"}).status_code == 200
        everything = session.logs_of("get_file_contents", truncating)
        assert {"debug", "warning"} <= {level for level, _ in everything}

        assert session.request("logging/setLevel", {"level": "warning"}).status_code == 200
        warned = session.logs_of("get_file_contents", truncating)
        assert [level for level, _ in warned] == ["warning"]

        assert session.request("logging/setLevel", {"level": "error"}).status_code == 200
        assert session.logs_of("get_file_contents", truncating) == []
        failed = session.logs_of("get_file_contents", failing)
        assert [level for level, _ in failed] == ["error"]
        assert "not_found" in failed[0][1]
