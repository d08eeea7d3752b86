"""Reads answered over stdio by the pipeline directly (serving/direct_calls.py), while the
MCP framework loads and after: the same answer the server gives (compared with a run with
the front off, where the server answers everything), and everything else (writes, bad
arguments, unknown tools, tools that need the session) left to the server. The evidence is
the forge's state and the server's own log lines."""

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
from sandbox_forge.admin.seed_collab import add_workflow_run
from tests.conftest import ROOT, settled_requests
from tests.stdio_session import INITIALIZED, initialize, modern_meta, request, run, tool_call


def environment(home: Path, forge: Any, token: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_AUDIT_LOG": str(home / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(home / "ws"),
        "GITHUB_MCP_LOG_LEVEL": "DEBUG",  # direct calls after the start log at debug
    }


def warmed(tmp_path: Path, forge: Any, token: str, **extra: str) -> dict[str, str]:
    """The environment of a server whose first start already ran (it recorded the
    opening's cache, so a test's session meets the warm start a client meets)."""
    env = {**environment(tmp_path, forge, token), **extra}
    serve(env, opening_then([]), tmp_path / "warm.log")
    return env


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


def test_reads_are_answered_directly_as_the_server_answers_them(forge, forge_token, tmp_path):
    full_name = seeded(forge)
    env = warmed(tmp_path, forge, forge_token)
    read = {"full_name": full_name, "path": "src/app.py"}
    steps = [*opening_then([tool_call(3, "get_file_contents", read)])]
    steps.append([request(4, "ping")])  # the server's answer: it runs from here on
    steps.append([tool_call(5, "get_file_contents", read)])
    log = tmp_path / "serve.log"
    session = serve(env, steps, log)
    server_env = {**env, "GITHUB_MCP_FAST_START": "0"}
    by_server = serve(server_env, steps, tmp_path / "server.log")
    early, late = session.result(3), session.result(5)
    assert early.get("isError") is not True
    assert early["structuredContent"]["content"] == "print('hi')\n"
    assert early == late == by_server.result(3) == by_server.result(5)
    assert [e["tool"] for e in events(log, "early_call")] == ["get_file_contents"]
    assert [e["tool"] for e in events(log, "direct_call")] == ["get_file_contents"]
    assert events(tmp_path / "server.log", "early_call") == []
    assert events(tmp_path / "server.log", "direct_call") == []
    succeeded = [e for e in events(log, "tool_call_success") if e["tool"] == "get_file_contents"]
    assert len(succeeded) == 2  # both went through the pipeline: logged and counted
    assert forge_token not in log.read_text()


def test_writes_bad_arguments_and_unknown_tools_are_left_to_the_server(
    forge, forge_token, tmp_path
):
    full_name = seeded(forge)
    env = warmed(tmp_path, forge, forge_token)
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
    env = warmed(tmp_path, forge, forge_token)
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


def test_direct_log_notifications_are_the_servers(forge, forge_token, tmp_path):
    full_name = seeded(forge)
    env = warmed(tmp_path, forge, forge_token)
    read = {"full_name": full_name, "path": "src/app.py", "max_bytes": 4}  # truncated: a warning
    steps = [*opening_then([tool_call(3, "get_file_contents", read)]), [request(4, "ping")]]
    steps.append([request(5, "logging/setLevel", {"level": "error"})])
    steps.append([tool_call(6, "get_file_contents", read)])  # a warning below the level
    log = tmp_path / "serve.log"
    session = serve(env, steps, log)
    server_env = {**env, "GITHUB_MCP_FAST_START": "0"}
    by_server = serve(server_env, steps, tmp_path / "server.log")
    assert len(events(log, "early_call")) == 1 and len(events(log, "direct_call")) == 1

    def notes(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
        found = [f["params"] for f in frames if f.get("method") == "notifications/message"]
        assert all(n["data"]["extra"]["call_id"] for n in found)
        return [{**n, "data": {**n["data"], "extra": None}} for n in found]

    direct = notes(session.frames)
    assert direct == notes(by_server.frames)
    assert len(direct) == 1  # the first call's; the second's warning is below "error"
    assert direct[0]["level"] == "warning" and "truncated" in direct[0]["data"]["msg"]


def test_direct_progress_notifications_are_the_servers(forge, forge_token, tmp_path):
    full_name = seeded(forge)
    run = add_workflow_run(
        forge, full_name, "ci.yml", ref="main", status="in_progress",
        jobs=[{"name": "unit", "status": "in_progress"}],
    )  # fmt: skip
    env = warmed(tmp_path, forge, forge_token)
    wait = request(
        5,
        "tools/call",
        {
            "name": "wait_for_workflow_run",
            "arguments": {
                "full_name": full_name,
                "run_id": run["id"],
                "timeout_seconds": 0.3,
                "poll_interval_seconds": 0.05,
            },
            "_meta": {"progressToken": "wait-5"},
        },
    )
    steps = [*opening_then([]), [request(4, "ping")], [wait]]
    log = tmp_path / "serve.log"
    direct = serve(env, steps, log)
    by_server = serve({**env, "GITHUB_MCP_FAST_START": "0"}, steps, tmp_path / "server.log")
    assert [e["tool"] for e in events(log, "direct_call")] == ["wait_for_workflow_run"]
    for session in (direct, by_server):
        result = session.result(5)["structuredContent"]
        notes = [f["params"] for f in session.frames if f.get("method") == "notifications/progress"]
        assert len(notes) == result["polls"] >= 2  # one per poll, as the server sends them
        for note in notes:  # the timings differ from run to run; the shape may not
            assert set(note) == {"progressToken", "progress", "total", "message"}
            assert note["progressToken"] == "wait-5" and note["total"] == 0.3
            assert f"run {run['id']}" in note["message"]


def modern_call(ident: int, arguments: dict[str, Any], **meta: Any) -> dict[str, Any]:
    params = {
        "name": "get_file_contents",
        "arguments": arguments,
        "_meta": {**modern_meta(), **meta},
    }
    return request(ident, "tools/call", params)


def test_direct_answers_to_the_2026_revision_are_the_servers(forge, forge_token, tmp_path):
    """No handshake: every request carries the revision, client and (optionally) its own
    log level; the result says resultType and names the server."""
    full_name = seeded(forge)
    env = environment(tmp_path, forge, forge_token)
    read = {"full_name": full_name, "path": "src/app.py", "max_bytes": 4}  # a warning
    level = "io.modelcontextprotocol/logLevel"
    steps = [
        [request(1, "server/discover", {"_meta": modern_meta()})],
        [modern_call(2, read)],  # no log opt-in: no notification
        [modern_call(3, read, **{level: "debug"})],  # the warning, not the debug lines
        [modern_call(4, read, **{level: "error"}, progressToken="p4")],  # below its level
        [modern_call(5, {**read, "max_bytes": "x"}, **{level: "info"})],  # the server's error
    ]
    log = tmp_path / "serve.log"
    direct = serve(env, steps, log)
    by_server = serve({**env, "GITHUB_MCP_FAST_START": "0"}, steps, tmp_path / "server.log")
    taken = events(log, "early_call") + events(log, "direct_call")  # before the server, after
    assert [e["tool"] for e in taken] == ["get_file_contents"] * 3
    for ident in (2, 3, 4, 5):
        assert without_call_ids(direct.answer(ident)) == without_call_ids(by_server.answer(ident))
    assert direct.result(2)["resultType"] == "complete"

    def notes(session: Any) -> list[dict[str, Any]]:
        return [without_call_ids(f) for f in session.frames if "method" in f]

    assert notes(direct) == notes(by_server)
    assert [n["params"]["level"] for n in notes(direct)] == ["warning"]


class Conversation:
    """A stdio session driven frame by frame, for what run() cannot express: a request
    that must never be answered."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.stderr = log.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "main.py", "serve"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        self.frames: list[dict[str, Any]] = []

    def send(self, *frames: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(json.dumps(f).encode() + b"\n" for f in frames))
        self.proc.stdin.flush()

    def until_answered(self, ident: int) -> None:
        assert self.proc.stdout is not None
        while not any(f.get("id") == ident and "method" not in f for f in self.frames):
            line = self.proc.stdout.readline()
            assert line, "the server closed its output"
            self.frames.append(json.loads(line))

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.frames += [json.loads(line) for line in self.proc.stdout.read().splitlines()]
        assert self.proc.wait(timeout=60) == 0
        self.stderr.close()


def test_a_cancelled_direct_call_is_not_answered(forge, forge_token, tmp_path):
    full_name = seeded(forge)
    env = warmed(tmp_path, forge, forge_token)
    read = {"full_name": full_name, "path": "README.md"}
    log = tmp_path / "serve.log"
    talk = Conversation(env, log)
    try:
        talk.send(initialize())
        talk.until_answered(1)
        talk.send(INITIALIZED, request(2, "tools/list"), request(3, "ping"))
        talk.until_answered(3)  # the server runs: calls from here on are direct ones
        forge.set_latency(800)
        cancel = {"method": "notifications/cancelled", "params": {"requestId": 5}}
        talk.send(
            tool_call(5, "get_file_contents", read),
            {"jsonrpc": "2.0", **cancel},
            tool_call(6, "get_file_contents", read),
        )
        talk.until_answered(6)  # begun after 5, so 5 would have been answered by now
    finally:
        forge.set_latency(0)
        talk.close()
    assert not [f for f in talk.frames if f.get("id") == 5]
    assert any(f.get("id") == 6 and "result" in f for f in talk.frames)
    assert "get_file_contents" in [e["tool"] for e in events(log, "direct_call")]  # 6, at least


def test_direct_reads_keep_the_allow_list(forge, forge_token, tmp_path):
    """A read of a repository outside GITHUB_MCP_REPO_ALLOWLIST, taken directly before the
    server runs and after, in any spelling: refused, and the forge never asked for a file."""
    allowed, other = seeded(forge), seeded(forge)
    env = warmed(tmp_path, forge, forge_token, GITHUB_MCP_REPO_ALLOWLIST=allowed)
    forge.clear_requests()
    steps = [
        *opening_then([tool_call(3, "get_file_contents", {"full_name": other, "path": "a"})]),
        [request(4, "ping")],
        [tool_call(5, "get_file_contents", {"full_name": other.upper(), "path": "a"})],
    ]
    log = tmp_path / "serve.log"
    session = serve(env, steps, log)
    for refused in (3, 5):
        error = session.result(refused)["structuredContent"]["error"]
        assert error["code"] == "repo_not_allowed" and error["hint"]
    assert len(events(log, "early_call") + events(log, "direct_call")) == 2  # both direct
    reads = [
        r for r in settled_requests(forge) if r["path"] == "/graphql" or "/repos/" in r["path"]
    ]
    assert reads == []
    # the same read of the allowed repository does reach the forge
    allowed_read = tool_call(3, "get_file_contents", {"full_name": allowed, "path": "README.md"})
    session = serve(env, opening_then([allowed_read]), tmp_path / "allowed.log")
    assert session.result(3)["structuredContent"]["content"] == "# early\n"
    assert [r for r in settled_requests(forge) if r["path"] == "/graphql"]


MARKERS = (".ctx", "rt.bound_specs", "rt.tool_schemas", "rt.validation_schemas", "approval_cards")


def test_tools_that_use_the_server_are_never_answered_early():
    """A handler's module that reaches the session or the bound tools marks its tools
    needs_server: serving/direct_calls.py leaves them to the server."""
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
    env = warmed(tmp_path, forge, forge_token)
    read = {"full_name": full_name, "path": "README.md"}
    hostile = [
        request(3, "tools/call", {"name": ["get_file_contents"], "arguments": read}),
        request(4, "tools/call", {"name": "get_file_contents", "arguments": [read]}),
        request(5, "tools/call", {"name": "get_file_contents", "arguments": {**read, "x": 1}}),
        request(
            6, "tools/call", {"name": "get_file_contents", "arguments": read, "_meta": {"x": 1}}
        ),
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
