"""Every path a tools/call can take runs the same steps: the call seam (pipeline/seam.py).

The paths: the stdio server (a real process over real pipes), the MCP framework's
in-process client (what the HTTP server runs on), streamable HTTP, the command line's
`call`, and a resource read that reads through a tool (`file_at_ref`; `workflow_run` reads
through `get_workflow_run_overview` the same way). The table is
every served tool, not a sample: each is called on each path with an argument its
signature does not take, and every path answers with the seam's own refusal, word for
word. A read-only view refuses every write tool the same way. And by construction: the
only caller of the pipeline is the seam, and each transport's call entry is the seam.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from github_mcp.cli.call import call_through_seam
from github_mcp.pipeline import seam
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.conftest import ROOT, mcp_client
from tests.stdio_session import opening, run, tool_call

TOKEN = "paths-token-0123456789"
BOGUS = {"not_an_argument_of_any_tool": 1}
PACKAGE = ROOT / "github_mcp"


def _without_call_id(payload: dict[str, Any]) -> dict[str, Any]:
    error = dict(payload["error"])
    assert len(error.pop("call_id")) == 16  # every refusal has a call_id of its own
    return error


async def _framework_answers(client: Client, names: list[str]) -> dict[str, dict[str, Any]]:
    answers = {}
    for name in names:
        result = await client.call_tool(name, BOGUS, raise_on_error=False)
        assert result.is_error, name
        answers[name] = _without_call_id(result.structured_content)
    return answers


def _stdio_answers(forge, token: str, tmp_path: Path, names: list[str]) -> dict[str, Any]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_TOOLSETS": "all",
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
    }
    calls = [tool_call(100 + i, name, BOGUS) for i, name in enumerate(names)]
    with (tmp_path / "stderr").open("wb") as stderr:
        session = run(
            [sys.executable, "main.py", "serve"],
            [*opening(), calls],
            cwd=ROOT,
            env=env,
            stderr=stderr,
        )
    answers = {}
    for i, name in enumerate(names):
        result = session.result(100 + i)
        assert result["isError"] is True, name
        answers[name] = _without_call_id(result["structuredContent"])
    return answers


async def test_every_tool_on_every_path_is_refused_by_the_same_seam(
    make_runtime, forge, forge_token, tmp_path
):
    rt = make_runtime(auth_tokens=TOKEN)
    names = sorted(rt.bound_specs)
    assert len(names) > 100  # every toolset's tools
    async with mcp_client(rt) as client:
        in_process = await _framework_answers(client, names)
    http_rt = make_runtime(auth_tokens=TOKEN)
    with serve_in_thread(build_http_app(http_rt)) as url:
        async with Client(StreamableHttpTransport(url + "/mcp", auth=TOKEN)) as client:
            over_http = await _framework_answers(client, names)
    over_stdio = _stdio_answers(forge, forge_token, tmp_path, names)
    on_the_command_line = {}
    for name in names:
        is_error, payload = await call_through_seam(rt, name, BOGUS)
        assert is_error, name
        on_the_command_line[name] = _without_call_id(payload)
    for name in names:
        error = over_stdio[name]
        if rt.bound_specs.entries[name].app_only:  # a card's own tool: unknown to these clients
            assert error["code"] == "not_found", (name, error)
        else:
            assert error["code"] == "invalid_input", (name, error)
            assert "not_an_argument_of_any_tool" in error["message"], (name, error)
        assert in_process[name] == error == over_http[name] == on_the_command_line[name], name


async def test_a_read_only_view_refuses_every_write_tool_through_the_seam(make_runtime):
    rt = make_runtime(auth_tokens=TOKEN)
    writes = sorted(name for name, entry in rt.bound_specs.entries.items() if entry.write)
    assert len(writes) > 40
    with serve_in_thread(build_http_app(rt)) as url:
        transport = StreamableHttpTransport(url + "/mcp/readonly", auth=TOKEN)
        async with Client(transport) as client:
            for name in writes:
                result = await client.call_tool(name, {}, raise_on_error=False)
                error = _without_call_id(result.structured_content)
                assert error["code"] == "write_not_allowed", (name, error)
                assert "read-only" in error["message"], name


async def test_an_unknown_tool_is_the_seams_refusal_on_every_path(make_runtime):
    rt = make_runtime(auth_tokens=TOKEN)
    async with mcp_client(rt) as client:
        result = await client.call_tool("no_such_tool", {}, raise_on_error=False)
    error = _without_call_id(result.structured_content)
    assert error["code"] == "not_found" and error["message"] == "Unknown tool."


def _calls_of(path: Path, function: str, owner: str | None = None) -> list[int]:
    """Lines calling `function` (as `owner.function` when an owner is named)."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func
        if isinstance(callee, ast.Attribute):
            qualifier = callee.value.id if isinstance(callee.value, ast.Name) else None
            if callee.attr == function and owner in (None, qualifier):
                found.append(node.lineno)
        elif isinstance(callee, ast.Name) and callee.id == function and owner is None:
            found.append(node.lineno)
    return found


def test_the_seam_is_the_only_caller_of_the_pipeline_and_every_transport_calls_it():
    callers = {
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*.py")
        if _calls_of(path, "run_tool")
    }
    assert callers == {"github_mcp/pipeline/seam.py"}
    entries = {
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*.py")
        if _calls_of(path, "call_tool", owner="seam")
    }
    assert entries == {
        "github_mcp/serving/stdio_server.py",  # tools/call over stdio
        "github_mcp/serving/framework_tools.py",  # tools/call on the framework (HTTP)
        "github_mcp/catalog/resources.py",  # a resource read through a tool
        "github_mcp/catalog/run_resource.py",  # the workflow_run resource, and a watched run
        "github_mcp/cli/call.py",  # github-mcp-controller call
    }
    assert seam.STEPS == ("served", "view", "arguments", "order", "pipeline")
