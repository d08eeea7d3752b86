"""What a session lists, over stdio as a client sees it: the default toolsets within their
byte budget, the core list (GITHUB_MCP_TOOLS=core) for any client, enable_toolset's
list_changed notification, every tool reachable through find_tools, and the size targets
per tool."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import extra_tools  # noqa: F401 - the server registers these too
from github_mcp.config import DEFAULT_TOOLS, DEFAULT_TOOLSETS, TOOLSETS
from github_mcp.pipeline.registry import REGISTRY
from github_mcp.pipeline.views import CORE_TOOLS
from tests.conftest import ROOT
from tests.stdio_session import run


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


# Model-facing bytes (name, description, input schema) the default list may take; new
# toolsets are outside it unless DEFAULT_TOOLSETS names them.
DEFAULT_BUDGET = 30 * 1024


def opening(capabilities: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": capabilities,
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]


def call(ident: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def answers(frames: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {f["id"]: f for f in frames if "id" in f and "method" not in f}


def size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")).encode())


def model_facing(tools: list[dict[str, Any]]) -> int:
    return sum(size({k: t[k] for k in ("name", "description", "inputSchema")}) for t in tools)


def one_at_a_time(env: dict[str, str], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each request sent once the one before it is answered, as a client waits for
    enable_toolset before it lists again (requests are served concurrently)."""
    proc = subprocess.Popen(
        [sys.executable, "main.py", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
    )
    assert proc.stdin and proc.stdout
    frames: list[dict[str, Any]] = []
    for message in messages:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        while "id" in message:
            frames.append(json.loads(proc.stdout.readline()))
            if frames[-1].get("id") == message["id"] and "method" not in frames[-1]:
                break
    proc.stdin.close()
    frames += [json.loads(line) for line in proc.stdout.read().splitlines() if line.strip()]
    assert proc.wait(timeout=30) == 0
    return frames


def test_core_list_grows_by_toolset_with_a_list_changed_notification(tmp_path):
    """A client that declares nothing beyond the standard gets the core list: the server's
    tools.listChanged capability is what it follows."""
    env = environment(tmp_path, GITHUB_MCP_TOOLS="core")
    messages = [
        *opening({}),
        call(3, "enable_toolset", {"name": "actions"}),
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
        call(5, "enable_toolset", {"name": "actions"}),
        call(6, "enable_toolset", {"name": "nonsense"}),
    ]
    frames = one_at_a_time(env, messages)
    got = answers(frames)
    assert got[1]["result"]["capabilities"]["tools"]["listChanged"] is True
    core = {t["name"] for t in got[2]["result"]["tools"]}
    assert core == CORE_TOOLS | {"find_tools", "enable_toolset"}
    assert {"authorize_write_actions", "apply_patch_and_commit"} <= core  # what writes need
    enabled = got[3]["result"]["structuredContent"]
    assert enabled["list_changed"] is True and "list_workflow_runs" in enabled["tools"]
    changed = [f for f in frames if f.get("method") == "notifications/tools/list_changed"]
    assert len(changed) == 1  # the second enable of the same toolset changes nothing
    after = {t["name"] for t in got[4]["result"]["tools"]}
    assert after == core | set(enabled["tools"])
    assert got[5]["result"]["structuredContent"]["list_changed"] is False
    assert got[6]["result"]["isError"] is True
    assert model_facing(got[2]["result"]["tools"]) <= 10 * 1024


# The five most common tasks of each area outside the default toolsets that agents meet
# often, and the tool that does each: all on the default list, so none costs a discovery call.
AREA_TASKS = {
    "releases": {
        "list releases": "list_releases", "read a release": "get_release",
        "read the latest release": "get_release", "draft a release": "draft_release",
        "publish a draft": "publish_release",
    },
    "notifications": {
        "list unread": "list_notifications", "list those I take part in": "list_notifications",
        "read one": "get_notification_details", "mark one done": "dismiss_notification",
        "mark all read": "mark_all_notifications_read",
    },
    "projects": {
        "list projects": "list_projects", "read a project's fields": "get_project",
        "list its items": "list_project_items", "add an item": "add_project_item",
        "set an item's status": "update_project_item_field",
    },
    "sub-issues": {
        "list sub-issues": "list_sub_issues", "add one": "change_sub_issue",
        "remove one": "change_sub_issue", "reorder them": "change_sub_issue",
        "what blocks an issue": "get_issue_dependencies",
    },
    "security alerts": {
        "list Dependabot alerts": "list_security_alerts",
        "list code scanning alerts": "list_security_alerts",
        "read an alert": "get_security_alert", "dismiss an alert": "set_security_alert_state",
        "reopen an alert": "set_security_alert_state",
    },
}  # fmt: skip


def test_the_default_list_is_the_default_toolsets_within_budget(tmp_path):
    listed = answers(serve(environment(tmp_path), opening({})))[2]["result"]["tools"]
    names = {t["name"] for t in listed}
    defaults = {
        s.name for s in REGISTRY.values() if s.toolset in DEFAULT_TOOLSETS and not s.app_only
    }
    # find_tools and enable_toolset are in meta, a default toolset
    assert names == defaults | DEFAULT_TOOLS
    hidden = set(TOOLSETS) - set(DEFAULT_TOOLSETS)
    assert hidden, "every toolset is default: nothing left for enable_toolset"
    assert DEFAULT_TOOLS <= {s.name for s in REGISTRY.values() if s.toolset in hidden}
    unlisted = [s for s in REGISTRY.values() if s.toolset in hidden and s.name not in names]
    assert unlisted, "every tool is listed: nothing left for find_tools"
    for area, tasks in AREA_TASKS.items():
        assert len(tasks) == 5 and set(tasks.values()) <= names, area
    assert set().union(*(t.values() for t in AREA_TASKS.values())) == DEFAULT_TOOLS
    print(f"default list: {len(listed)} tools, {model_facing(listed)} B model-facing")
    assert model_facing(listed) <= DEFAULT_BUDGET, model_facing(listed)


def test_a_toolset_not_named_default_is_not_listed_by_default():
    """The rule for any toolset added later: outside the default set unless listed there."""
    from github_mcp.config import Settings, Toolset, listed_toolsets

    registered = (*TOOLSETS, "brand_new")
    assert "brand_new" not in listed_toolsets("default", registered)
    assert "brand_new" in listed_toolsets("all", registered)
    assert listed_toolsets("default,actions", registered) == {
        *(t.value for t in DEFAULT_TOOLSETS),
        "actions",
    }
    assert Settings(toolsets="repos,actions").toolset_list == ("repos", "actions")
    assert Toolset.ACTIONS not in DEFAULT_TOOLSETS and Toolset.WORKSPACE not in DEFAULT_TOOLSETS


def test_every_tool_is_reachable_through_find_tools(tmp_path):
    full = answers(serve(environment(tmp_path, GITHUB_MCP_TOOLSETS="all"), opening({})))
    names = sorted(t["name"] for t in full[2]["result"]["tools"])
    env = environment(tmp_path, GITHUB_MCP_TOOLS="core")
    queries = [call(10 + i, "find_tools", {"query": n, "limit": 3}) for i, n in enumerate(names)]
    got = answers(serve(env, [*opening({}), *queries]))
    for i, name in enumerate(names):
        found = got[10 + i]["result"]["structuredContent"]["tools"]
        assert name in [f["name"] for f in found], (name, found)
    assert "find_tools" not in names and "enable_toolset" not in names  # all listed: not needed


def test_core_names_only_registered_tools():
    assert CORE_TOOLS <= set(REGISTRY)


def test_the_listing_is_compact(tmp_path):
    full = answers(serve(environment(tmp_path, GITHUB_MCP_TOOLSETS="all"), opening({})))
    tools = full[2]["result"]["tools"]
    for listed in tools:
        assert "title" not in listed and "_meta" not in listed
        assert "outputSchema" not in listed  # GITHUB_MCP_OUTPUT_SCHEMAS is off by default
        hints = listed.get("annotations") or {}
        assert "openWorldHint" not in hints  # MCP's default
        assert hints.get("readOnlyHint") in (True, False)
        if hints.get("readOnlyHint") is not True:
            assert hints.get("destructiveHint") in (True, False)  # said on every write
        for text in json.dumps(listed["inputSchema"]).split('"pattern": ')[1:]:
            assert len(json.loads(text.split(", ")[0].rstrip("}"))) <= 40
    assert size(full[2]["result"]) <= 700 * len(tools)
    assert model_facing(tools) <= 400 * len(tools)


def test_output_schemas_are_listed_when_asked(tmp_path):
    env = environment(tmp_path, GITHUB_MCP_TOOLSETS="repos", GITHUB_MCP_OUTPUT_SCHEMAS="true")
    tools = answers(serve(env, opening({})))[2]["result"]["tools"]
    assert tools and all(t["outputSchema"]["type"] == "object" for t in tools)
