"""The opening answers shipped with the package (serving/shipped_opening.py): on a first
start (no cache), `initialize` and `tools/list` come from them, and they are exactly what
the server itself answers, for several settings and clients."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from github_mcp.serving.shipped_opening import PATH, fingerprint
from tests.conftest import ROOT
from tests.perf.test_fast_start import environment
from tests.stdio_session import INITIALIZED, modern_meta, request, run, tool_call

UI_MIME = "text/html;profile=mcp-app"
SETTINGS = {
    "default": {},
    "all toolsets": {"GITHUB_MCP_TOOLSETS": "all"},
    "core": {"GITHUB_MCP_TOOLS": "core"},
    "read-only": {"GITHUB_MCP_READ_ONLY": "true"},
    "output schemas": {
        "GITHUB_MCP_OUTPUT_SCHEMAS": "true",
        "GITHUB_MCP_TOOLSETS": "repos,pull_requests",
    },
}
CLIENTS = {
    "plain": ("2025-06-18", {}),
    "roots and elicitation": ("2025-03-26", {"roots": {"listChanged": True}, "elicitation": {}}),
    "unknown revision": ("2031-01-01", {}),
    "cards": (
        "2025-11-25",
        {
            "extensions": {
                "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}
            }
        },
    ),
}


def opening(env: dict[str, str], version: str, capabilities: dict[str, Any], log: Path) -> Any:
    init = request(
        1,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": {"name": "t", "version": "1"},
        },
    )
    with log.open("wb") as stderr:
        session = run(
            [sys.executable, "main.py", "serve"],
            [[init], [INITIALIZED, request(2, "tools/list")]],
            cwd=ROOT,
            env=env,
            stderr=stderr,
        )
    assert session.returncode == 0
    return session


def offered(log: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return [e for e in lines if e.get("event") == "shipped_opening"]


def test_the_shipped_answers_are_recorded_from_this_code():
    recorded = json.loads(PATH.read_text())
    assert recorded["fingerprint"] == fingerprint(), "stale: run `python main.py docs`"


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_a_first_start_answers_the_opening_as_the_server_does(tmp_path, setting):
    extra = SETTINGS[setting]
    server = opening(
        environment(tmp_path / "a", GITHUB_MCP_FAST_START="0", **extra),
        *CLIENTS["plain"],
        tmp_path / "a.log",
    )
    shipped = opening(environment(tmp_path / "b", **extra), *CLIENTS["plain"], tmp_path / "b.log")
    assert shipped.result(1) == server.result(1)
    assert shipped.result(2) == server.result(2)
    assert offered(tmp_path / "b.log") == [{**offered(tmp_path / "b.log")[0], "listing": True}]
    assert offered(tmp_path / "a.log") == []  # the front was off: nothing was offered
    # the next start answers from the cache the first one wrote: the same again
    again = opening(environment(tmp_path / "b", **extra), *CLIENTS["plain"], tmp_path / "c.log")
    assert again.result(1) == server.result(1) and again.result(2) == server.result(2)


@pytest.mark.parametrize("client", sorted(c for c in CLIENTS if c != "plain"))
def test_other_clients_get_the_servers_own_answers(tmp_path, client):
    version, capabilities = CLIENTS[client]
    server = opening(
        environment(tmp_path / "a", GITHUB_MCP_FAST_START="0"),
        version,
        capabilities,
        tmp_path / "a.log",
    )
    shipped = opening(environment(tmp_path / "b"), version, capabilities, tmp_path / "b.log")
    assert shipped.result(1) == server.result(1)
    assert shipped.result(2) == server.result(2)


@pytest.mark.parametrize("setting", ["default", "core"])
def test_a_2026_client_is_answered_as_the_server_does(tmp_path, setting):
    """No handshake: `server/discover`, then `tools/list`, each naming the revision."""
    steps = [
        [request(1, "server/discover", {"_meta": modern_meta()})],
        [request(2, "tools/list", {"_meta": modern_meta()})],
        [
            request(3, "tools/list", {"_meta": {**modern_meta(), "progressToken": 1}})
        ],  # the server's
    ]
    logs = tmp_path / "a.log", tmp_path / "b.log"
    sessions = []
    for home, log, fast in ((tmp_path / "a", logs[0], "0"), (tmp_path / "b", logs[1], "1")):
        env = environment(home, GITHUB_MCP_FAST_START=fast, **SETTINGS[setting])
        with log.open("wb") as stderr:
            sessions.append(
                run([sys.executable, "main.py", "serve"], steps, cwd=ROOT, env=env, stderr=stderr)
            )
    server, shipped = sessions
    for ident in (1, 2, 3):
        assert shipped.result(ident) == server.result(ident), ident
    assert offered(logs[1]) and offered(logs[1])[0]["listing"] is True


def test_a_first_call_waits_for_its_own_tool_only_and_the_order_holds(forge, forge_token, tmp_path):
    """A call sent with the first tools/list is answered as soon as its tool's module is
    imported (before the others, when it is already waiting); the registry then takes
    the order of an import all at once, so the server's own listing equals the shipped
    one and the one a start without the front gives."""
    from tests.perf.test_direct_calls import environment as with_forge

    read = {"full_name": "octo-org/demo-app", "path": "README.md"}
    steps = [
        [request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "t", "version": "1"}})],
        [INITIALIZED, request(2, "tools/list"), tool_call(3, "get_file_contents", read)],
        [request(4, "tools/list")],  # the server's own answer
    ]  # fmt: skip
    sessions = []
    for name, fast in (("front", "1"), ("server", "0")):
        env = {**with_forge(tmp_path / name, forge, forge_token), "GITHUB_MCP_FAST_START": fast}
        with (tmp_path / f"{name}.log").open("wb") as stderr:
            sessions.append(
                run([sys.executable, "main.py", "serve"], steps, cwd=ROOT, env=env, stderr=stderr)
            )
    front, server = sessions
    assert front.result(3)["structuredContent"]["content"].startswith("#")
    assert front.result(3) == server.result(3)
    assert front.result(2) == front.result(4) == server.result(2) == server.result(4)
    log = [json.loads(x) for x in (tmp_path / "front.log").read_text().splitlines() if x[:1] == "{"]
    registered = [e for e in log if e.get("event") == "tools_registered"]
    every = json.loads(PATH.read_text())["tools"]  # every built-in tool, as recorded
    assert len(registered) == 1 and registered[0]["tools"] == len(every)
    assert set(registered[0].get("ahead") or []) <= {"github_mcp.tools.files"}
