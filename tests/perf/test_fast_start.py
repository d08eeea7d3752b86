"""A fast start over stdio: the first initialize and tools/list come from the disk cache
the previous start recorded, the server still answers everything else, and the cache is
keyed so that it is never stale (tests spawn `main.py serve`, as a client does)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from tests.stdio_session import run

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
OPENING = [
    INIT,
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "get_server_config", "arguments": {"bogus": 1}},
    },
]


def serve(env: dict[str, str], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every frame the server writes until it has answered each request, in order."""
    session = run([sys.executable, "main.py", "serve"], [messages], cwd=ROOT, env=env)
    assert session.returncode == 0
    return session.frames


def environment(home: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "GITHUB_MCP_AUDIT_LOG": str(home / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(home / "ws"),
        **extra,
    }


def by_id(frames: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    answers: dict[Any, dict[str, Any]] = {}
    for frame in frames:
        assert frame.get("id") not in answers, f"answered twice: {frame}"
        answers[frame.get("id")] = frame
    return answers


def cache_files(home: Path) -> list[Path]:
    return sorted((home / ".cache/github-mcp").glob("listing-*.json"))


def test_second_start_answers_from_the_cache_exactly_as_the_server_did(tmp_path):
    env = environment(tmp_path)
    first = by_id(serve(env, OPENING))  # records
    [cached] = cache_files(tmp_path)
    second = by_id(serve(env, OPENING))  # answers from the cache
    slow = by_id(serve({**env, "GITHUB_MCP_FAST_START": "0"}, OPENING))
    for answers in (first, second, slow):
        assert set(answers) == {1, 2, 3}
    assert first[1]["result"] == second[1]["result"] == slow[1]["result"]
    assert first[2]["result"] == second[2]["result"] == slow[2]["result"]
    assert second[3]["result"]["isError"] is True  # the real server answered the call
    entry = json.loads(cached.read_text())
    assert entry["tools_list"] == first[2]["result"]

    # Proof that the second start's listing came from the file: a marked file is served.
    entry["tools_list"]["tools"] = entry["tools_list"]["tools"][:1]
    cached.write_text(json.dumps(entry))
    marked = by_id(serve(env, OPENING))
    assert len(marked[2]["result"]["tools"]) == 1
    assert marked[3]["result"]["isError"] is True


def test_other_settings_or_capabilities_miss_the_cache(tmp_path):
    env = environment(tmp_path)
    serve(env, OPENING)
    fewer = by_id(serve({**env, "GITHUB_MCP_TOOLSETS": "files"}, OPENING))
    other_client = dict(INIT, params={**INIT["params"], "capabilities": {"roots": {}}})
    serve(env, [other_client, *OPENING[1:]])
    assert len(cache_files(tmp_path)) == 3
    names = {t["name"] for t in fewer[2]["result"]["tools"]}
    assert "get_file_contents" in names and "create_issue" not in names


def test_with_a_secret_in_the_environment_the_cache_still_answers(tmp_path):
    """serve re-executes itself to drop secrets before the front starts: the front runs in
    the new image, answers from the cache there, and no input is lost on the way."""
    env = environment(tmp_path, GITHUB_TOKEN="ghp_" + "x" * 36)
    first = by_id(serve(env, OPENING))
    assert set(first) == {1, 2, 3} and first[2]["result"]["tools"]
    [cached] = cache_files(tmp_path)
    assert "ghp_" not in cached.read_text()
    entry = json.loads(cached.read_text())
    entry["tools_list"]["tools"] = entry["tools_list"]["tools"][:1]
    cached.write_text(json.dumps(entry))  # marked: served only by the front
    marked = by_id(serve(env, OPENING))
    assert len(marked[2]["result"]["tools"]) == 1
    assert marked[3]["result"]["isError"] is True  # the real server answered the call


def test_a_cache_file_others_can_write_is_not_served(tmp_path):
    env = environment(tmp_path)
    serve(env, OPENING)
    [cached] = cache_files(tmp_path)
    entry = json.loads(cached.read_text())
    entry["tools_list"]["tools"] = entry["tools_list"]["tools"][:1]
    cached.write_text(json.dumps(entry))
    cached.chmod(0o666)  # planted, or writable by anyone: the server answers instead
    answers = by_id(serve(env, OPENING))
    assert len(answers[2]["result"]["tools"]) > 1
