"""MCP tasks over HTTP (the 2026-07-28 `io.modelcontextprotocol/tasks` extension) with a
real server process on the default `memory://` queue, the sandbox forge and real git:

- a long call (run_tests) from a client that declared the extension answers with a task
  while the run is still going (the test holds the run until it has the task), and
  `tasks/get` then inlines the run's real result;
- `tasks/cancel` ends a running command: the process is gone from the process table,
  the task says `cancelled`, and the clone still takes the next command;
- a 2025-11-25 client gets the blocking answer as before, and a task method from a
  request that did not declare the extension is refused with -32021.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import httpx2 as httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp_tasks import call_tool_task

from tests.conftest import ROOT, traversable
from tests.replicas.cluster import free_port, wait_for

HOLD = (
    "import pathlib, time\n\n\n"
    "def test_held():\n"
    "    pathlib.Path('started').write_text('yes')\n"
    "    while not pathlib.Path('release').exists():\n"
    "        time.sleep(0.05)\n\n\n"
    "def test_fails():\n"
    "    assert 1 == 2\n"
)


class Server:
    """`main.py serve --transport http` against the test forge (auto-approved writes)."""

    def __init__(self, tmp: Path, api_url: str, token: str) -> None:
        self.workspaces = traversable(tmp) / "ws"
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
        (tmp / "tmp").mkdir(exist_ok=True)
        env.update(
            TMPDIR=str(tmp / "tmp"),
            GITHUB_API_URL=api_url,
            GITHUB_TOKEN=token,
            GITHUB_MCP_AUTH="none",
            GITHUB_MCP_APPROVAL_MODE="env",
            GITHUB_MCP_AUTO_APPROVE="true",
            GITHUB_MCP_WORKSPACE_DIR=str(self.workspaces),
            # pytest lives in the server's own interpreter, which the sandbox does not show
            GITHUB_MCP_WORKSPACE_SANDBOX="none",
            GITHUB_MCP_AUDIT_LOG=str(tmp / "audit.jsonl"),
            FASTMCP_SHOW_SERVER_BANNER="false",
        )
        self.log = tmp / "server.log"
        argv = [sys.executable, "main.py", "serve", "--transport", "http", "--port", str(self.port)]
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=env, stderr=self.log.open("wb"))
        wait_for(self.healthy, "the server", limit_s=150)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def healthy(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"server exited: {self.log.read_text()[-2000:]}")
        try:
            return httpx.get(self.url + "/readyz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def client(self, **kwargs) -> Client:
        return Client(StreamableHttpTransport(self.url + "/mcp"), timeout=120, **kwargs)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture(scope="module")
def server(forge, forge_token, tmp_path_factory):
    """One server for the module: each test has a repository of its own (so clones of
    its own) and a session or request of its own."""
    running = Server(tmp_path_factory.mktemp("tasks"), forge.base_url, forge_token)
    yield running
    running.stop()


@pytest.fixture
def repo(forge):
    name = f"octo-org/tasks-{uuid.uuid4().hex[:8]}"
    files = {"README.md": "tasks\n", "tests/test_held.py": HOLD}
    forge.seed_repo(name, files, branches={"feature/held": files})
    return name


def _clone_files(server: Server, filename: str) -> list[Path]:
    # where clones live is the workspace manager's business: look for the run's own file
    return [p for p in server.workspaces.rglob(filename) if "/.git/" not in str(p)]


async def _until(predicate, what: str) -> None:
    """Wait for a condition (the bound only ends a hang)."""
    for _ in range(3000):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _processes_with(marker: str) -> list[str]:
    found = subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True)
    return [line for line in found.stdout.splitlines() if "pgrep" not in line]


@pytest.mark.timeout(300)
async def test_run_tests_answers_with_a_task_and_get_inlines_the_result(server, repo):
    args = {
        "full_name": repo,
        "ref": "feature/held",
        "test_command": f"{sys.executable} -m pytest -q -p no:cacheprovider",
        "use_venv": False,
    }
    async with server.client() as client:
        # the clone first, so the run's own files are the only ones that appear later
        await client.call_tool("ensure_workspace_clone", {"full_name": repo, "ref": "feature/held"})
        task = await call_tool_task(client, "run_tests", args)
        created = task.create_result
        assert created.status == "working" and created.task_id
        # the answer came while the run waits for the release file this test has not
        # written yet: the call did not hold the request for the run
        assert not _clone_files(server, "release")
        await _until(lambda: _clone_files(server, "started"), "the run to start")
        status = await task.status()
        assert status.status == "working", status
        clone = _clone_files(server, "started")[0].parent
        (clone / "release").write_text("go")
        os.chmod(clone / "release", 0o644)
        final = await task.wait(timeout=240)
        assert final.status == "completed", final
        result = final.result or {}
        run = result["structuredContent"]
        assert run["passed"] == 1 and run["failed"] == 1, run
        assert run["failing"][0]["name"].endswith("test_fails"), run
        # and the handle's own result agrees with tasks/get
        again = await task.status()
        assert again.status == "completed" and again.result == final.result


@pytest.mark.timeout(300)
async def test_cancel_ends_the_command_and_leaves_the_clone_usable(server, repo):
    marker = uuid.uuid4().hex
    command = f"python3 -c 'import time; time.sleep(30)' {marker}"
    async with server.client() as client:
        task = await call_tool_task(
            client,
            "terminal_command",
            {"full_name": repo, "ref": "feature/held", "command": command},
        )
        await _until(lambda: _processes_with(marker), "the command to start")
        await task.cancel()
        final = await task.wait(timeout=120)
        assert final.status == "cancelled", final
        await _until(lambda: not _processes_with(marker), "the command to end")
        # the workspace is consistent: the next command runs in the same clone
        after = await client.call_tool(
            "terminal_command",
            {"full_name": repo, "ref": "feature/held", "command": "git status --porcelain"},
        )
        assert after.structured_content["exit_code"] == 0, after.structured_content
        assert after.structured_content["stdout"] == "", after.structured_content


@pytest.mark.timeout(300)
async def test_a_2025_client_gets_the_blocking_answer(server, repo):
    async with server.client(mode="legacy") as client:
        result = await client.call_tool(
            "terminal_command",
            {"full_name": repo, "ref": "feature/held", "command": "echo blocking"},
        )
    assert result.structured_content["stdout"] == "blocking\n"


def _post_2026(url: str, method: str, params: dict, headers: dict | None = None) -> dict:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    sent = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
        **(headers or {}),
    }
    return raw_post(url, body, sent)


def raw_post(url: str, body: dict, headers: dict, timeout: float = 60) -> dict:
    """One JSON-RPC POST to /mcp; its answer, plain JSON or the last frame of an event
    stream. http.client sends header values as given (httpx refuses surrounding
    whitespace)."""
    connection = http.client.HTTPConnection(urlsplit(url).netloc, timeout=timeout)
    try:
        connection.request("POST", "/mcp", body=json.dumps(body), headers=headers)
        text = connection.getresponse().read().decode()
    finally:
        connection.close()
    if text.startswith(("event:", "data:", "id:", "retry:")):
        data = [line[5:] for line in text.splitlines() if line.startswith("data:")]
        return json.loads([d for d in data if d.strip()][-1])
    return json.loads(text)


async def test_task_methods_need_the_extension_declared(server):
    answer = _post_2026(server.url, "tasks/get", {"taskId": "t-1"}, {"Mcp-Name": "t-1"})
    assert answer["error"]["code"] == -32021, answer
    listed = _post_2026(server.url, "server/discover", {})
    extensions = listed["result"]["capabilities"].get("extensions", {})
    assert "io.modelcontextprotocol/tasks" in extensions, listed


async def test_routing_headers_with_surrounding_whitespace_are_accepted(server):
    """SEP-2243: the optional whitespace around a field value is not part of it."""
    padded = {"Mcp-Name": "  get_server_config\t", "Mcp-Method": " tools/call "}
    answer = _post_2026(
        server.url, "tools/call", {"name": "get_server_config", "arguments": {}}, padded
    )
    assert "error" not in answer, answer
    assert answer["result"]["structuredContent"]["version"], answer
    mismatched = {"Mcp-Name": "  get_me  "}
    refused = _post_2026(
        server.url, "tools/call", {"name": "get_server_config", "arguments": {}}, mismatched
    )
    assert refused["error"]["code"] == -32020, refused
