"""The write policy, walked over the whole registry and rule by rule."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fastmcp import Client

from github_mcp.pipeline.registry import REGISTRY
from github_mcp.policy.write_gate import WriteGate
from github_mcp.serving.server import build_mcp
from sandbox_forge.stores import projects
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, traversable

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

SAMPLES: dict[str, Any] = {
    "full_name": DEMO_REPO,
    "branch": "main",
    "ref": "main",
    "base": "main",
    "head": "feature-x",
    "from_ref": "main",
    "path": "README.md",
    "new_path": "README2.md",
    "message": "msg",
    "content": "hello\n",
    "title": "title",
    "body": "body",
    "number": 1,
    "pr": f"{DEMO_REPO}#1",
    "patch": "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n",
    "command": "true",
    "approved": True,
    "name": "get_me",
    "args": {},
    "query": "hello",
    "id": "x",
    "job_id": 1,
    "run_id": 1,
    "thread_id": "T_1",
    "gist_id": "0123abcd",
    "workflow": "ci.yml",
    "labels": ["bug"],
    "event": "COMMENT",
    "base_pr": f"{DEMO_REPO}#1",
    "dependent_pr": f"{DEMO_REPO}#2",
    "sections": [{"start_line": 1, "end_line": 1, "new_text": "x"}],
    "files": [{"path": "README.md", "content": "x"}],
    "paths": ["README.md"],
    "item_ids": ["PVTI_x"],
    "start_date": "2024-01-01",
}


_NONE = object()
_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "boolean": bool,
    "array": list,
    "object": dict,
}


def _fits(value: Any, kind: str | None, pattern: str | None = None) -> bool:
    if pattern is not None and not (isinstance(value, str) and re.search(pattern, value)):
        return False
    return kind is None or isinstance(value, _TYPES.get(kind, object))


# Strings tried, in order, for a patterned argument the samples do not fit.
_PATTERNED = ("1", "x", "a1b2c3", "0123456789abcdef0123456789abcdef", "x/y")


def synth_args(schema: dict[str, Any]) -> dict[str, Any]:
    """Plausible arguments for every required parameter of a tool's input schema."""
    args: dict[str, Any] = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        choices, kind = prop.get("enum"), prop.get("type")
        sample = SAMPLES.get(name, _NONE)
        pattern = prop.get("pattern")
        if (
            sample is not _NONE
            and _fits(sample, kind, pattern)
            and (not choices or sample in choices)
        ):
            args[name] = sample
            continue
        fitting = [c for c in _PATTERNED if pattern and _fits(c, kind, pattern)]
        if fitting:
            args[name] = fitting[0]
            continue
        if choices:
            args[name] = choices[0]
            continue
        # an object argument gets one string entry (a gist's files, say)
        args[name] = {
            "string": "x",
            "integer": 1,
            "boolean": True,
            "array": [],
            "object": {"a.txt": "x"},
        }.get(kind, "x")
    if "pr" in schema.get("properties", {}):
        args["pr"] = SAMPLES["pr"]
    return args


async def _changed_clone_of_main(client: Client) -> None:
    """commit_workspace binds its approval to the clone's would-be commit, so it needs a
    clone with a change before it reaches the gate."""
    is_error, clone = await call_tool(
        client, "ensure_workspace_clone", {"full_name": DEMO_REPO, "ref": "main"}
    )
    assert not is_error, clone
    (Path(clone["path"]) / "gate-walk.txt").write_text("change\n")


async def tools_by_name(client: Client) -> dict[str, Any]:
    return {t.name: t for t in await client.list_tools()}


async def test_every_write_tool_is_gated_on_a_protected_branch(make_runtime, forge, tmp_path):
    # "*" protects every branch, so tools whose target is resolved (a PR's head or
    # base) are covered too; branch-argument tools are pointed at the default branch.
    rt = make_runtime(protected_branches="*", workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        tools = await tools_by_name(client)
        await _changed_clone_of_main(client)
        write_specs = [s for s in REGISTRY.values() if s.write]
        assert write_specs, "the registry should hold write tools"
        # A real run: tools whose target is the run's branch must reach the gate, not
        # stop at not_found for an invented id.
        _, runs = await call_tool(client, "list_workflow_runs", {"full_name": DEMO_REPO})
        roadmap = next(p for p in projects.owned_by(forge.state, "octo-org"))
        real_ids = {
            "run_id": runs["runs"][0]["id"],
            "release_id": forge.state.extensions["breadth_demo"]["draft"]["id"],
            "gist_id": forge.state.extensions["breadth_people"]["gists"]["secret"],
            # a project item's binding reads the item and field it names
            "project_id": roadmap.node_id,
            "item_id": roadmap.items[0].node_id,
            "field_id": roadmap.fields[0].node_id,
            "item_ids": [roadmap.items[0].node_id],
            "field": roadmap.fields[1].name,
        }
        for spec in write_specs:
            args = {**synth_args(tools[spec.name].input_schema)}
            args.update({k: v for k, v in real_ids.items() if k in args})
            if isinstance(spec.target, str):
                args[spec.target] = "main"
            forge.clear_requests()
            is_error, payload = await call_tool(client, spec.name, args)
            assert is_error, spec.name
            assert error_code(payload) == "write_not_allowed", (spec.name, payload)
            # a GraphQL query (a binding's read) is a POST that writes nothing
            writes = [
                r for r in forge.requests()
                if r["method"] in WRITE_METHODS and r.get("graphql") != "query"
            ]  # fmt: skip
            assert writes == [], (spec.name, writes)


async def test_read_only_mode_removes_every_write_tool(make_runtime):
    full = make_runtime()
    read_only = make_runtime(read_only=True)
    async with mcp_client(full) as a, mcp_client(read_only) as b:
        all_names = set(await tools_by_name(a))
        ro_names = set(await tools_by_name(b))
    write_names = {s.name for s in REGISTRY.values() if s.write}
    assert write_names and write_names <= all_names
    assert ro_names == all_names - write_names


async def test_repo_outside_allowlist_is_refused_by_every_tool(make_runtime, forge):
    rt = make_runtime(repo_allowlist="someone/else,other-org/*", auto_approve=True)
    async with mcp_client(rt) as client:
        tools = await tools_by_name(client)
        repo_tools = [s for s in rt.bound_specs.values() if s.repo_arg or s.pr_arg]
        assert len(repo_tools) >= 2
        for spec in repo_tools:
            args = synth_args(tools[spec.name].input_schema)
            if "full_name" in tools[spec.name].input_schema["properties"]:
                args["full_name"] = DEMO_REPO
            forge.clear_requests()
            is_error, payload = await call_tool(client, spec.name, args)
            assert is_error and error_code(payload) == "repo_not_allowed", (spec.name, payload)
            assert forge.requests() == [], spec.name


async def test_allowlist_owner_wildcard_allows_reads(make_runtime):
    rt = make_runtime(repo_allowlist="octo-org/*")
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(
            client, "invalidate_repo_cache", {"full_name": DEMO_REPO}
        )
        assert not is_error, payload
        is_error, payload = await call_tool(
            client, "invalidate_repo_cache", {"full_name": "evil/repo"}
        )
        assert error_code(payload) == "repo_not_allowed"


async def test_feature_branch_write_allowed_without_approval(make_runtime, forge):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(
            client, "create_branch", {"full_name": DEMO_REPO, "branch": "gate-feature-1"}
        )
        assert not is_error, payload
        assert payload["created"] is True
        # idempotent when it already points at the same commit
        is_error, again = await call_tool(
            client, "create_branch", {"full_name": DEMO_REPO, "branch": "gate-feature-1"}
        )
        assert not is_error and again["created"] is False and again["sha"] == payload["sha"]
    lines = [json.loads(line) for line in rt.settings.audit_log.read_text().splitlines()]
    assert lines[0]["tool"] == "create_branch" and lines[0]["outcome"] == "ok"
    assert lines[0]["ref"] == "gate-feature-1" and lines[0]["sha"] == payload["sha"]


async def test_default_branch_needs_approval_then_allowed(make_runtime, forge):
    rt = make_runtime()
    forge.seed_repo("octo-org/gate-repo", {"README.md": "x\n"}, default_branch="trunk")
    async with mcp_client(rt) as client:
        args = {"full_name": "octo-org/gate-repo", "branch": "trunk", "from_ref": "trunk"}
        is_error, payload = await call_tool(client, "create_branch", args)
        assert error_code(payload) == "write_not_allowed"
        assert payload["error"]["reason"] == "default_branch"
        assert "feature branch" in payload["error"]["hint"]
        is_error, state = await call_tool(client, "authorize_write_actions", {"approved": True})
        assert not is_error and state["approved"] is True
        is_error, payload = await call_tool(client, "create_branch", args)
        assert not is_error, payload  # the branch exists at that sha: idempotent success
        await call_tool(client, "authorize_write_actions", {"approved": False})
        is_error, payload = await call_tool(client, "create_branch", args)
        assert error_code(payload) == "write_not_allowed"
    assert rt.metrics.recent_denials[-1]["reason"] == "default_branch"


async def test_protected_glob_and_controller_branch(make_runtime, forge):
    rt = make_runtime(
        protected_branches="release/*",
        controller_repo=DEMO_REPO,
        controller_branch="controller-work",
    )
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(
            client, "create_branch", {"full_name": DEMO_REPO, "branch": "release/1.0"}
        )
        assert payload["error"]["reason"] == "protected_glob"
        is_error, payload = await call_tool(
            client,
            "create_branch",
            {"full_name": DEMO_REPO, "branch": "controller-work", "from_ref": "main"},
        )
        assert payload["error"]["reason"] == "controller_branch"


async def test_effective_ref_in_controller_repo_maps_main(make_runtime):
    rt = make_runtime(controller_repo=DEMO_REPO, controller_branch="ctrl-base")
    assert await rt.gate.effective_ref(DEMO_REPO, None) == "ctrl-base"
    assert await rt.gate.effective_ref(DEMO_REPO, "main") == "ctrl-base"
    assert await rt.gate.effective_ref(DEMO_REPO, "other") == "other"
    assert await rt.gate.effective_ref("octo-org/devel-default2", "x") == "x"


async def test_effective_ref_uses_real_default_branch_and_override(make_runtime, forge):
    forge.seed_repo("octo-org/devel-default", {"a.txt": "a\n"}, default_branch="develop")
    rt = make_runtime()
    assert await rt.gate.effective_ref("octo-org/devel-default", None) == "develop"
    rt2 = make_runtime(github_repo_defaults=json.dumps({"octo-org/devel-default": "stable"}))
    assert await rt2.gate.effective_ref("octo-org/devel-default", None) == "stable"


async def test_approval_expires(make_runtime):
    rt = make_runtime(approval_ttl_seconds=1)
    now = [1000.0]  # the gate's clock, moved by hand instead of waiting
    gate = WriteGate(rt.settings, rt.metrics, rt.gate.default_branch, clock=lambda: now[0])
    a, b = "bearer:x/session:a", "bearer:x/session:b"
    gate.set_approval(a, True)
    assert gate.is_approved(a)
    assert not gate.is_approved(b)
    now[0] += 0.9
    assert gate.is_approved(a) and gate.approval_expires_in(a) == 0.1
    now[0] += 0.1
    assert not gate.is_approved(a)


async def test_env_mode_refuses_tool_approval(make_runtime):
    rt = make_runtime(approval_mode="env")
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(client, "authorize_write_actions", {"approved": True})
        assert is_error and error_code(payload) == "forbidden"
    rt2 = make_runtime(approval_mode="env", auto_approve=True)
    assert rt2.gate.is_approved("anything")


async def test_elicit_mode_asks_the_human(make_runtime):
    async def accept(message, response_type, params, context):
        assert "Allow" in message
        return True

    async def decline(message, response_type, params, context):
        return False

    for handler, expected in ((accept, True), (decline, False)):
        rt = make_runtime(approval_mode="elicit")
        async with Client(build_mcp(rt), elicitation_handler=handler, mode="legacy") as client:
            is_error, payload = await call_tool(
                client, "authorize_write_actions", {"approved": True}
            )
            if expected:
                assert not is_error and payload["approved"] is True
            else:
                assert error_code(payload) == "write_not_allowed"


async def test_elicit_mode_without_client_support_is_refused(make_runtime):
    rt = make_runtime(approval_mode="elicit")
    async with Client(build_mcp(rt), mode="legacy") as client:
        is_error, payload = await call_tool(client, "authorize_write_actions", {"approved": True})
        assert is_error and error_code(payload) == "write_not_allowed"
        assert "elicitation" in payload["error"]["message"]


async def test_elicit_mode_on_modern_connections_uses_input_required(make_runtime):
    asked: list[str] = []

    async def accept(message, response_type, params, context):
        asked.append(message)
        return {"approve": True}

    rt = make_runtime(approval_mode="elicit")
    async with Client(build_mcp(rt), elicitation_handler=accept) as client:
        assert client.protocol_version == "2026-07-28"
        is_error, payload = await call_tool(client, "authorize_write_actions", {"approved": True})
        assert not is_error, payload
        assert payload["approved"] is True
    assert asked and "Allow" in asked[0]


def odd_spellings(branch: str) -> list[str]:
    """Spellings a lenient parser, URL normaliser or human eye takes for `branch`."""
    return [
        f"./{branch}",
        f"{branch}/.",
        f"refs/heads/./{branch}",
        f"feature/../{branch}",
        f"%2e/{branch}",
        f"%2E%2E/{branch}",
        f".%2e/{branch}",
        f"{branch}%2F.",
        f"{branch[:2]}\u200b{branch[2:]}",  # zero-width space
        f"\u2066{branch}\u2069",  # bidi isolate
        f"{branch[:3]}\u00ad{branch[3:]}",  # soft hyphen
        f"\ufeff{branch}",  # byte-order mark
        f"{branch}#frag",
        f"{branch}/",
        f"/{branch}",
        "HEAD",
    ]


async def test_every_ref_argument_refuses_odd_spellings_of_a_protected_branch(
    make_runtime, forge, tmp_path
):
    from github_mcp.pipeline.arguments import ref_params

    owner, name = DEMO_REPO.split("/")
    repo = forge.state.repo(owner, name)

    def heads() -> dict[str, str]:
        return {ref: sha for ref, sha, _ in repo.git.list_refs()}

    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        tools = await tools_by_name(client)
        await _changed_clone_of_main(client)
        walked = 0
        for spec in [s for s in REGISTRY.values() if s.write]:
            for param, is_branch in ref_params(spec):
                for spelling in odd_spellings("main"):
                    args = synth_args(tools[spec.name].input_schema)
                    if isinstance(spec.target, str) and spec.target != param:
                        args[spec.target] = "gate-walk-feature"
                    args[param] = spelling
                    before = heads()
                    forge.clear_requests()
                    is_error, payload = await call_tool(client, spec.name, args)
                    after = heads()
                    assert {r: after.get(r) for r in before} == before, (spec.name, spelling)
                    if spelling == "HEAD" and not is_branch and param != spec.target:
                        continue  # HEAD is a fine ref to read from
                    assert is_error, (spec.name, param, spelling, payload)
                    assert error_code(payload) in ("invalid_input", "write_not_allowed"), (
                        spec.name,
                        param,
                        spelling,
                        payload,
                    )
                    sent = forge.requests()
                    if error_code(payload) == "invalid_input":
                        sent_writes = sent  # refused before any request
                    else:
                        sent_writes = [r for r in sent if r["method"] in WRITE_METHODS]
                    assert sent_writes == [], (spec.name, param, spelling)
                    walked += 1
                # the full spelling is the protected branch itself: gated like it
                if param == spec.target:
                    args = synth_args(tools[spec.name].input_schema)
                    args[param] = "refs/heads/main"
                    before = heads()
                    forge.clear_requests()
                    is_error, payload = await call_tool(client, spec.name, args)
                    assert is_error and error_code(payload) == "write_not_allowed", (
                        spec.name,
                        payload,
                    )
                    assert heads() == before, spec.name
                    assert not [r for r in forge.requests() if r["method"] in WRITE_METHODS], (
                        spec.name
                    )
        assert walked >= 100
