"""Reads answered over stdio while the MCP framework loads (serving/early_calls.py): the
same answer the server gives, and everything else (writes, bad arguments, unknown tools)
left to the server. The evidence is the forge's state and the server's own log lines."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import github_mcp.tools  # noqa: F401 - registers the tools
from github_mcp.pipeline.registry import REGISTRY
from tests.conftest import ROOT
from tests.stdio_session import INITIALIZED, initialize, request, run, tool_call


def environment(home: Path, forge: Any, token: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_AUDIT_LOG": str(home / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(home / "ws"),
    }


def seeded(forge: Any) -> str:
    full_name = f"octo-org/early-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(full_name, {"README.md": "# early\n", "src/app.py": "print('hi')\n"})
    return full_name


def serve(env: dict[str, str], steps: list[list[dict[str, Any]]], log: Path) -> Any:
    with log.open("wb") as stderr:  # a file: a full pipe would block the server
        session = run([sys.executable, "main.py", "serve"], steps, cwd=ROOT, env=env, stderr=stderr)
    assert session.returncode == 0
    return session


def events(log: Path, name: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return [e for e in lines if e.get("event") == name]


def opening_then(calls: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [[initialize()], [INITIALIZED, request(2, "tools/list"), *calls]]


def test_a_read_sent_with_the_opening_is_answered_early_as_the_server_answers_it(
    forge, forge_token, tmp_path
):
    full_name = seeded(forge)
    env = environment(tmp_path, forge, forge_token)
    serve(env, opening_then([]), tmp_path / "warm.log")  # records the opening's cache
    read = {"full_name": full_name, "path": "src/app.py"}
    steps = [*opening_then([tool_call(3, "get_file_contents", read)])]
    steps.append([request(4, "ping")])  # the server's answer: it runs from here on
    steps.append([tool_call(5, "get_file_contents", read)])
    log = tmp_path / "serve.log"
    session = serve(env, steps, log)
    early, late = session.result(3), session.result(5)
    assert early.get("isError") is not True
    assert early["structuredContent"]["content"] == "print('hi')\n"
    assert early == late  # the same wire answer, early or from the server
    taken = events(log, "early_call")
    assert [e["tool"] for e in taken] == ["get_file_contents"]  # only the first
    succeeded = [e for e in events(log, "tool_call_success") if e["tool"] == "get_file_contents"]
    assert len(succeeded) == 2  # both went through the pipeline: logged, counted, audited
    assert forge_token not in log.read_text()


def test_writes_bad_arguments_and_unknown_tools_are_left_to_the_server(
    forge, forge_token, tmp_path
):
    full_name = seeded(forge)
    env = environment(tmp_path, forge, forge_token)
    serve(env, opening_then([]), tmp_path / "warm.log")
    calls = [
        tool_call(3, "get_file_contents", {"full_name": full_name, "path": 7}),
        tool_call(4, "no_such_tool", {}),
        tool_call(5, "create_branch", {"full_name": full_name, "branch": "early-feature"}),
        tool_call(6, "get_file_contents", {"full_name": full_name, "path": "README.md"}),
        request(7, "tools/call", {"name": "get_me"}),  # no arguments object
        tool_call(8, "describe_tool", {"name": "get_file_contents"}),  # the server's tools
    ]
    log = tmp_path / "serve.log"
    session = serve(env, opening_then(calls), log)
    bad = session.result(3)
    assert bad["isError"] is True
    assert bad["structuredContent"]["error"]["code"] == "invalid_input"
    assert session.result(4)["isError"] is True
    assert session.result(6)["structuredContent"]["content"] == "# early\n"
    assert session.result(7).get("isError") is not True
    described = session.result(8)["structuredContent"]
    assert described["name"] == "get_file_contents" and described["input_schema"]
    created = session.result(5)
    assert created.get("isError") is not True, created
    repo = forge.state.repo(*full_name.split("/"))
    assert "refs/heads/early-feature" in {ref for ref, _, _ in repo.git.list_refs()}
    assert [e["tool"] for e in events(log, "early_call")] == ["get_file_contents"]
    # the write went through the server, and its gate, once the server ran
    writes = [e for e in events(log, "tool_call_success") if e["tool"] == "create_branch"]
    assert len(writes) == 1


def test_an_early_call_is_answered_when_the_client_closes_its_input_at_once(
    forge, forge_token, tmp_path
):
    full_name = seeded(forge)
    env = environment(tmp_path, forge, forge_token)
    serve(env, opening_then([]), tmp_path / "warm.log")
    frames = [
        initialize(),
        INITIALIZED,
        tool_call(3, "get_file_contents", {"full_name": full_name, "path": "README.md"}),
        tool_call(4, "get_file_contents", {"full_name": full_name, "path": 7}),
    ]
    payload = b"".join(json.dumps(f).encode() + b"\n" for f in frames)
    done = subprocess.run(
        [sys.executable, "main.py", "serve"],
        input=payload,
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    answers = {
        frame["id"]: frame
        for frame in map(json.loads, done.stdout.decode().splitlines())
        if "id" in frame
    }
    assert answers[3]["result"]["structuredContent"]["content"] == "# early\n"
    assert 1 in answers
    # the held call reached the server, then the end of input: it stops, as it does
    # without the early path (the protocol library drops requests still unanswered)
    assert done.returncode == 0


def test_early_log_notifications_are_the_servers(forge, forge_token, tmp_path):
    full_name = seeded(forge)
    env = environment(tmp_path, forge, forge_token)
    serve(env, opening_then([]), tmp_path / "warm.log")
    read = {"full_name": full_name, "path": "src/app.py", "max_bytes": 4}  # truncated: a warning
    steps = [
        *opening_then([tool_call(3, "get_file_contents", read)]),
        [request(4, "ping")],
        [tool_call(5, "get_file_contents", read)],
    ]
    log = tmp_path / "serve.log"
    session = serve(env, steps, log)
    assert [e["tool"] for e in events(log, "early_call")] == ["get_file_contents"]
    notes = [f["params"] for f in session.frames if f.get("method") == "notifications/message"]
    assert len(notes) == 2, notes  # one from the early call, one from the server's
    early, late = ({**n, "data": {**n["data"], "extra": None}} for n in notes)
    assert early == late
    assert early["level"] == "warning" and "truncated" in early["data"]["msg"]
    assert all(n["data"]["extra"]["call_id"] for n in notes)


MARKERS = (".ctx", "rt.bound_specs", "rt.tool_schemas", "rt.validation_schemas", "approval_cards")


def test_tools_that_use_the_server_are_never_answered_early():
    """A handler's module that reaches the session or the bound tools marks its tools
    needs_server: serving/early_calls.py leaves them to the server."""
    for spec in REGISTRY.values():
        source = inspect.getsource(inspect.getmodule(spec.handler))
        if any(marker in source for marker in MARKERS):
            assert spec.needs_server, f"{spec.name} uses the server: @tool(needs_server=True)"


def without_call_ids(frame: dict[str, Any]) -> dict[str, Any]:
    """An error envelope's call_id is fresh for every call."""
    text = json.dumps(frame)
    for found in set(re.findall(r"call_id[^0-9a-f]{1,12}([0-9a-f]{16})", text)):
        text = text.replace(found, "<call_id>")
    return json.loads(text)


def test_hostile_early_frames_get_the_servers_answers(forge, forge_token, tmp_path):
    """Frames a hostile client sends before the server runs: each gets the answer the
    server gives it (or none, as the server gives none), and the process keeps serving."""
    full_name = seeded(forge)
    env = environment(tmp_path, forge, forge_token)
    serve(env, opening_then([]), tmp_path / "warm.log")
    read = {"full_name": full_name, "path": "README.md"}
    hostile = [
        request(3, "tools/call", {"name": ["get_file_contents"], "arguments": read}),
        request(4, "tools/call", {"name": "get_file_contents", "arguments": [read]}),
        request(5, "tools/call", {"name": "get_file_contents", "arguments": {**read, "x": 1}}),
        request(6, "tools/call", {"name": "get_file_contents", "arguments": read, "_meta": {}}),
        request(7, "tools/call", {"name": "get_file_contents", "arguments": {"full_name": "../x"}}),
        {"jsonrpc": "2.0", "id": True, "method": "tools/call", "params": {"name": "get_me"}},
        tool_call(8, "get_file_contents", {**read, "path": "a" * 20000}),
        tool_call(9, "get_file_contents", read),  # a good one among them
    ]
    log = tmp_path / "serve.log"
    early = serve(env, [*opening_then(hostile), [request(10, "ping")]], log)
    server_env = {**env, "GITHUB_MCP_FAST_START": "0"}
    late = serve(server_env, [*opening_then(hostile), [request(10, "ping")]], tmp_path / "s.log")
    for ident in range(3, 10):
        assert without_call_ids(early.answer(ident)) == without_call_ids(late.answer(ident))
    assert early.result(9)["structuredContent"]["content"] == "# early\n"
    assert [e["tool"] for e in events(log, "early_call")] == ["get_file_contents"]
