"""Tools found on demand (GITHUB_MCP_TOOLS=core) and a small tools/list, over stdio as a
client sees them: the core list, enable_toolset's list_changed notification, every tool
reachable through find_tools, the full list for clients that do not follow list changes,
and the size targets."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.conftest import ROOT
from tests.perf.test_fast_start import environment, serve

FOLLOWS = {"experimental": {"tools": {"listChanged": True}}}


def opening(capabilities: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": capabilities,
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]


def call(ident: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def answers(frames: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {f["id"]: f for f in frames if "id" in f and "method" not in f}


def size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")).encode())


def model_facing(tools: list[dict[str, Any]]) -> int:
    return sum(size({k: t[k] for k in ("name", "description", "inputSchema")}) for t in tools)


def one_at_a_time(env: dict[str, str], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each request sent once the one before it is answered, as a client waits for
    enable_toolset before it lists again (requests are served concurrently)."""
    proc = subprocess.Popen(
        [sys.executable, "main.py", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
    )
    assert proc.stdin and proc.stdout
    frames: list[dict[str, Any]] = []
    for message in messages:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        while "id" in message:
            frames.append(json.loads(proc.stdout.readline()))
            if frames[-1].get("id") == message["id"] and "method" not in frames[-1]:
                break
    proc.stdin.close()
    frames += [json.loads(line) for line in proc.stdout.read().splitlines() if line.strip()]
    assert proc.wait(timeout=30) == 0
    return frames


def test_core_list_grows_by_toolset_with_a_list_changed_notification(tmp_path):
    env = environment(tmp_path, GITHUB_MCP_TOOLS="core")
    messages = [
        *opening(FOLLOWS),
        call(3, "enable_toolset", {"name": "actions"}),
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
        call(5, "enable_toolset", {"name": "actions"}),
        call(6, "enable_toolset", {"name": "nonsense"}),
    ]
    frames = one_at_a_time(env, messages)
    got = answers(frames)
    core = {t["name"] for t in got[2]["result"]["tools"]}
    assert {"get_file_contents", "fetch_files", "find_tools", "enable_toolset"} <= core
    assert "list_workflow_runs" not in core and len(core) <= 20
    enabled = got[3]["result"]["structuredContent"]
    assert enabled["list_changed"] is True and "list_workflow_runs" in enabled["tools"]
    changed = [f for f in frames if f.get("method") == "notifications/tools/list_changed"]
    assert len(changed) == 1  # the second enable of the same toolset changes nothing
    after = {t["name"] for t in got[4]["result"]["tools"]}
    assert after == core | set(enabled["tools"])
    assert got[5]["result"]["structuredContent"]["list_changed"] is False
    assert got[6]["result"]["isError"] is True
    assert model_facing(got[2]["result"]["tools"]) <= 12 * 1024


def test_every_tool_is_reachable_through_find_tools(tmp_path):
    full = answers(serve(environment(tmp_path), opening({})))[2]["result"]["tools"]
    names = sorted(t["name"] for t in full)
    env = environment(tmp_path, GITHUB_MCP_TOOLS="core")
    queries = [call(10 + i, "find_tools", {"query": n, "limit": 3}) for i, n in enumerate(names)]
    got = answers(serve(env, [*opening(FOLLOWS), *queries]))
    for i, name in enumerate(names):
        found = got[10 + i]["result"]["structuredContent"]["tools"]
        assert name in [f["name"] for f in found], (name, found)
    assert "find_tools" not in names and "enable_toolset" not in names  # full list: not needed


def test_clients_that_do_not_follow_list_changes_get_every_tool(tmp_path):
    core_env = environment(tmp_path, GITHUB_MCP_TOOLS="core")
    plain = answers(serve(core_env, opening({})))[2]["result"]["tools"]
    full = answers(serve(environment(tmp_path), opening({})))[2]["result"]["tools"]
    assert plain == full


def test_the_listing_is_compact(tmp_path):
    full = answers(serve(environment(tmp_path), opening({})))[2]["result"]
    for listed in full["tools"]:
        assert "title" not in listed and "_meta" not in listed
        hints = listed.get("annotations") or {}
        assert "openWorldHint" not in hints  # MCP's default
        assert hints.get("readOnlyHint") in (True, False)
        if hints.get("readOnlyHint") is not True:
            assert hints.get("destructiveHint") in (True, False)  # said on every write
        for text in json.dumps(listed["inputSchema"]).split('"pattern": ')[1:]:
            assert len(json.loads(text.split(", ")[0].rstrip("}"))) <= 100
    assert size(full) < 100 * 1024
