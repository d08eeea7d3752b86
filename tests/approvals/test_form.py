"""Form elicitation where the client has only that, and `tool` behaviour over stdio for a
client with no elicitation at all (auto mode). Evidence is the forge's branch heads."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from github_mcp.serving.server import build_mcp
from tests.approvals.conftest import (
    TOKEN_A,
    branch_head,
    commit_parents,
)
from tests.approvals.test_page_bearer import commit_args
from tests.conftest import ROOT, call_tool, error_code

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def npm_sdk() -> Path:
    """The TypeScript MCP SDK from npm, pinned (tests/oauth/fetch_mcp_clients.sh)."""
    fetched = subprocess.run(
        ["bash", str(ROOT / "tests/oauth/fetch_mcp_clients.sh")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert fetched.returncode == 0, fetched.stderr
    return ROOT / ".cache/npm-mcp-sdk/node_modules/@modelcontextprotocol/sdk"


class Human:
    """Answers form prompts with the given choices, in order, and records the prompts."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[Any] = []

    async def __call__(self, message: str, response_type: Any, params: Any, context: Any) -> Any:
        self.prompts.append(params)
        return self.answers.pop(0)


async def test_form_approval_lets_exactly_that_write_through(make_runtime, forge, fresh_repo):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    human = Human("approve", "deny")
    rt = make_runtime()
    async with Client(build_mcp(rt), elicitation_handler=human, mode="legacy") as client:
        is_error, result = await call_tool(client, "commit_files", commit_args(repo))
        assert not is_error, result
        after = branch_head(forge, repo)
        assert commit_parents(forge, repo, after) == [before]
        prompt = human.prompts[0]
        assert prompt.mode == "form"
        assert "commit_files" in prompt.message and repo in prompt.message
        assert "README.md" in prompt.message and "+2" in prompt.message
        # the next write asks again; a deny keeps the branch where it is
        is_error, payload = await call_tool(client, "commit_files", commit_args(repo, "v2\n"))
        assert is_error and error_code(payload) == "write_not_allowed"
    assert len(human.prompts) == 2
    assert branch_head(forge, repo) == after


async def test_form_approve_for_n_minutes(make_runtime, forge, fresh_repo):
    repo = fresh_repo()
    human = Human("approve_window")
    rt = make_runtime(approval_window_minutes=10)
    async with Client(build_mcp(rt), elicitation_handler=human, mode="legacy") as client:
        for n in range(3):
            is_error, result = await call_tool(client, "commit_files", commit_args(repo, f"{n}\n"))
            assert not is_error, result
        state = (await call_tool(client, "get_server_config"))[1]["write_policy"]
        assert state["approved"] is True and 0 < state["expires_in_s"] <= 600
    assert len(human.prompts) == 1


async def test_form_only_client_over_http(approval_server, forge, fresh_repo, npm_sdk):
    """The TypeScript SDK's client, declaring form elicitation only, gets a form (never a
    URL) and its answer lets exactly that write through."""
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        node = await asyncio.create_subprocess_exec(
            "node",
            str(HERE / "form_only_client.mjs"),
            str(npm_sdk),
            served.url + "/mcp",
            TOKEN_A,
            "commit_files",
            json.dumps(commit_args(repo)),
            "approve",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(node.communicate(), 120)
    assert node.returncode == 0, err.decode()[-2000:]
    report = json.loads(out.decode().strip().splitlines()[-1])
    assert not report["result"].get("isError"), report["result"]
    assert [p["mode"] for p in report["prompts"]] == ["form"]
    assert "commit_files" in report["prompts"][0]["message"]
    assert commit_parents(forge, repo, branch_head(forge, repo)) == [before]


async def test_stdio_without_elicitation_relies_on_tool_confirmation(
    make_runtime, forge, fresh_repo
):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    rt = make_runtime()
    async with Client(build_mcp(rt)) as client:
        is_error, payload = await call_tool(client, "commit_files", commit_args(repo))
        assert is_error and "authorize_write_actions" in payload["error"]["hint"]
        assert branch_head(forge, repo) == before
        is_error, state = await call_tool(client, "authorize_write_actions", {"approved": True})
        assert not is_error and state["approved"] is True
        assert "confirm" in state["note"] or "asking its human" in state["note"]
        assert not (await call_tool(client, "commit_files", commit_args(repo)))[0]
    assert commit_parents(forge, repo, branch_head(forge, repo)) == [before]


async def test_current_protocol_asks_with_the_calls_result(make_runtime, forge, fresh_repo):
    """2026-07-28 has no request to the client mid-call: the form travels back as an
    InputRequiredResult and the client retries the call with the human's answer."""
    repo = fresh_repo()
    before = branch_head(forge, repo)
    human = Human("approve", "deny")
    rt = make_runtime()
    async with Client(build_mcp(rt), elicitation_handler=human) as client:
        is_error, result = await call_tool(client, "commit_files", commit_args(repo))
        assert not is_error, result
        after = branch_head(forge, repo)
        is_error, payload = await call_tool(client, "commit_files", commit_args(repo, "v2\n"))
        assert is_error and error_code(payload) == "write_not_allowed"
    assert [p.mode for p in human.prompts] == ["form", "form"]
    assert "commit_files" in human.prompts[0].message
    assert commit_parents(forge, repo, after) == [before]
    assert branch_head(forge, repo) == after
