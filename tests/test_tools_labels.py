"""Label tools through a real MCP client against the forge: the seeded demo's labels, and
create, update and delete as unscoped writes that need a human's approval. Evidence comes
from the forge's label records and the issues carrying them; every request and response is
checked against GitHub's OpenAPI description."""

from __future__ import annotations

from sandbox_forge.admin.seed_collab import create_issue
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.lookups import get_issue
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, settled_requests
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import new_repo, write_requests


def labels_of(forge, full_name: str) -> dict[str, tuple[str, str | None]]:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    return {lb.name: (lb.color, lb.description) for lb in collab(repo).labels.values()}


def issue_labels(forge, full_name: str, number: int) -> list[str]:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    return list(get_issue(repo, number).labels)


def check_contract(forge) -> None:
    records = [r for r in forge.responses() if "/labels" in r["path"]]
    assert records, "no label requests recorded"
    assert validate_records(records) == []
    assert validate_request_bodies(records) == []


async def test_reads_show_the_demo_labels(make_runtime, forge):
    rt = make_runtime()
    forge.clear_responses()
    async with mcp_client(rt) as client:
        _, listed = await call_tool(client, "list_labels", {"full_name": DEMO_REPO})
        _, slashed = await call_tool(
            client, "get_label", {"full_name": DEMO_REPO, "name": "area/web"}
        )
        _, spaced = await call_tool(
            client, "get_label", {"full_name": DEMO_REPO, "name": "good first issue"}
        )
        _, missing = await call_tool(client, "get_label", {"full_name": DEMO_REPO, "name": "nope"})
    stored = labels_of(forge, DEMO_REPO)
    assert {lb["name"] for lb in listed["labels"]} == set(stored)
    assert (slashed["color"], slashed["description"]) == stored["area/web"]
    assert spaced["description"] == "Good for newcomers"
    assert error_code(missing) == "not_found"
    check_contract(forge)


async def test_label_writes_need_approval(make_runtime, forge):
    repo = new_repo(forge, prefix="labels-org")
    create_issue(forge, repo, "Crash", labels=["bug"])
    before = labels_of(forge, repo)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        refused = [
            await call_tool(client, "create_label", {"full_name": repo, "name": "new"}),
            await call_tool(
                client, "update_label", {"full_name": repo, "name": "bug", "new_name": "x"}
            ),
            await call_tool(client, "delete_label", {"full_name": repo, "name": "bug"}),
        ]
        writes = write_requests(forge)
    assert [error_code(payload) for _, payload in refused] == ["write_not_allowed"] * 3
    assert writes == []
    assert labels_of(forge, repo) == before


async def test_create_rename_recolour_delete(make_runtime, forge):
    repo = new_repo(forge, prefix="labels-org")
    issue = create_issue(forge, repo, "Slow start", labels=["perf"])
    rt = make_runtime(auto_approve=True)
    forge.clear_responses()
    async with mcp_client(rt) as client:
        _, created = await call_tool(
            client,
            "create_label",
            {"full_name": repo, "name": "area/api", "color": "#FFAA00", "description": "API"},
        )
        _, duplicate = await call_tool(client, "create_label", {"full_name": repo, "name": "perf"})
        _, renamed = await call_tool(
            client,
            "update_label",
            {"full_name": repo, "name": "perf", "new_name": "performance", "color": "00ff00"},
        )
        after_rename = issue_labels(forge, repo, issue["number"])
        recoloured = labels_of(forge, repo).get("performance")
        _, nothing = await call_tool(client, "update_label", {"full_name": repo, "name": "x"})
        _, bad_colour = await call_tool(
            client, "create_label", {"full_name": repo, "name": "c", "color": "red"}
        )
        _, slashed = await call_tool(
            client, "delete_label", {"full_name": repo, "name": "area/api"}
        )
        _, deleted = await call_tool(
            client, "delete_label", {"full_name": repo, "name": "performance"}
        )
    stored = labels_of(forge, repo)
    assert created == {"name": "area/api", "color": "ffaa00", "description": "API"}
    assert renamed["name"] == "performance" and recoloured == ("00ff00", None)
    assert after_rename == ["performance"]  # the issue follows the rename
    assert error_code(duplicate) == "unprocessable"
    assert error_code(nothing) == error_code(bad_colour) == "invalid_input"
    assert error_code(slashed) == "invalid_input"  # refused, never sent with an encoded slash
    assert deleted == {"name": "performance", "deleted": True}
    assert set(stored) == {"area/api"}
    assert issue_labels(forge, repo, issue["number"]) == []
    check_contract(forge)


async def test_the_allow_list_applies(make_runtime, forge):
    repo = new_repo(forge, prefix="labels-org")
    rt = make_runtime(auto_approve=True, repo_allowlist="someone/else")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, read = await call_tool(client, "list_labels", {"full_name": repo})
        _, write = await call_tool(client, "create_label", {"full_name": repo, "name": "x"})
        touched = [r for r in settled_requests(forge) if repo in r["path"]]
    assert error_code(read) == error_code(write) == "repo_not_allowed"
    assert touched == []
    assert labels_of(forge, repo) == {}
