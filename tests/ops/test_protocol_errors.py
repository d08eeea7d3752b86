"""The JSON-RPC code of every error path that is not a tool result: resources, prompts,
completion, unknown methods and malformed params, on the handshake-era protocol
(2025-06-18, resource not found is -32002) and on 2026-07-28 (it is -32602)."""

from __future__ import annotations

import itertools
from typing import Any

import httpx2 as httpx
import mcp_types
import pytest
from fastmcp.exceptions import McpError

from github_mcp.catalog.resources import BLOB_TEMPLATE
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.conftest import mcp_client
from tests.ops.test_client_log import _events

REPO = "octo-org/error-codes"


@pytest.fixture(scope="module")
def repo(forge) -> str:
    forge.seed_repo(REPO, {"README.md": "# codes\n", "src/app.py": "x = 1\n"})
    return REPO


class _Raw:
    def __init__(self, url: str, protocol: str) -> None:
        self.url = url + "/mcp"
        self.ids = itertools.count(1)
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "mcp-protocol-version": protocol,
        }
        params = {
            "protocolVersion": protocol,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        }
        answer = self.send("initialize", params)
        if "mcp-session-id" in answer.headers:
            self.headers["mcp-session-id"] = answer.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        httpx.post(self.url, json=note, headers=self.headers, timeout=30)

    def send(self, method: str, params: Any) -> httpx.Response:
        body = {"jsonrpc": "2.0", "id": next(self.ids), "method": method}
        if params is not None:
            body["params"] = params
        return httpx.post(self.url, json=body, headers=self.headers, timeout=30)

    def error(self, method: str, params: Any) -> dict[str, Any]:
        answer = self.send(method, params)
        [message] = [e for e in _events(answer) if "id" in e]
        assert "error" in message, message
        return message["error"]


CASES = {
    # name: (method, params)
    "missing file via repo://": (
        "resources/read",
        {"uri": f"repo://{REPO}/blob/main/missing.txt"},
    ),
    "directory via repo://": ("resources/read", {"uri": f"repo://{REPO}/blob/main/src"}),
    "bad ref via repo://": ("resources/read", {"uri": f"repo://{REPO}/blob/a..b/src/app.py"}),
    "unknown resource URI": ("resources/read", {"uri": "nothing://here"}),
    "prompt missing argument": ("prompts/get", {"name": "fix_failing_ci", "arguments": {}}),
    "prompt bad argument": ("prompts/get", {"name": "fix_failing_ci", "arguments": {"pr": "x"}}),
    "unknown prompt": ("prompts/get", {"name": "no_such_prompt", "arguments": {}}),
    "unknown method": ("no/such/method", {}),
    "tools/call without a name": ("tools/call", {"arguments": {}}),
    "resources/read without a uri": ("resources/read", {}),
}
HANDSHAKE = {
    "missing file via repo://": -32002,
    "directory via repo://": -32002,
    "bad ref via repo://": -32602,
    "unknown resource URI": -32002,
    "prompt missing argument": -32602,
    "prompt bad argument": -32602,
    "unknown prompt": -32602,
    "unknown method": -32601,
    "tools/call without a name": -32602,
    "resources/read without a uri": -32602,
}
MODERN = HANDSHAKE | {
    "missing file via repo://": -32602,
    "directory via repo://": -32602,
    "unknown resource URI": -32602,
}


@pytest.mark.parametrize(("protocol", "expected"), [("2025-06-18", HANDSHAKE)])
def test_every_path_answers_its_code(repo, make_runtime, protocol, expected):
    rt = make_runtime()
    seen: dict[str, int] = {}
    with serve_in_thread(build_http_app(rt)) as url:
        raw = _Raw(url, protocol)
        for name, (method, params) in CASES.items():
            error = raw.error(method, params)
            seen[name] = error["code"]
            if name == "missing file via repo://":
                assert error["data"]["error"]["code"] == "not_found"
                assert error["data"]["error"]["call_id"]
                assert error["data"]["uri"].endswith("missing.txt")
                assert "{" not in error["message"]  # a sentence, the envelope is in data
            if name == "prompt missing argument":
                assert error["data"]["missing"] == ["pr"]
    assert seen == expected


async def test_modern_protocol_codes_through_the_client(repo, make_runtime):
    async with mcp_client(make_runtime()) as client:
        seen: dict[str, int] = {}
        for name in ("missing file via repo://", "directory via repo://", "bad ref via repo://"):
            with pytest.raises(McpError) as info:
                await client.read_resource(CASES[name][1]["uri"])
            seen[name] = info.value.error.code
        with pytest.raises(McpError) as info:
            await client.read_resource("nothing://here")
        seen["unknown resource URI"] = info.value.error.code
        for name in ("prompt missing argument", "prompt bad argument", "unknown prompt"):
            params = CASES[name][1]
            with pytest.raises(McpError) as info:
                await client.get_prompt(params["name"], params["arguments"])
            seen[name] = info.value.error.code
        # A tool's failure is a result, not a JSON-RPC error (the model reads it).
        result = await client.call_tool("no_such_tool", {}, raise_on_error=False)
        assert result.is_error and result.structured_content["error"]["code"] == "not_found"
        result = await client.call_tool("get_repository", {"bad": 1}, raise_on_error=False)
        assert result.is_error
        assert result.structured_content["error"]["code"] == "invalid_input"
        # Completing an argument nothing completes is an empty answer, not an error.
        template = mcp_types.ResourceTemplateReference(type="ref/resource", uri=BLOB_TEMPLATE)
        empty = await client.complete(template, {"name": "max_bytes", "value": "1"}, None)
        assert empty.values == []
    assert seen == {k: v for k, v in MODERN.items() if k in seen}
