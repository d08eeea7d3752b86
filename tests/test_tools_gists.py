"""Gist tools through a real MCP client against the forge: octocat's seeded gists, and
create (secret by default) and update as unscoped writes that need a human's approval.
Evidence comes from the forge's gist records; every request and response is checked
against GitHub's OpenAPI description."""

from __future__ import annotations

from sandbox_forge.stores import gists as gist_store
from tests.conftest import call_tool, error_code, mcp_client
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import write_requests


def check_contract(forge) -> None:
    records = [r for r in forge.responses() if r["path"].startswith(("/gists", "/api/v3/gists"))]
    assert records, "no gist requests recorded"
    assert validate_records(records) == []
    # gists/update's description says "to delete a file, set the whole file to null", but
    # its schema types each file as an object: the documented null is allowed here alone.
    problems = [
        p
        for p in validate_request_bodies(records)
        if not ("(gists/update): $.files[" in p and "None is not of type 'object'" in p)
    ]
    assert problems == []


async def test_reads_show_the_demo_gists(make_runtime, forge):
    demo = forge.state.extensions["breadth_people"]["gists"]
    rt = make_runtime()
    forge.clear_responses()
    async with mcp_client(rt) as client:
        _, listed = await call_tool(client, "list_gists")
        _, snippet = await call_tool(client, "get_gist", {"gist_id": demo["public"]})
        _, note = await call_tool(client, "get_gist", {"gist_id": demo["secret"]})
        _, missing = await call_tool(client, "get_gist", {"gist_id": "0" * 32})
    ids = {g["id"]: g for g in listed["gists"]}
    assert ids[demo["public"]]["public"] is True and ids[demo["secret"]]["public"] is False
    assert snippet["files"][0]["name"] == "divide.py"
    assert "return a / b" in snippet["files"][0]["content"]
    assert note["owner"] == "octocat" and note["files"][0]["content"].startswith("- cut v0.2.0")
    assert error_code(missing) == "not_found"
    check_contract(forge)


async def test_gist_writes_need_approval(make_runtime, forge):
    before = dict(gist_store.gists(forge.state))
    demo = forge.state.extensions["breadth_people"]["gists"]
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, created = await call_tool(client, "create_gist", {"files": {"a.txt": "secret data"}})
        _, updated = await call_tool(
            client, "update_gist", {"gist_id": demo["secret"], "description": "leak"}
        )
        writes = write_requests(forge)
    assert error_code(created) == error_code(updated) == "write_not_allowed"
    assert writes == []
    assert gist_store.gists(forge.state) == before
    assert gist_store.gists(forge.state)[demo["secret"]].description == "Release to-do"


async def test_create_secret_then_update(make_runtime, forge):
    rt = make_runtime(auto_approve=True)
    forge.clear_responses()
    async with mcp_client(rt) as client:
        _, created = await call_tool(
            client,
            "create_gist",
            {"files": {"notes.md": "# one\n", "old.txt": "x\n"}, "description": "Notes"},
        )
        gist_id = created["id"]
        _, updated = await call_tool(
            client,
            "update_gist",
            {"gist_id": gist_id, "files": {"notes.md": "# two\n", "old.txt": None}},
        )
        _, nothing = await call_tool(client, "update_gist", {"gist_id": gist_id})
        _, bad_name = await call_tool(client, "create_gist", {"files": {"a/b": "x"}})
    stored = gist_store.gists(forge.state)[gist_id]
    assert created["public"] is False and stored.public is False  # secret by default
    assert stored.owner == "octocat" and stored.description == "Notes"
    assert stored.files == {"notes.md": "# two\n"}
    assert [f["name"] for f in updated["files"]] == ["notes.md"]
    assert error_code(nothing) == error_code(bad_name) == "invalid_input"
    check_contract(forge)
