"""SEP-2243 `x-mcp-header` on the repository arguments, with a real server process over
HTTP against the sandbox forge:

- every tool taking a repository (`full_name`, or `pr` naming it) declares it as the
  `Mcp-Param-Repository` / `Mcp-Param-Pr` header, in a form the SDK's validator accepts
  (a conforming client drops a tool whose declaration is invalid: none is dropped);
- a real 2026-07-28 SDK client mirrors the header and its calls go through;
- a header that differs from the body, or is missing while the body names a repository,
  is refused with HTTP 400 and -32020 (HeaderMismatch) before anything reaches GitHub:
  the forge's request log is empty and a write's branch does not exist;
- a base64-encoded header that decodes to the body's value is accepted.
"""

from __future__ import annotations

import base64
import http.client
import json
import uuid
from typing import Any
from urllib.parse import urlsplit

import pytest
from mcp import Client
from mcp.shared.inbound import find_invalid_x_mcp_header

from tests.conftest import settled_requests
from tests.stdio_session import modern_meta
from tests.test_tasks_http import Server

HEADER_MISMATCH = -32020


@pytest.fixture(scope="module")
def server(forge, forge_token, tmp_path_factory):
    """One server for the module: each test has a repository or branch of its own, and
    the refusals are checked in the forge's state, which no other test touches."""
    running = Server(tmp_path_factory.mktemp("header"), forge.base_url, forge_token)
    yield running
    running.stop()


@pytest.fixture
def repo(forge):
    name = f"octo-org/header-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(name, {"README.md": "headers\n"})
    return name


def _head(forge, full_name: str, branch: str) -> str | None:
    record = forge.state.repo(*full_name.split("/"))
    assert record is not None
    return record.git.read_ref(f"refs/heads/{branch}")


def _post(
    url: str, method: str, params: dict[str, Any], headers: dict[str, str], path: str = "/mcp"
):
    """A raw 2026-07-28 request: (HTTP status, the JSON-RPC answer)."""
    body = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": method,
        "params": {**params, "_meta": modern_meta()},
    }
    sent = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
        **({"Mcp-Name": params["name"]} if "name" in params else {}),
        **headers,
    }
    connection = http.client.HTTPConnection(urlsplit(url).netloc, timeout=120)
    try:
        connection.request("POST", path, body=json.dumps(body), headers=sent)
        response = connection.getresponse()
        text = response.read().decode()
        status = response.status
    finally:
        connection.close()
    if text.startswith(("event:", "data:", "id:", "retry:", ":")):
        data = [line[5:] for line in text.splitlines() if line.startswith("data:")]
        return status, json.loads([d for d in data if d.strip()][-1])
    return status, json.loads(text)


def _call(
    url: str, name: str, arguments: dict[str, Any], headers: dict[str, str], path: str = "/mcp"
):
    return _post(url, "tools/call", {"name": name, "arguments": arguments}, headers, path)


async def test_every_repository_argument_is_a_valid_header_declaration(server):
    _, listed = _post(server.url, "tools/list", {}, {})
    tools = listed["result"]["tools"]
    with_repo = [t for t in tools if "full_name" in t["inputSchema"].get("properties", {})]
    with_pr = [t for t in tools if "pr" in t["inputSchema"].get("properties", {})]
    assert len(with_repo) > 50 and len(with_pr) > 10
    for tool in with_repo:
        assert tool["inputSchema"]["properties"]["full_name"]["x-mcp-header"] == "Repository"
    for tool in with_pr:
        assert tool["inputSchema"]["properties"]["pr"]["x-mcp-header"] == "Pr"
    invalid = {t["name"]: find_invalid_x_mcp_header(t["inputSchema"]) for t in tools}
    assert {name: why for name, why in invalid.items() if why} == {}
    # and a conforming client, which drops a tool with an invalid declaration, lists all
    async with Client(server.url + "/mcp", mode="2026-07-28") as client:
        seen = await client.list_tools()
    assert sorted(t.name for t in seen.tools) == sorted(t["name"] for t in tools)


async def test_an_sdk_client_mirrors_the_header_and_is_served(server, repo):
    async with Client(server.url + "/mcp", mode="2026-07-28") as client:
        await client.list_tools()  # the client learns the declarations from the listing
        answer = await client.call_tool("get_repository", {"full_name": repo})
    assert not answer.isError, answer
    assert answer.structuredContent["full_name"] == repo


def test_a_matching_header_is_served_and_a_base64_one_too(server, repo):
    status, answer = _call(
        server.url, "get_repository", {"full_name": repo}, {"Mcp-Param-Repository": repo}
    )
    assert status == 200 and answer["result"]["structuredContent"]["full_name"] == repo
    encoded = "=?base64?" + base64.b64encode(repo.encode()).decode() + "?="
    status, answer = _call(
        server.url, "get_repository", {"full_name": repo}, {"Mcp-Param-Repository": encoded}
    )
    assert status == 200 and answer["result"]["structuredContent"]["full_name"] == repo


@pytest.mark.parametrize(
    "headers",
    [
        {"Mcp-Param-Repository": "octo-org/demo-app"},  # another repository
        {},  # missing while the body names one
        {"Mcp-Param-Repository": "=?base64?not base64?="},  # malformed encoding
    ],
    ids=["other", "missing", "malformed"],
)
def test_a_mismatched_header_is_refused_before_any_write(server, forge, repo, headers):
    branch = f"smuggled-{uuid.uuid4().hex[:6]}"
    forge.clear_requests()
    status, answer = _call(
        server.url, "create_branch", {"full_name": repo, "branch": branch}, headers
    )
    assert status == 400, answer
    assert answer["error"]["code"] == HEADER_MISMATCH, answer
    assert "Mcp-Param-Repository" in answer["error"]["message"], answer
    # nothing reached GitHub, and the branch is not there
    assert settled_requests(forge) == []
    assert _head(forge, repo, branch) is None


def test_the_write_lands_once_with_the_right_header(server, forge, repo):
    branch = f"routed-{uuid.uuid4().hex[:6]}"
    status, answer = _call(
        server.url,
        "create_branch",
        {"full_name": repo, "branch": branch},
        {"Mcp-Param-Repository": repo},
    )
    assert status == 200 and not answer["result"]["isError"], answer
    assert _head(forge, repo, branch) == _head(forge, repo, "main")


def test_the_pr_argument_is_checked_too(server):
    pr = "octo-org/demo-app#1"
    status, answer = _call(server.url, "get_pr_overview", {"pr": pr}, {"Mcp-Param-Pr": pr})
    assert status == 200 and answer["result"]["structuredContent"]["number"] == 1, answer
    status, refused = _call(
        server.url, "get_pr_overview", {"pr": pr}, {"Mcp-Param-Pr": "octo-org/other#1"}
    )
    assert status == 400 and refused["error"]["code"] == HEADER_MISMATCH, refused


def test_a_tool_the_client_is_not_shown_is_checked_when_it_carries_a_header(server, forge, repo):
    """A read-only view does not list create_branch: a client could not know to mirror its
    argument, so a call without the header reaches the server (which refuses the write
    itself); one with a header naming another repository is refused as a mismatch."""
    branch = f"unlisted-{uuid.uuid4().hex[:6]}"
    args = {"full_name": repo, "branch": branch}
    status, answer = _call(server.url, "create_branch", args, {}, "/mcp/readonly")
    assert status == 200 and answer["result"]["isError"], answer
    assert answer["result"]["structuredContent"]["error"]["code"] == "write_not_allowed"
    other = {"Mcp-Param-Repository": "octo-org/demo-app"}
    status, refused = _call(server.url, "create_branch", args, other, "/mcp/readonly")
    assert status == 400 and refused["error"]["code"] == HEADER_MISMATCH, refused
    assert _head(forge, repo, branch) is None
