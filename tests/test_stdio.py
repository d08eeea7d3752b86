"""stdio: stdout carries only protocol frames; logs go to stderr."""

from __future__ import annotations

import json
import os
import sys

from tests.conftest import ROOT
from tests.stdio_session import opening, run, tool_call


def test_stdout_has_only_protocol_frames(forge, forge_token, tmp_path):
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": forge_token,
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
    }
    calls = [tool_call(3, "get_me", {}), tool_call(4, "get_server_config", {"bogus": 1})]
    with (tmp_path / "stderr").open("wb") as stderr_file:  # a file: a full pipe would block
        session = run(
            [sys.executable, "main.py", "serve"],
            [*opening(), calls],
            cwd=ROOT,
            env=env,
            stderr=stderr_file,
        )
    stderr = (tmp_path / "stderr").read_text()
    assert all(p.get("jsonrpc") == "2.0" for p in session.frames)  # run() parsed every line
    assert len(session.result(2)["tools"]) > 5
    me = session.result(3)
    assert me.get("isError") is not True and me["structuredContent"]["login"] == "octocat"
    assert session.result(4)["isError"] is True
    stderr_events = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    assert any(
        e.get("event") == "tool_call_success" and e.get("tool") == "get_me" for e in stderr_events
    )
    assert forge_token not in stderr
