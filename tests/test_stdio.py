"""stdio: stdout carries only protocol frames; logs go to stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT


def _frames(*messages: dict) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def test_stdout_has_only_protocol_frames(forge, forge_token, tmp_path):
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": forge_token,
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
    }
    messages = _frames(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "get_me", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "get_server_config", "arguments": {"bogus": 1}},
        },
    )
    proc = subprocess.Popen(
        [sys.executable, "main.py", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    assert proc.stdin and proc.stdout and proc.stderr
    proc.stdin.write(messages)
    proc.stdin.flush()
    parsed = []
    for line in proc.stdout:  # keep stdin open until every answer has arrived
        if line.strip():
            parsed.append(json.loads(line))  # every line must be JSON
        if {1, 2, 3, 4} <= {p.get("id") for p in parsed}:
            break
    proc.stdin.close()
    rest, stderr = proc.stdout.read(), proc.stderr.read()
    proc.wait(timeout=30)
    parsed += [json.loads(line) for line in rest.decode().splitlines() if line.strip()]
    assert all(p.get("jsonrpc") == "2.0" for p in parsed)
    by_id = {p.get("id"): p for p in parsed}
    assert {1, 2, 3, 4} <= set(by_id)
    assert len(by_id[2]["result"]["tools"]) > 5
    me = by_id[3]["result"]
    assert me.get("isError") is not True and me["structuredContent"]["login"] == "octocat"
    assert by_id[4]["result"]["isError"] is True
    stderr_events = [
        json.loads(line) for line in stderr.decode().splitlines() if line.startswith("{")
    ]
    assert any(
        e.get("event") == "tool_call_success" and e.get("tool") == "get_me" for e in stderr_events
    )
    assert forge_token not in stderr.decode()
