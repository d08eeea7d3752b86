"""Issue types and issue fields through a real MCP client against the forge: unscoped
writes that need a human's approval; evidence from the forge's own records (an issue's
type id, its stored field values, kept suggestions); hostile names and values refused
before any write; requests and responses checked against GitHub's OpenAPI description."""

from __future__ import annotations

import uuid

from sandbox_forge.admin.seed_collab import create_issue
from sandbox_forge.stores import issue_meta as meta
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, settled_requests
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import write_requests


def org_repo(forge) -> tuple[str, dict[str, int], dict[str, meta.IssueField]]:
    """A fresh organisation's repository with types Bug and Feature and four fields."""
    org = f"meta-org-{uuid.uuid4().hex[:8]}"
    forge.state.ensure_user(org, type="Organization")
    full_name = f"{org}/tracker"
    forge.seed_repo(full_name, {"README.md": "# tracker\n"})
    types = {n: meta.add_type(forge.state, org, n).id for n in ("Bug", "Feature")}
    fields = {
        "Priority": meta.add_field(
            forge.state, org, "Priority", "single_select", None, ["P0", "P1"]
        ),
        "Estimate": meta.add_field(forge.state, org, "Estimate", "number"),
        "Due": meta.add_field(forge.state, org, "Due", "date"),
        "Areas": meta.add_field(forge.state, org, "Areas", "multi_select", None, ["api", "ui"]),
    }
    return full_name, types, fields


def issue_id(forge, full_name: str, number: int) -> int:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    return repo.extra["collab"].issues[number].id


def stored_values(forge, full_name: str, number: int) -> dict[int, object]:
    return dict(meta.values_of(forge.state, issue_id(forge, full_name, number)))


def contract_clean(forge, marker: str) -> None:
    records = [r for r in forge.responses() if marker in r["path"]]
    assert records and validate_records(records) == [] and validate_request_bodies(records) == []


async def test_issue_type_needs_approval_then_sets_clears_and_suggests(make_runtime, forge):
    repo, types, _ = org_repo(forge)
    number = create_issue(forge, repo, "Crash on start")["number"]
    iid = issue_id(forge, repo, number)
    args = {"full_name": repo, "number": number, "type": "bug"}
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "set_issue_type", args)
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed" and writes == []
    assert iid not in meta.store(forge.state).issue_type

    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, listed = await call_tool(client, "list_issue_types", {"full_name": repo})
        _, set_ = await call_tool(client, "set_issue_type", args)
        assert meta.store(forge.state).issue_type[iid] == types["Bug"]
        suggestion = {**args, "type": "Feature", "rationale": "It asks for a new thing."}
        _, suggested = await call_tool(
            client, "set_issue_type", {**suggestion, "suggest": True, "confidence": "low"}
        )
        assert meta.store(forge.state).issue_type[iid] == types["Bug"]  # not applied
        _, cleared = await call_tool(client, "set_issue_type", {**args, "type": None})
        forge.clear_requests()
        _, unknown = await call_tool(client, "set_issue_type", {**args, "type": "Epic"})
        unknown_writes = write_requests(forge)
    assert [t["name"] for t in listed["types"]] == ["Bug", "Feature"]
    assert set_ == {**set_, "number": number, "type": "Bug", "suggested": False}
    assert suggested["suggested"] is True and suggested["type"] == "Bug"
    kept = [s for s in meta.store(forge.state).suggestions if s["issue_id"] == iid]
    assert kept == [
        {
            "issue_id": iid,
            "type": "Feature",
            "rationale": "It asks for a new thing.",
            "suggest": True,
            "confidence": "low",
        }
    ]
    assert cleared.get("type") is None and iid not in meta.store(forge.state).issue_type
    assert error_code(unknown) == "invalid_input" and "Bug, Feature" in unknown["error"]["hint"]
    assert unknown_writes == []
    contract_clean(forge, "/issue")


async def test_issue_fields_merge_replace_and_clear(make_runtime, forge):
    repo, _, fields = org_repo(forge)
    number = create_issue(forge, repo, "Slow search")["number"]
    ids = {name: f.id for name, f in fields.items()}
    base = {"full_name": repo, "number": number}
    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, listed = await call_tool(client, "list_issue_fields", {"full_name": repo})
        _, merged = await call_tool(
            client, "set_issue_fields", {**base, "values": {"priority": "p1", "Estimate": 3}}
        )
        assert stored_values(forge, repo, number) == {ids["Priority"]: "P1", ids["Estimate"]: 3}
        await call_tool(client, "set_issue_fields", {**base, "values": {"Areas": ["UI", "api"]}})
        assert stored_values(forge, repo, number)[ids["Areas"]] == ["ui", "api"]
        _, replaced = await call_tool(
            client,
            "set_issue_fields",
            {**base, "values": {"Due": "2030-01-31", "Priority": "P0"}, "replace": True},
        )
        assert stored_values(forge, repo, number) == {
            ids["Due"]: "2030-01-31",
            ids["Priority"]: "P0",
        }
        _, cleared = await call_tool(client, "set_issue_fields", {**base, "values": {"Due": None}})
        _, shown = await call_tool(client, "list_issue_fields", {**base})
    assert [(f["name"], f["data_type"]) for f in listed["fields"]] == [
        ("Priority", "single_select"),
        ("Estimate", "number"),
        ("Due", "date"),
        ("Areas", "multi_select"),
    ]
    assert listed["fields"][0]["options"] == ["P0", "P1"] and listed.get("values") is None
    assert {v["field"]: v["value"] for v in merged["values"]} == {"Priority": "P1", "Estimate": 3}
    assert {v["field"]: v["value"] for v in replaced["values"]} == {
        "Due": "2030-01-31",
        "Priority": "P0",
    }
    assert stored_values(forge, repo, number) == {ids["Priority"]: "P0"}
    assert (
        cleared["values"]
        == shown["values"]
        == [{"field": "Priority", "data_type": "single_select", "value": "P0"}]
    )
    contract_clean(forge, "/issue-field")


async def test_hostile_field_names_and_values_never_reach_the_forge(make_runtime, forge):
    repo, _, fields = org_repo(forge)
    number = create_issue(forge, repo, "Target")["number"]
    base = {"full_name": repo, "number": number}
    bad = [
        {"No such field": "x"},
        {"Priority": "P9"},
        {"Estimate": "ten"},
        {"Estimate": True},
        {"Due": "tomorrow"},
        {"Due": "2030-02-30"},
        {"Priority": ["P0"]},
    ]
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        forge.clear_requests()
        answers = [
            (await call_tool(client, "set_issue_fields", {**base, "values": v}))[1] for v in bad
        ]
        _, multi_replace = await call_tool(
            client, "set_issue_fields", {**base, "values": {"Areas": ["api"]}, "replace": True}
        )
        _, too_many = await call_tool(
            client, "set_issue_fields", {**base, "values": {f"f{i}": "x" for i in range(26)}}
        )
        _, empty = await call_tool(client, "set_issue_fields", {**base, "values": {}})
        writes = write_requests(forge)
    assert [error_code(a) for a in answers] == ["invalid_input"] * len(bad)
    assert "Priority" in answers[0]["error"]["hint"] and "P0, P1" in answers[1]["error"]["hint"]
    assert error_code(multi_replace) == "invalid_input"
    assert error_code(too_many) == error_code(empty) == "invalid_input"
    assert writes == [] and stored_values(forge, repo, number) == {}
    # Field text stored on the forge is shown without its invisible characters.
    with forge.state.lock:
        fields["Priority"].options[0].name = "P0\u202e\u200b"
        meta.store(forge.state).values[issue_id(forge, repo, number)] = {
            fields["Priority"].id: "P0\u202e\u200b"
        }
    async with mcp_client(make_runtime()) as client:
        _, shown = await call_tool(client, "list_issue_fields", base)
    assert shown["fields"][0]["options"][0] == "P0" and shown["values"][0]["value"] == "P0"


async def test_user_repositories_have_neither_and_the_allow_list_applies(make_runtime, forge):
    user_repo = f"meta-user-{uuid.uuid4().hex[:8]}/notes"
    forge.seed_repo(user_repo, {"README.md": "# notes\n"})
    async with mcp_client(make_runtime()) as client:
        _, types = await call_tool(client, "list_issue_types", {"full_name": user_repo})
        _, fields = await call_tool(client, "list_issue_fields", {"full_name": user_repo})
    assert types["types"] == [] and "organisation" in types["note"]
    assert fields["fields"] == [] and "not an organisation" in fields["note"]

    rt = make_runtime(auto_approve=True, repo_allowlist="someone/else")
    args = {"full_name": DEMO_REPO, "number": 3}
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, read = await call_tool(client, "list_issue_types", {"full_name": DEMO_REPO})
        _, write = await call_tool(client, "set_issue_type", {**args, "type": "Task"})
        _, fields_write = await call_tool(
            client, "set_issue_fields", {**args, "values": {"Priority": "P0"}}
        )
        touched = [r for r in settled_requests(forge) if "demo-app" in r["path"]]
    assert {error_code(read), error_code(write), error_code(fields_write)} == {"repo_not_allowed"}
    assert touched == []


async def test_the_demo_organisation_has_types_and_fields(make_runtime, forge):
    demo = forge.state.extensions["issue_meta_demo"]
    bug = forge.state.extensions["collab_demo"]["issues"]["bug"]
    async with mcp_client(make_runtime()) as client:
        _, types = await call_tool(client, "list_issue_types", {"full_name": DEMO_REPO})
        _, fields = await call_tool(
            client, "list_issue_fields", {"full_name": DEMO_REPO, "number": bug}
        )
        _, issue = await call_tool(client, "get_issue", {"full_name": DEMO_REPO, "number": bug})
    assert [t["name"] for t in types["types"]] == demo["types"] == ["Bug", "Feature", "Task"]
    assert {v["field"]: v["value"] for v in fields["values"]} == {"Priority": "P1", "Estimate": 2}
    assert issue["type"] == "Bug"  # get_issue shows the type GitHub's issue carries
