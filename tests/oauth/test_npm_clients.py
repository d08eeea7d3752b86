"""Real third-party OAuth clients, from npm, end to end through a real browser sign-in:
the TypeScript MCP SDK's client (`@modelcontextprotocol/sdk`) and `mcp-remote`. Each
signs alice in on the forge's pages in headless Chromium, calls a tool, refreshes its
tokens and has them revoked. Without node or npm these tests fail: run
`bash tests/install_system_packages.sh`."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.conftest import call_tool
from tests.oauth.flow import PASSWORDS, github_revocations, mcp_status
from tests.oauth.signin import CLIENT_REDIRECT, sign_in_in_browser

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
SDK_DIR = ROOT / ".cache/npm-mcp-sdk/node_modules/@modelcontextprotocol/sdk"
MCP_REMOTE = ROOT / ".cache/npm-mcp-remote/node_modules/mcp-remote/dist/proxy.js"


@pytest.fixture(scope="module")
def npm_clients() -> None:
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed: run `bash tests/install_system_packages.sh`")
    fetched = subprocess.run(
        ["bash", str(HERE / "fetch_mcp_clients.sh")], capture_output=True, text=True, timeout=300
    )
    assert fetched.returncode == 0, fetched.stderr


@pytest.fixture(scope="module")
def world(forge):
    for login, password in PASSWORDS.items():
        forge.add_user(login, password=password)
    return forge


# -- the TypeScript SDK -------------------------------------------------------------------


async def test_typescript_sdk_client_signs_in_calls_refreshes_and_revokes(
    npm_clients, world, oauth_server
):
    server = oauth_server()
    node = await asyncio.create_subprocess_exec(
        "node",
        str(HERE / "ts_sdk_client.mjs"),
        str(SDK_DIR),
        server.mcp_url,
        CLIENT_REDIRECT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert node.stdin is not None and node.stdout is not None

    async def event() -> dict[str, Any]:
        assert node.stdout is not None
        line = await asyncio.wait_for(node.stdout.readline(), 60)
        if not line:
            assert node.stderr is not None
            pytest.fail(f"the SDK client stopped: {(await node.stderr.read()).decode()[-2000:]}")
        return json.loads(line)

    try:
        authorize = await event()
        assert authorize["event"] == "authorize"
        result = await sign_in_in_browser(authorize["url"], "alice", PASSWORDS["alice"])
        assert result.redirect, result.refused_text
        node.stdin.write(json.dumps({"callback": result.redirect}).encode() + b"\n")
        await node.stdin.drain()
        signed_in = await event()
        assert signed_in["tokens"]["expires_in"] == 3600
        me = await event()
        assert me["result"]["login"] == "alice", me
        assert me["result"]["credential_kind"] == "user_to_server"
        refreshed = await event()
        assert refreshed["outcome"] == "AUTHORIZED"
        assert refreshed["after"]["refresh_token"] != refreshed["before"]["refresh_token"]
        assert refreshed["after"]["access_token"] != refreshed["before"]["access_token"]
        again = await event()
        assert again["result"]["login"] == "alice"
        world.clear_requests()  # before the client revokes: it waits for this line
        node.stdin.write(b'{"revoke": true}\n')
        await node.stdin.drain()
        revoked = await event()
        assert revoked == {"event": "revoked", "status": 200, "mcp_after": 401}
        assert await asyncio.wait_for(node.wait(), 30) == 0
    finally:
        if node.returncode is None:
            node.kill()
            await node.wait()
    # the old refresh token was spent by the SDK's refresh; the grant ended at GitHub too
    assert github_revocations(world) == [204]
    assert mcp_status(server.base_url, refreshed["before"]["access_token"]) == 401


# -- mcp-remote ---------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _url_recorder(directory: Path, record: Path) -> dict[str, str]:
    """An environment in which opening a browser writes the URL to `record` instead (the
    `open` package runs xdg-open, which honours $BROWSER)."""
    directory.mkdir(parents=True, exist_ok=True)
    opener = directory / "xdg-open"
    opener.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> {record}\n')
    opener.chmod(0o755)
    return {"BROWSER": str(opener), "PATH": f"{directory}:{os.environ.get('PATH', '')}"}


def _mcp_remote(server, port: int, config: Path, env: dict[str, str]) -> Any:
    from fastmcp.client.transports import StdioTransport

    return StdioTransport(
        command="node",
        args=[str(MCP_REMOTE), server.mcp_url, str(port), "--host", "127.0.0.1"],
        env={**os.environ, **env, "MCP_REMOTE_CONFIG_DIR": str(config)},
        keep_alive=False,
    )


async def _sign_in_when_asked(record: Path, port: int) -> str:
    """Wait for mcp-remote to open the browser, then sign alice in; the browser ends on
    mcp-remote's own callback, which completes its flow."""
    for _ in range(600):
        if record.exists() and record.read_text().strip():
            break
        await asyncio.sleep(0.1)
    url = record.read_text().split()[0]
    result = await sign_in_in_browser(
        url, "alice", PASSWORDS["alice"], redirect_prefix=f"http://127.0.0.1:{port}/"
    )
    assert result.redirect, result.refused_text
    return result.redirect


def _tokens_file(config: Path) -> Path:
    found = list(config.rglob("*_tokens.json")) + list(config.rglob("tokens.json"))
    assert found, sorted(p.name for p in config.rglob("*"))
    return found[0]


async def test_mcp_remote_signs_in_calls_refreshes_and_revokes(
    npm_clients, world, oauth_server, tmp_path
):
    from fastmcp import Client

    server = oauth_server()
    port = _free_port()
    record = tmp_path / "opened.txt"
    env = _url_recorder(tmp_path / "bin", record)
    config = tmp_path / "mcp-auth"

    signer = asyncio.create_task(_sign_in_when_asked(record, port))
    async with Client(_mcp_remote(server, port, config, env)) as client:
        callback = await signer
        is_error, me = await call_tool(client, "get_me")
    assert callback.startswith(f"http://127.0.0.1:{port}/")
    assert not is_error, me
    assert me["login"] == "alice" and me["credential_kind"] == "user_to_server"

    # refresh: the stored access token goes stale; the next run must refresh, not sign in
    tokens_path = _tokens_file(config)
    first = json.loads(tokens_path.read_text())
    tokens_path.write_text(json.dumps({**first, "access_token": "stale." + first["access_token"]}))
    record.write_text("")
    server.recorder.exchanges.clear()
    async with Client(_mcp_remote(server, port, config, env)) as client:
        is_error, me = await call_tool(client, "get_me")
    assert not is_error and me["login"] == "alice", me
    assert record.read_text() == ""  # no browser this time
    paths = [e.path for e in server.recorder.exchanges]
    assert "/token" in paths and "/authorize" not in paths, paths
    second = json.loads(tokens_path.read_text())
    assert second["refresh_token"] != first["refresh_token"]

    # revoke what mcp-remote holds, as a public client: client_id alone
    client_info = json.loads(next(config.rglob("*client_info.json")).read_text())
    world.clear_requests()
    revoked = httpx.post(
        server.base_url + "/revoke",
        data={"token": second["refresh_token"], "client_id": client_info["client_id"]},
    )
    assert revoked.status_code == 200, revoked.text
    assert github_revocations(world) == [204]
    assert mcp_status(server.base_url, second["access_token"]) == 401
