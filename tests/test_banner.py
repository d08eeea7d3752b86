"""`make run`: HOST and PORT are honoured, a taken port is reported before anything else is
printed, and every client block in the banner parses and, used as printed, reaches the
server (JSON blocks validated, the bearer header taken from the block itself)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx2 as httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from github_mcp.cli.banner import HEADER, client_setups
from tests.conftest import ROOT


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    return env | {
        "HOME": str(tmp_path),
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
    }


def parse_blocks(banner: str) -> dict[str, tuple[str, str]]:
    """{client: (where, body)} from the `── client: where` blocks."""
    blocks: dict[str, tuple[str, str]] = {}
    for match in re.finditer(rf"^{HEADER}([^:\n]+): (.*)\n((?:.+\n)+)", banner, re.M):
        blocks[match[1]] = (match[2], match[3].rstrip("\n"))
    return blocks


def _wait_listening(port: int) -> None:
    """The banner comes just before the server binds; wait for it to accept."""
    for _ in range(600):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


@pytest.fixture
def make_run(tmp_path):
    port = _free_port()
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "run", f"PORT={port}", "HOST=127.0.0.1"],
        cwd=ROOT, env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    assert proc.stderr is not None
    banner = ""
    for line in proc.stderr:
        banner += line
        if line.startswith("Press Ctrl-C"):
            break
    _wait_listening(port)
    try:
        yield port, banner
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)


async def _tools_with(url: str, headers: dict[str, str]) -> set[str]:
    async with Client(StreamableHttpTransport(url, headers=headers)) as client:
        return {t.name for t in await client.list_tools()}


async def test_make_run_prints_a_working_block_for_every_client(make_run):
    port, banner = make_run
    url = f"http://127.0.0.1:{port}/mcp"
    assert f"serving at {url}" in banner, banner[-3000:]
    token = re.search(r"Bearer token for this run: (\S+)", banner)
    assert token, banner[-3000:]
    blocks = parse_blocks(banner)
    assert set(blocks) == {"Claude Code", "Claude Desktop", "VS Code", "Cursor",
                           "ChatGPT and claude.ai"}  # fmt: skip

    argv = shlex.split(blocks["Claude Code"][1])
    assert argv[:6] == ["claude", "mcp", "add", "--transport", "http", "github"]
    assert argv[6] == url and argv[7] == "--header"
    name, _, value = argv[8].partition(": ")
    assert "get_file_contents" in await _tools_with(argv[6], {name: value})

    desktop = json.loads(blocks["Claude Desktop"][1])["mcpServers"]["github"]
    assert desktop["command"] == "npx" and isinstance(desktop["args"], list)
    assert not [a for a in desktop["args"] if not isinstance(a, str) or " " in a]  # Windows
    header = desktop["args"][desktop["args"].index("--header") + 1]
    for key, val in desktop["env"].items():
        header = header.replace(f"${{{key}}}", val)
    assert desktop["args"][desktop["args"].index("mcp-remote") + 1] == url
    name, _, value = header.partition(":")
    assert "get_file_contents" in await _tools_with(url, {name: value.strip()})

    vscode = json.loads(blocks["VS Code"][1])["servers"]["github"]
    assert vscode["type"] == "http"
    assert "get_file_contents" in await _tools_with(vscode["url"], vscode["headers"])

    cursor = json.loads(blocks["Cursor"][1])["mcpServers"]["github"]
    assert "get_file_contents" in await _tools_with(cursor["url"], cursor["headers"])

    assert "AUTH=oauth" in blocks["ChatGPT and claude.ai"][1]


async def test_a_header_from_another_run_is_refused(make_run):
    """The blocks' token is what opens the server: a made-up one does not."""
    port, _banner = make_run
    async with httpx.AsyncClient(timeout=60) as http:  # a busy machine may still be building
        answer = await http.post(
            f"http://127.0.0.1:{port}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Authorization": "Bearer nope", "Accept": "application/json"},
        )
    assert answer.status_code == 401


def test_a_taken_port_is_reported_before_anything_is_printed(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            ["make", "--no-print-directory", "run", f"PORT={port}"],
            cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode != 0
    assert f"port {port} on 127.0.0.1 is already in use" in done.stderr
    assert re.search(r"Try: make run PORT=\d+", done.stderr)
    for premature in ("Bearer token", "serving at", "sandbox_forge_started", HEADER):
        assert premature not in done.stderr + done.stdout


def test_oauth_blocks_carry_no_token_and_send_connectors_to_the_public_url():
    url = "https://mcp.example.org/mcp"
    setups = {s.client: s for s in client_setups(url, "operator-only-token", oauth=True)}
    for setup in setups.values():
        assert "operator-only-token" not in setup.body
        if setup.kind == "json":
            json.loads(setup.body)
    desktop = json.loads(setups["Claude Desktop"].body)["mcpServers"]["github"]
    assert desktop["args"] == ["-y", "mcp-remote", url] and "env" not in desktop
    assert url in setups["ChatGPT and claude.ai"].body
    assert shlex.split(setups["Claude Code"].body)[-1] == url
