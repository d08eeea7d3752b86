"""The per-call path under load: the served process tunes its garbage collector once
start-up is done, and the log redaction's fast path (lines without any token marker skip
the pattern) redacts exactly what the full pattern does."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from typing import Any

import pytest

from github_mcp.monitoring import observability
from github_mcp.monitoring.gc_tuning import OLDER_THRESHOLDS, YOUNG_THRESHOLD
from tests.conftest import ROOT
from tests.stdio_session import INITIALIZED, initialize, request


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _first_event(proc: subprocess.Popen[bytes], event: str, deadline_s: float) -> dict[str, Any]:
    """The first JSON log line on the process's stderr naming `event`."""
    assert proc.stderr is not None
    deadline = time.monotonic() + deadline_s
    pending = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(proc.stderr.fileno(), 65536)
        if not chunk:
            break  # the process ended
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("event") == event:
                return dict(record)
    raise AssertionError(f"no {event} event on stderr within {deadline_s} s")


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_serve_freezes_start_up_objects_and_widens_the_young_generation(
    forge, forge_token, tmp_path, transport
):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    env |= {
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": forge_token,
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
        "GITHUB_MCP_LOG_LEVEL": "INFO",
    }
    command = [sys.executable, "main.py", "serve", "--transport", transport]
    if transport == "http":
        command += ["--port", str(_free_port())]
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        if transport == "stdio":  # over stdio, start-up ends with the first listing's warm-up
            assert proc.stdin is not None
            for message in (initialize(), INITIALIZED, request(2, "tools/list")):
                proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()
        tuned = _first_event(proc, "gc_tuned", deadline_s=120)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    # the modules, tool schemas and validators built at start-up are out of the
    # collector's view, so a full collection no longer walks them
    assert tuned["frozen_objects"] > 50_000
    assert tuned["thresholds"] == [YOUNG_THRESHOLD, *OLDER_THRESHOLDS]


def _full_redaction(text: str) -> str:
    for secret in tuple(observability._SECRETS):
        if secret in text:
            text = text.replace(secret, "[REDACTED]")
    return observability._TOKEN_PATTERNS.sub("[REDACTED]", text)


JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXZhbHVl"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    "text",
    [
        '{"event":"tool_call_success","tool":"get_file_contents","repo":"o/r","status":"ok"}',
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
        "AUTHORIZATION=token0123456789abcdefghij",
        "retrying with BEARER abcdefghijklmnop0123",
        "Basic dXNlcjpwYXNzd29yZDEyMzQ1Ng==",
        "cloned with ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ok",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "https://x-access-token:ghs_abcdefgh12345678@github.com/o/r.git",
        f"session {JWT} expired",
        f"key:\n{PEM}\n",
        "the token field is empty",
        # non-ASCII: case-insensitive matching folds the Kelvin sign into 'k'
        "to\u212aen abcdefghijklmnopqrstuvwxyz",
        "ba\u017fic abcdefghijklmnopqrstuvwxyz and caf\u00e9",
        "",
    ],
)
def test_redaction_fast_path_redacts_what_the_full_pattern_does(text):
    assert observability.redact(text) == _full_redaction(text)


def test_redaction_removes_registered_secrets_from_lines_without_markers():
    observability.register_secret("plain-secret-value-42")
    line = '{"event":"x","detail":"failed near plain-secret-value-42"}'
    assert "plain-secret-value-42" not in observability.redact(line)


@pytest.fixture
def json_stderr(monkeypatch):
    """configure_logging's handler writing to a buffer; the root's handlers come back after."""
    import io
    import logging

    buffer = io.StringIO()
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, observability._HANDLER)
    monkeypatch.setattr(sys, "stderr", buffer)
    observability.configure_logging("INFO")
    yield buffer
    root.handlers[:], _, observability._HANDLER = saved
    root.setLevel(saved[1])


def _lines(buffer) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def test_log_lines_written_directly_match_the_formatter(json_stderr):
    import logging

    logging.getLogger().handlers[:] = [observability._HANDLER]  # as served: pytest's go
    fields = {"tool": "get_file_contents", "n": 3, "skip": None, "detail": "ghp_" + "A" * 36}
    assert observability._direct_handler(logging.INFO) is not None  # the fast path is taken
    observability.log_event("tool_call_success", **fields)
    observability._HANDLER = None  # the same event through a LogRecord and the formatter
    observability.log_event("tool_call_success", **fields)
    direct, formatted = _lines(json_stderr)
    assert abs(direct.pop("ts") - formatted.pop("ts")) < 5
    assert list(direct.items()) == list(formatted.items())
    assert direct["detail"] == "[REDACTED]" and "skip" not in direct


def test_a_handler_added_later_still_sees_every_event(json_stderr, caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="github_mcp"):
        observability.log_event("tool_call_start", tool="list_issues")
    assert [r.getMessage() for r in caplog.records] == ["tool_call_start"]
    assert [line["event"] for line in _lines(json_stderr)] == ["tool_call_start"]


def test_events_below_the_level_are_not_written(json_stderr):
    import logging

    logging.getLogger().handlers[:] = [observability._HANDLER]
    logging.getLogger().setLevel(logging.WARNING)
    observability.log_event("tool_call_start", tool="list_issues")
    observability.log_event("rate_limited", level=logging.WARNING, tool="list_issues")
    assert [line["event"] for line in _lines(json_stderr)] == ["rate_limited"]
