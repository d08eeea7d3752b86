"""Record the server's own opening answers into serving/opening.json (`python main.py
docs`): each handshake revision's `initialize` result, and every tool's listing entry
(output schema included) with its toolset, whether it writes and the module defining
it. The server is spawned over stdio as a client would meet it, with no cache and no
GitHub behind it (the opening asks GitHub nothing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from github_mcp.serving import request_meta
from github_mcp.serving.shipped_opening import FORMAT, PATH, fingerprint

ROOT = Path(__file__).resolve().parents[2]


def recorded_opening() -> dict[str, Any]:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    import github_mcp.tools  # noqa: F401 - registers the built-in tools
    from github_mcp.pipeline.extension_tools import import_extension_tools
    from github_mcp.pipeline.registry import REGISTRY

    import_extension_tools()  # the operator's tools are never shipped
    builtin = {
        name: (spec.toolset.value, spec.write, spec.handler.__module__)
        for name, spec in REGISTRY.items()
        if spec.handler.__module__.startswith("github_mcp.")
    }
    extension = set(REGISTRY) - set(builtin)
    initialize: dict[str, Any] = {}
    listing: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as home:
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            init, tools = _opening(Path(home), version, "all")
            initialize[version] = init
            listing = tools
        # the default view hides toolsets, so it lists find_tools and enable_toolset
        _, catalog = _opening(Path(home), HANDSHAKE_PROTOCOL_VERSIONS[-1], "default")
        discover, modern_list = _modern_opening(Path(home))
    entries = {entry["name"]: entry for entry in [*catalog, *listing]}
    tools_out = [
        {"name": name, "toolset": toolset, "write": write, "module": module,
         "entry": entries[name]}
        for name, (toolset, write, module) in builtin.items()
    ]  # fmt: skip
    others = [e for e in listing if e["name"] not in builtin and e["name"] not in extension]
    return {
        "format": FORMAT,
        "fingerprint": fingerprint(),
        "initialize": initialize,
        "tools": tools_out,
        "other_tools": others,
        "discover": discover,
        "modern_list": {k: v for k, v in modern_list.items() if k != "tools"},
    }


def write_opening() -> Path:
    PATH.write_text(json.dumps(recorded_opening(), indent=1, sort_keys=True) + "\n")
    return PATH


def _opening(
    home: Path, version: str, toolsets: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    env = _environment(home, toolsets)
    frames: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "opening-recorder", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    answers = _converse(env, frames)
    return answers[1]["result"], answers[2]["result"]["tools"]


MODERN_META = {  # a 2026-07-28 request names its revision, client and capabilities
    request_meta.PROTOCOL_VERSION: "2026-07-28",
    request_meta.CLIENT_INFO: {"name": "opening-recorder", "version": "1"},
    request_meta.CLIENT_CAPABILITIES: {},
}


def _modern_opening(home: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The 2026 revision's `server/discover` and `tools/list` results."""
    frames: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": MODERN_META}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": MODERN_META}},
    ]
    answers = _converse(_environment(home, "default"), frames)
    return answers[1]["result"], answers[2]["result"]


def _environment(home: Path, toolsets: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "GITHUB_MCP_FAST_START": "0",
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "GITHUB_MCP_TOOLSETS": toolsets,
        "GITHUB_MCP_OUTPUT_SCHEMAS": "true",
        "GITHUB_MCP_AUDIT_LOG": str(home / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(home / "ws"),
    }


def _converse(env: dict[str, str], frames: list[dict[str, Any]]) -> dict[Any, Any]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), "serve"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[Any, Any] = {}
    try:
        proc.stdin.write(json.dumps(frames[0]).encode() + b"\n")
        proc.stdin.flush()
        answers.update(_read_answer(proc))
        proc.stdin.write(b"".join(json.dumps(f).encode() + b"\n" for f in frames[1:]))
        proc.stdin.flush()
        answers.update(_read_answer(proc))
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return answers


def _read_answer(proc: subprocess.Popen[bytes]) -> dict[Any, Any]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the server stopped before it answered")
        frame = json.loads(line)
        if "id" in frame and "method" not in frame:
            return {frame["id"]: frame}
