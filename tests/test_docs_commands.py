"""Every shell block of README.md and docs/DEPLOY.md says how it is checked, in its info
string, and the checkable ones are run here the way a new user runs them: from the
checkout, with no GitHub token and no GitHub settings at all.

    ```sh tested           each line runs; CHECKS says what it must print
    ```sh tested-serving   each line starts a server; SERVING_CHECKS says what it answers
    ```sh tested-with: X   the whole block runs against the server of the tested-serving
                           line X, with `<token>` and port 8000 replaced by that server's;
                           WITH_SERVER_CHECKS says what it must print
    ```sh untested: why    not runnable here (a real GitHub token, docker, a public host)

A tested line without a check fails here: a block is not tested by exiting 0.
`github-mcp-controller` is on PATH as a shim that runs the same entry point from this
checkout (`python -m github_mcp`); tests/test_packaging.py runs the installed script.
"""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx2 as httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from tests.conftest import ROOT
from tests.installed import builtin_counts

DOCS = [ROOT / "README.md", ROOT / "docs" / "DEPLOY.md"]
FENCE = re.compile(r"^ *```(sh|bash)([^\n]*)\n(.*?)^ *```", re.M | re.S)
SANDBOX_NOTE = "runs against a fresh sandbox forge"


def blocks() -> list[tuple[str, str, str]]:
    """(file, marker, body) of every shell block."""
    found = []
    for doc in DOCS:
        for match in FENCE.finditer(doc.read_text()):
            found.append((doc.name, match[2].strip(), match[3]))
    return found


def with_server(server: str) -> list[str]:
    """The bodies of the blocks marked `tested-with: <server>`."""
    return [b for _, m, b in blocks() if m == f"tested-with: {server}"]


def commands(body: str) -> list[str]:
    """Logical lines (backslash continuations joined), comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", body)
    lines = [re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def _version() -> str:
    return re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)[1]  # type: ignore[index]


def _version_line(ran: Ran) -> None:
    assert ran.returncode == 0 and ran.stdout == f"github-mcp-controller {_version()}\n"


def _check_report(ran: Ran) -> None:
    registered, listed = builtin_counts()
    report = json.loads(ran.stdout)
    assert ran.returncode == 0
    assert report == {
        "ok": True, "tools": registered, "listed": listed, "write_tools": report["write_tools"],
        "credential_kind": "none", "github_api_url": "https://api.github.com",
    }  # fmt: skip
    assert 30 < report["write_tools"] < registered


def _tool_rows(ran: Ran) -> None:
    registered, listed = builtin_counts()
    rows = json.loads(ran.stdout)
    assert ran.returncode == 0 and len(rows) == registered
    assert sum(r["listed"] for r in rows) == listed
    by_name = {r["name"]: r for r in rows}
    assert by_name["get_pr_overview"] == {
        "name": "get_pr_overview", "toolset": "pull_requests", "write": False, "listed": True,
    }  # fmt: skip
    assert by_name["merge_pull_request"]["write"] is True


def _pretty_repository(ran: Ran) -> None:
    assert ran.returncode == 0 and ran.stdout.startswith("✓ get_repository\n")
    assert "  full_name: octo-org/demo-app\n" in ran.stdout
    assert "  default_branch: main\n" in ran.stdout
    assert SANDBOX_NOTE in ran.stderr  # no token: the forge, and it says so


def _failing_tests(ran: Ran) -> None:
    assert ran.returncode == 0 and ran.stdout.count("\n") == 1  # --compact: one line
    result = json.loads(ran.stdout)
    assert (result["pr"], result["status"]) == (1, "failed")
    assert result["total_failures"] == len(result["failures"]) >= 5
    first = result["failures"][0]
    assert first["test"] == "cart › adds an item" and first["runner"] == "jest"
    assert first["rerun"].startswith("cd web && npx jest ")
    assert SANDBOX_NOTE in ran.stderr


def _environment_checks(ran: Ran) -> None:
    result = json.loads(ran.stdout)
    assert ran.returncode == 0 and result["errors"] == 0
    names = {c["name"]: c["level"] for c in result["checks"]}
    assert names["github_credentials"] == "ok" and names["github_api"] == "ok"
    assert SANDBOX_NOTE in ran.stderr


def _demo(ran: Ran) -> None:
    assert ran.returncode == 0 and "DEMO PASSED" in ran.stdout
    assert re.search(r"15 calls \(1 refused as expected\), [\d,]+ payload bytes", ran.stdout)
    # nothing is left running, so no /status URL is printed, only how to keep one
    assert not re.search(r"https?://\S+/status", ran.stdout), ran.stdout[-2000:]
    assert "(make demo KEEP=1 keeps the server running for /status)" in ran.stdout


CHECKS: dict[str, Callable[[Ran], None]] = {
    "make demo": _demo,
    "github-mcp-controller --version": _version_line,
    "github-mcp-controller check": _check_report,
    "github-mcp-controller tools --json": _tool_rows,
    "github-mcp-controller call get_repository --args "
    '\'{"full_name": "octo-org/demo-app"}\' --pretty': _pretty_repository,
    "github-mcp-controller call get_failing_tests --arg pr=octo-org/demo-app#1 --compact": (
        _failing_tests
    ),
    "github-mcp-controller call validate_environment": _environment_checks,
}

TESTED = [(n, c) for n, m, b in blocks() if m == "tested" for c in commands(b)]
SERVING = [(n, c) for n, m, b in blocks() if m == "tested-serving" for c in commands(b)]


def test_every_shell_block_says_how_it_is_checked():
    unmarked = [
        (name, body.splitlines()[0])
        for name, marker, body in blocks()
        if not (
            marker in ("tested", "tested-serving")
            or marker.startswith(("untested: ", "tested-with: "))
        )
    ]
    assert not unmarked, f"mark these blocks tested / tested-serving / untested: why: {unmarked}"
    assert sum(marker.startswith("tested") for _, marker, _ in blocks()) >= 4


def test_every_tested_line_has_a_check_of_what_it_prints():
    assert sorted({c for _, c in TESTED} - set(CHECKS)) == []
    assert sorted({c for _, c in SERVING} - set(SERVING_CHECKS)) == []
    with_server = [
        (m.removeprefix("tested-with: "), b)
        for _, m, b in blocks()
        if m.startswith("tested-with: ")
    ]
    # each names a documented server line, whose test runs it against that server
    assert with_server and all(server in {c for _, c in SERVING} for server, _ in with_server)
    assert sorted(b for _, b in with_server) == sorted(WITH_SERVER_CHECKS)


@pytest.fixture
def shell_env(tmp_path) -> dict[str, str]:
    """A new user's shell: no GitHub variables, a home of its own, the script on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "github-mcp-controller"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m github_mcp "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    return env | {
        "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path / "home"),
    }


@pytest.mark.parametrize(("doc", "command"), TESTED, ids=[c for _, c in TESTED])
def test_documented_command_prints_what_it_says(doc, command, shell_env):
    had_var = (ROOT / "var").exists()
    done = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, env=shell_env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    ran = Ran(done.returncode, done.stdout, done.stderr)
    try:
        CHECKS[command](ran)
    except (AssertionError, ValueError, KeyError) as exc:
        raise AssertionError(
            f"{doc}: {command} (exit {done.returncode})\n{done.stdout[-2000:]}\n"
            f"{done.stderr[-2000:]}"
        ) from exc
    assert had_var or not (ROOT / "var").exists(), f"{command} made ./var"


# -- servers ------------------------------------------------------------------------------


@dataclass
class Serving:
    base: str  # http://127.0.0.1:<port>
    banner: str  # what it printed
    token: str | None
    line: str = ""  # the documented line that started it


def _banner_token(banner: str) -> str | None:
    found = re.search(r"Bearer token for this run: (\S+)", banner)
    return found[1] if found else None


async def _served_demo(serving: Serving) -> None:
    """The MCP endpoint lists the default tools and reads the demo repository."""
    _registered, listed = builtin_counts()
    transport = StreamableHttpTransport(f"{serving.base}/mcp", auth=serving.token)
    async with Client(transport) as client:
        tools = await client.list_tools()
        repo = await client.call_tool("get_repository", {"full_name": "octo-org/demo-app"})
    assert len(tools) == listed
    assert repo.structured_content["default_branch"] == "main"
    forge = re.search(r"GitHub API: (http://127\.0\.0\.1:\d+)", serving.banner)
    assert forge and repo.structured_content["html_url"].startswith(forge[1])


async def _make_run(serving: Serving) -> None:
    assert f"GitHub MCP Controller is serving at {serving.base}/mcp (bearer token)" in (
        serving.banner
    )
    assert serving.token and f'--header "Authorization: Bearer {serving.token}"' in serving.banner
    await _served_demo(serving)
    for marker_server, body in [
        (m.removeprefix("tested-with: "), b)
        for _, m, b in blocks()
        if m.startswith("tested-with: ")
    ]:
        if marker_server == serving.line:  # run against the server of the line it names
            _run_against(serving, body)


def _readme_client_output(stdout: str) -> None:
    """The README's fastmcp client: the default list's size, then the PR's CI verdict."""
    _registered, listed = builtin_counts()
    lines = stdout.splitlines()
    assert lines[0] == f"{listed} tools"
    status, failures = lines[1].split()
    assert status == "failed" and int(failures) >= 5


def _run_against(serving: Serving, body: str) -> None:
    assert serving.token
    port = serving.base.rsplit(":", 1)[1]
    script = body.replace("<token>", serving.token).replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    done = subprocess.run(
        ["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    WITH_SERVER_CHECKS[body](done.stdout)


async def _apps_preview(serving: Serving) -> None:
    link = re.search(r"Open:\s+(http://\S+/host/index\.html)#token=(\S+)&open=1", serving.banner)
    assert link and link[1].startswith(serving.base)
    page = httpx.get(link[1], timeout=60)
    assert page.status_code == 200 and "<html" in page.text.lower()
    transport = StreamableHttpTransport(f"{serving.base}/mcp", auth=link[2])
    async with Client(transport) as client:
        names = {t.name for t in await client.list_tools()}
    assert {"get_pr_overview", "get_failing_tests", "get_pr_diff"} <= names


async def _plain_serve(serving: Serving) -> None:
    assert serving.token is None  # loopback without tokens: no bearer token needed
    transport = StreamableHttpTransport(f"{serving.base}/mcp")
    async with Client(transport) as client:
        await client.list_tools()  # to learn which arguments go in headers
        repo = await client.call_tool("get_repository", {"full_name": "octo-org/demo-app"})
    assert repo.structured_content["default_branch"] == "main"
    health = httpx.get(f"{serving.base}/healthz", timeout=60).json()
    assert health["github"]["credential_kind"] == "classic"


# blocks run against a documented server, keyed by their text (see the module docstring)
WITH_SERVER_CHECKS: dict[str, Callable[[str], None]] = {}

for _body in with_server("make run"):
    if "from fastmcp import Client" in _body:
        WITH_SERVER_CHECKS[_body] = _readme_client_output

SERVING_CHECKS = {
    "make run": _make_run,
    "make run PORT=9000": _make_run,
    "make apps-preview APPS_PORT=8765": _apps_preview,
    "github-mcp-controller serve --transport http --sandbox-forge always": _plain_serve,
}


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_ready(proc: subprocess.Popen, base: str, ready_path: str) -> None:
    """Until the server answers `ready_path` or exits; timeouts only bound a hang."""
    while proc.poll() is None:
        try:
            if httpx.get(base + ready_path, timeout=60).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        try:
            proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass


@pytest.mark.parametrize(("doc", "command"), SERVING, ids=[c for _, c in SERVING])
async def test_documented_server_comes_up_and_answers(doc, command, shell_env, tmp_path):
    check = SERVING_CHECKS[command]
    line = command
    port = _free_port()
    # the documented port (make run PORT=9000, APPS_PORT=8765) or the default moves
    command = re.sub(r"PORT=\d+", f"PORT={port}", command)
    base = f"http://127.0.0.1:{port}"
    preview = "apps-preview" in command
    log = tmp_path / "banner.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            ["bash", "-c", command], cwd=ROOT, env=shell_env | {"PORT": str(port)},
            stdout=out, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
    try:
        _wait_ready(proc, base, "/host/index.html" if preview else "/readyz")
        assert proc.poll() is None, f"{doc}: {command} exited\n{log.read_text()[-3000:]}"
        banner = log.read_text()
        await check(Serving(base, banner, _banner_token(banner), line))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=120)
