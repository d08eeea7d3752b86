"""What the server writes on stderr is for log collectors: JSON lines only over stdio, none
of fastmcp's own start-up lines or warnings in its Rich format (they come through our JSON
logger), and each start-up event once. The servers run as a user starts them, without the
FASTMCP_* settings this test session sets for itself."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import httpx2 as httpx

from tests.conftest import ROOT
from tests.stdio_session import opening, request, run, tool_call

START_EVENTS = ("github_credentials", "serving")


def _user_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "FASTMCP_"))}
    return env | {"HOME": str(home), "PYTHONPATH": str(ROOT), **extra}


def _records(text: str) -> list[dict]:
    lines = [line for line in text.splitlines() if line.strip()]
    not_json = [line for line in lines if not line.startswith("{")]
    assert not_json == [], f"stderr lines that are not JSON: {not_json[:5]}"
    return [json.loads(line) for line in lines]


def test_stdio_stderr_is_json_lines_each_event_once(forge, forge_token, tmp_path):
    env = _user_env(tmp_path, GITHUB_API_URL=forge.base_url, GITHUB_TOKEN=forge_token)
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        session = run(
            [sys.executable, "-m", "github_mcp", "serve"],
            [*opening(), [tool_call(3, "get_me", {})], [request(4, "prompts/list")]],
            cwd=tmp_path, env=env, stderr=stderr, timeout_s=300,
        )  # fmt: skip
    assert session.returncode == 0
    assert session.result(3)["structuredContent"]["login"] == "octocat"
    assert session.result(4)["prompts"]
    records = _records(log.read_text())
    events = Counter(r.get("event") for r in records)
    assert {e: events[e] for e in START_EVENTS} == dict.fromkeys(START_EVENTS, 1), events
    assert events["gc_tuned"] <= 1  # once the warm-up ends, if it ended before the client
    assert events["tool_call_success"] == 1
    repeated = Counter(json.dumps({**r, "ts": 0}, sort_keys=True) for r in records)
    assert [line for line, n in repeated.items() if n > 1] == []
    assert not any("Starting MCP server" in r.get("message", "") for r in records)
    assert not (tmp_path / "var").exists()


def test_http_under_oauth_routes_fastmcps_warning_through_the_json_logger(tmp_path):
    """`make run AUTH=oauth`: the banner is for the human, everything else JSON; fastmcp's
    warning about cookies on plain HTTP arrives as a JSON warning, not a Rich block."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = _user_env(tmp_path, GITHUB_MCP_AUTH="oauth")
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "github_mcp", "serve", "--transport", "http", "--port",
             str(port), "--sandbox-forge", "auto", "--generate-token"],
            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=stderr,
            start_new_session=True,
        )  # fmt: skip
    try:
        while proc.poll() is None:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=60).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            try:
                proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
        assert proc.poll() is None, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=120)
    text = log.read_text()
    start = text.index("GitHub MCP Controller is serving at")
    end = text.index("Press Ctrl-C to stop.", start)
    banner = text[start:end]
    records = _records(text[:start] + text[end:].split("\n", 1)[1])
    cookies = [r for r in records if "non-secure cookies" in r.get("message", "")]
    assert [(r["level"], r["logger"].split(".")[0]) for r in cookies] == [("warning", "fastmcp")]
    assert "non-secure cookies" not in banner
    events = Counter(r.get("event") for r in records)
    assert events["github_credentials"] == 1 and events["sandbox_forge_started"] == 1
