"""Traces: one span per tool call (tool, repo, outcome, call_id) with a child span for
each GitHub request and each git or workspace process, checked with an in-memory
exporter; the call_id links the span, the audit log and the error envelope."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from github_mcp.monitoring import tracing
from tests.conftest import ROOT, call_tool, error_code, mcp_client


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_provider(provider)
    yield exporter
    tracing.use_provider(None)


def _children(all_spans, parent):
    return [s for s in all_spans if s.parent and s.parent.span_id == parent.context.span_id]


def _descendants(all_spans, parent):
    found = []
    for child in _children(all_spans, parent):
        found.append(child)
        found.extend(_descendants(all_spans, child))
    return found


async def test_span_tree_of_one_write(spans, forge, make_runtime):
    repo = "octo-org/traced"
    forge.seed_repo(repo, {"a.txt": "a\n"}, branches={"feature": {"a.txt": "a\n"}})
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "create_branch",
            {"full_name": repo, "branch": "traced-branch", "from_ref": "main"},
        )
    assert not is_error, result
    finished = spans.get_finished_spans()
    [root] = [s for s in finished if s.name == "tool create_branch"]
    assert root.parent is None
    attrs = dict(root.attributes)
    assert attrs["mcp.tool"] == "create_branch" and attrs["mcp.repo"] == repo
    assert attrs["mcp.outcome"] == "ok" and attrs["mcp.write"] is True
    requests = _children(finished, root)
    assert requests and all(s.name.startswith("GitHub ") for s in requests)
    methods = {s.attributes["http.request.method"] for s in requests}
    assert {"GET", "POST"} <= methods  # the gate's read of the default branch, the write
    assert any(s.attributes["url.template"].endswith("/git/refs") for s in requests)
    assert forge.state.repo("octo-org", "traced").git.read_ref("refs/heads/traced-branch")
    assert all(s.attributes["mcp.call_id"] == attrs["mcp.call_id"] for s in requests)
    audit = [json.loads(line) for line in rt.settings.audit_log.read_text().splitlines()]
    assert audit[-1]["call_id"] == attrs["mcp.call_id"]
    text = json.dumps([dict(s.attributes) for s in finished])
    assert rt.settings.github_token.get_secret_value() not in text


async def test_git_and_workspace_processes_are_child_spans(spans, forge, make_runtime):
    repo = "octo-org/traced-ws"
    forge.seed_repo(repo, {"a.txt": "a\n"}, branches={"feature": {"a.txt": "a\n"}})
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client, "terminal_command", {"full_name": repo, "ref": "feature", "command": "true"}
        )
    assert not is_error, result
    finished = spans.get_finished_spans()
    [root] = [s for s in finished if s.name == "tool terminal_command"]
    below = _descendants(finished, root)
    names = [s.name for s in below]
    assert "git clone" in names
    assert any(n.startswith("workspace ") for n in names)
    commands = [s for s in below if s.name.startswith("workspace ")]
    assert commands and commands[-1].attributes["process.exit_code"] == 0


async def test_a_failed_call_links_its_call_id(spans, forge, make_runtime):
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client, "get_file_contents", {"full_name": "octo-org/demo-app", "path": "nope.txt"}
        )
    assert is_error and error_code(result) == "not_found"
    roots = [s for s in spans.get_finished_spans() if s.name == "tool get_file_contents"]
    assert len(roots) == 1, [(s.name, dict(s.attributes)) for s in spans.get_finished_spans()]
    root = roots[0]
    assert root.attributes["mcp.call_id"] == result["error"]["call_id"]
    assert root.attributes["mcp.outcome"] == "error"
    assert root.attributes["mcp.error_code"] == "not_found"
    assert root.status.status_code.name == "ERROR"


def test_no_sdk_import_without_an_endpoint():
    code = (
        "import sys, github_mcp.serving.server, github_mcp.monitoring.tracing as t;"
        "t.configure_from_env({});"
        "print(any(m.startswith('opentelemetry.sdk') for m in sys.modules), t.enabled())"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]


def test_endpoint_turns_on_otlp_export():
    code = (
        "import github_mcp.monitoring.tracing as t;"
        "print(t.configure_from_env({'OTEL_EXPORTER_OTLP_ENDPOINT': 'http://127.0.0.1:9'}));"
        "print(type(t._provider).__module__);"
        "t.shutdown()"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", "opentelemetry.sdk.trace"]
