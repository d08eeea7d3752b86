"""The stdio server answers MCP itself: prompts, resources and completions with their error
codes, the 2026-07-28 revision (server/discover, per-request _meta, input_required), the
era a connection opened in, and a question for the human as an elicitation request the
client answers mid-call. Over a real process and real pipes; evidence for writes from the
forge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx2 as httpx

from tests.conftest import ROOT
from tests.stdio_session import (
    INITIALIZED,
    initialize,
    modern_meta,
    opening,
    request,
    run,
    tool_call,
)


def _env(tmp_path: Path, forge, token: str, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
        **extra,
    }


def _serve(env: dict[str, str], steps: list[list[dict[str, Any]]]):
    session = run([sys.executable, "main.py", "serve"], steps, cwd=ROOT, env=env)
    assert session.returncode == 0
    return session


def test_prompts_resources_and_completions_with_their_codes(forge, forge_token, tmp_path):
    # a completion's latency budget is wall-clock: generous here, for a loaded machine
    env = _env(tmp_path, forge, forge_token, GITHUB_MCP_COMPLETION_BUDGET_SECONDS="120")
    steps = [
        *opening(),
        [
            request(3, "prompts/list"),
            request(4, "prompts/get", {"name": "fix_failing_ci", "arguments": {"pr": "o/r#7"}}),
            request(5, "prompts/get", {"name": "fix_failing_ci", "arguments": {}}),
            request(6, "prompts/get", {"name": "no_such_prompt"}),
            request(7, "resources/read", {"uri": "github-mcp://operating-contract"}),
            request(8, "resources/read", {"uri": "repo://octo-org/demo-app/blob/main/README.md"}),
            request(9, "resources/read", {"uri": "repo://octo-org/demo-app/blob/main/nope.txt"}),
            request(10, "resources/templates/list"),
            request(
                11,
                "completion/complete",
                {
                    "ref": {"type": "ref/resource", "uri": _template()},
                    "argument": {"name": "owner", "value": "octo"},
                },
            ),
            request(12, "no/such/method"),
        ],
    ]
    session = _serve(env, steps)
    names = [p["name"] for p in session.result(3)["prompts"]]
    assert "start_session" in names and "fix_failing_ci" in names
    text = session.result(4)["messages"][0]["content"]["text"]
    assert "o/r#7" in text
    assert session.answer(5)["error"]["code"] == -32602
    assert session.answer(5)["error"]["data"]["missing"] == ["pr"]
    assert session.answer(6)["error"]["code"] == -32602
    contract = session.result(7)["contents"][0]
    assert contract["mimeType"] == "text/markdown" and "branch" in contract["text"]
    readme = session.result(8)["contents"][0]
    assert readme["uri"].endswith("README.md") and readme["text"]
    missing = session.answer(9)["error"]
    assert missing["code"] == -32002  # resource not found, before 2026-07-28
    assert missing["data"]["error"]["code"] == "not_found"
    assert session.result(10)["resourceTemplates"][0]["uriTemplate"] == _template()
    assert "octo-org" in session.result(11)["completion"]["values"]
    assert session.answer(12)["error"]["code"] == -32601


def _template() -> str:
    from github_mcp.catalog.resources import BLOB_TEMPLATE

    return BLOB_TEMPLATE


def _modern(ident: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return request(ident, method, {**(params or {}), "_meta": modern_meta()})


def test_the_2026_revision_over_stdio_and_the_era_a_connection_opened_in(
    forge, forge_token, tmp_path
):
    env = _env(tmp_path, forge, forge_token)
    session = _serve(
        env,
        [
            [_modern(1, "server/discover")],
            [
                _modern(2, "tools/list"),
                _modern(3, "tools/call", {"name": "get_me", "arguments": {}}),
                request(4, "initialize", initialize()["params"]),  # the other era: refused
                request(5, "tools/list"),  # no _meta on a 2026 connection: refused
                request(
                    6,
                    "tools/list",
                    {"_meta": {**modern_meta(), "io.modelcontextprotocol/protocolVersion": "2099"}},
                ),
            ],
        ],
    )
    discover = session.result(1)
    assert discover["supportedVersions"] == ["2026-07-28"]
    assert discover["resultType"] == "complete"
    listed = session.result(2)
    assert listed["resultType"] == "complete" and len(listed["tools"]) > 20
    me = session.result(3)
    assert me["resultType"] == "complete" and me["structuredContent"]["login"] == "octocat"
    assert me["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "github-mcp-controller"
    assert "error" in session.answer(4) and "error" in session.answer(5)
    unsupported = session.answer(6)["error"]
    assert unsupported["code"] == -32022 and unsupported["data"]["requested"] == "2099"


def _head(forge, token: str, full_name: str) -> str:
    answer = httpx.get(
        f"{forge.base_url}/repos/{full_name}/branches/main",
        headers={"Authorization": f"Bearer {token}"},
    )
    return answer.json()["commit"]["sha"]


class Interactive:
    """A client that answers the server's requests (elicitations) mid-call."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "main.py", "serve"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.asked: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def answer_of(self, ident: int, reply: dict[str, Any] | None = None) -> dict[str, Any]:
        """Read until the answer to `ident`, answering each elicitation with `reply`."""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its output"
            message = json.loads(line)
            if message.get("method") == "elicitation/create":
                self.asked.append(message)
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": reply})
            elif message.get("id") == ident and "method" not in message:
                return message

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def test_a_question_for_the_human_goes_to_the_client_mid_call(forge, forge_token, tmp_path):
    """elicit mode over stdio: authorize_write_actions asks the human through the client;
    declined, the protected write is refused (main unmoved); accepted, it lands once."""
    full_name = f"octo-org/ask-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(full_name, {"README.md": "# ask\n"})
    before = _head(forge, forge_token, full_name)
    env = _env(tmp_path, forge, forge_token, GITHUB_MCP_APPROVAL_MODE="elicit")
    client = Interactive(env)
    try:
        client.send(initialize(capabilities={"elicitation": {}}))
        client.answer_of(1)
        client.send(INITIALIZED)
        files = [{"path": "NOTES.md", "content": "asked\n"}]
        write = {"full_name": full_name, "branch": "main", "files": files, "message": "asked"}
        client.send(tool_call(2, "authorize_write_actions", {"approved": True}))
        declined = client.answer_of(2, {"action": "decline"})
        assert declined["result"]["isError"] is True
        client.send(tool_call(3, "commit_files", write))
        assert client.answer_of(3)["result"]["structuredContent"]["error"]["code"] == (
            "write_not_allowed"
        )
        assert _head(forge, forge_token, full_name) == before
        client.send(tool_call(4, "authorize_write_actions", {"approved": True}))
        granted = client.answer_of(4, {"action": "accept", "content": {"value": True}})
        assert granted["result"]["structuredContent"]["approved"] is True
        client.send(tool_call(5, "commit_files", write))
        landed = client.answer_of(5)["result"]
        assert landed["isError"] is False
        assert _head(forge, forge_token, full_name) == landed["structuredContent"]["commit_sha"]
    finally:
        client.close()
    questions = [m["params"] for m in client.asked]
    assert len(questions) == 2 and all("Allow" in q["message"] for q in questions)
    assert questions[0]["requestedSchema"]["properties"]["value"]["type"] == "boolean"
