"""Projects (v2) tools through a real MCP client against the forge's GraphQL endpoint: the
demo's octo-org "Roadmap" and octocat's own project, fields with options and iterations,
items with their values; adding, setting each kind of value and archiving (unscoped writes
a human approves). Evidence comes from the forge's project store and request log."""

from __future__ import annotations

import datetime

from sandbox_forge.stores import projects as store
from sandbox_forge.stores.collab import Issue, collab
from sandbox_forge.stores.lookups import now
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client
from tests.test_tools_write import new_repo, write_requests

ORG = {"owner": "octo-org"}


def roadmap(forge) -> store.Project:
    return next(p for p in store.owned_by(forge.state, "octo-org") if p.title == "Roadmap")


def fresh_project(forge, title: str) -> store.Project:
    """A project of octo-org of its own, so writes leave the demo's Roadmap as seeded."""
    project = store.create_project(forge.state, "octo-org", title)
    status = store.add_field(forge.state, project, "Status", "SINGLE_SELECT")
    status.options = [store.Option(id="aa01", name="Todo"), store.Option(id="aa02", name="Done")]
    sprint = store.add_field(forge.state, project, "Iteration", "ITERATION")
    start = datetime.date.today().isoformat()
    sprint.iterations = [store.Iteration(id="it01", title="Sprint 1", start_date=start)]
    for name, kind in (("Notes", "TEXT"), ("Estimate", "NUMBER"), ("Due", "DATE")):
        store.add_field(forge.state, project, name, kind)
    return project


async def test_list_and_read_the_demo_roadmap(make_runtime, forge):
    async with mcp_client(make_runtime()) as client:
        # other tests add projects to the shared forge's organisation: a whole page
        _, listed = await call_tool(client, "list_projects", ORG | {"limit": 100})
        _, mine = await call_tool(
            client, "list_projects", {"owner": "octocat", "owner_type": "user"}
        )
        _, none = await call_tool(client, "list_projects", ORG | {"query": "no such words"})
        _, project = await call_tool(client, "get_project", ORG | {"number": roadmap(forge).number})
        _, items = await call_tool(
            client, "list_project_items", ORG | {"number": roadmap(forge).number}
        )
    assert "Roadmap" in [p["title"] for p in listed["projects"]]
    assert [p["title"] for p in mine["projects"]] == ["Reading list"]
    assert none["projects"] == []
    assert project["id"] == roadmap(forge).node_id
    fields = {f["name"]: f for f in project["fields"]}
    assert {"Title", "Status", "Iteration", "Estimate", "Due"} <= set(fields)
    assert [o["name"] for o in fields["Status"]["options"]] == ["Todo", "In progress", "Done"]
    assert fields["Estimate"]["type"] == "NUMBER" and fields["Due"]["type"] == "DATE"
    iterations = fields["Iteration"]["iterations"]
    assert len(iterations) == 3 and [i["completed"] for i in iterations].count(True) == 1
    assert [v["layout"] for v in project["views"]] == ["TABLE_LAYOUT", "BOARD_LAYOUT"]
    by_number = {i["number"]: i for i in items["items"]}
    assert set(by_number) == {1, 2, 4, 6}
    assert by_number[1]["type"] == "PULL_REQUEST" and by_number[4]["type"] == "ISSUE"
    assert by_number[4]["repository"] == DEMO_REPO
    assert by_number[4]["title"] == "Add a multiply function"
    assert by_number[4]["values"] == {"Status": "Todo", "Estimate": 2.0}
    assert by_number[6]["values"]["Iteration"] == "Iteration 2"
    assert "Due" in by_number[1]["values"] and by_number[2]["values"]["Status"] == "Done"
    assert items["project_id"] == roadmap(forge).node_id


async def test_missing_owner_and_project_are_clear_errors(make_runtime, forge):
    async with mcp_client(make_runtime()) as client:
        _, no_org = await call_tool(client, "list_projects", {"owner": "no-such-org"})
        _, no_project = await call_tool(client, "get_project", ORG | {"number": 999})
        _, bad_login = await call_tool(client, "list_projects", {"owner": "../etc"})
    assert error_code(no_org) == "not_found"
    assert error_code(no_project) == "not_found"
    assert error_code(bad_login) == "invalid_input"


async def test_writes_need_a_human(make_runtime, forge):
    project = fresh_project(forge, "Needs approval")
    issue = collab(forge.state.repo(*DEMO_REPO.split("/"))).issues[4]
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(
            client,
            "add_project_item",
            {"project_id": project.node_id, "full_name": DEMO_REPO, "number": issue.number},
        )
        assert write_requests(forge) == []
    assert error_code(refused) == "write_not_allowed"
    assert project.items == []


async def test_add_set_every_kind_of_value_and_archive(make_runtime, forge):
    project = fresh_project(forge, "Sprint board")
    fields = {f.name: f for f in project.fields}
    pid = project.node_id
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, added = await call_tool(
            client, "add_project_item", {"project_id": pid, "full_name": DEMO_REPO, "number": 4}
        )
        _, again = await call_tool(
            client, "add_project_item", {"project_id": pid, "full_name": DEMO_REPO, "number": 4}
        )
        _, pull = await call_tool(
            client, "add_project_item", {"project_id": pid, "full_name": DEMO_REPO, "number": 2}
        )
        item = {"project_id": pid, "item_id": added["id"]}
        values = {
            "Notes": {"text": "needs a design"},
            "Estimate": {"number": 3.5},
            "Due": {"date": "2026-12-24"},
            "Status": {"option_id": "aa02"},
            "Iteration": {"iteration_id": "it01"},
        }
        answers = {}
        for name, value in values.items():
            field = {"field_id": fields[name].node_id}
            _, answers[name] = await call_tool(
                client, "update_project_item_field", item | field | value
            )
        _, archived = await call_tool(client, "archive_project_item", item)
    stored = project.items[0]
    assert added["type"] == "ISSUE" and added["number"] == 4 and again["id"] == added["id"]
    assert pull["type"] == "PULL_REQUEST" and len(project.items) == 2
    assert stored.values == {
        fields["Notes"].id: "needs a design",
        fields["Estimate"].id: 3.5,
        fields["Due"].id: "2026-12-24",
        fields["Status"].id: "aa02",
        fields["Iteration"].id: "it01",
    }
    assert answers["Status"]["values"]["Status"] == "Done"
    assert answers["Iteration"]["values"]["Iteration"] == "Sprint 1"
    assert stored.archived and archived["archived"] is True
    assert not project.items[1].archived


async def test_bad_values_are_refused_before_or_by_github(make_runtime, forge):
    project = fresh_project(forge, "Strict")
    repo = forge.state.repo(*DEMO_REPO.split("/"))
    item = store.add_item(forge.state, project, repo.id, collab(repo).issues[6].id)
    fields = {f.name: f.node_id for f in project.fields}
    base = {"project_id": project.node_id, "item_id": item.node_id}
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        forge.clear_requests()
        _, two = await call_tool(
            client,
            "update_project_item_field",
            base | {"field_id": fields["Notes"], "text": "a", "number": 1},
        )
        _, bad_date = await call_tool(
            client,
            "update_project_item_field",
            base | {"field_id": fields["Due"], "date": "tomorrow"},
        )
        assert write_requests(forge) == []
        _, wrong_kind = await call_tool(
            client,
            "update_project_item_field",
            base | {"field_id": fields["Status"], "text": "Done"},
        )
        _, no_option = await call_tool(
            client,
            "update_project_item_field",
            base | {"field_id": fields["Status"], "option_id": "zz99"},
        )
        _, title = await call_tool(
            client, "update_project_item_field", base | {"field_id": fields["Title"], "text": "x"}
        )
        _, no_item = await call_tool(
            client,
            "archive_project_item",
            {"project_id": project.node_id, "item_id": roadmap(forge).items[0].node_id},
        )
    assert error_code(two) == "invalid_input" and error_code(bad_date) == "invalid_input"
    assert error_code(wrong_kind) == "unprocessable"
    assert error_code(no_option) == "unprocessable" and error_code(title) == "unprocessable"
    assert error_code(no_item) == "not_found"
    assert item.values == {} and not roadmap(forge).items[0].archived


async def test_items_outside_the_allow_list_are_listed_without_content(make_runtime, forge):
    other = new_repo(forge, prefix="octo-org")
    owner, name = other.split("/")
    repo = forge.state.repo(owner, name)
    issue = collab(repo)
    project = fresh_project(forge, "Mixed")
    with forge.state.lock:
        number = repo.take_number()
        record = Issue(number, forge.state.next_id(), "secret plan", "octocat", now(), now())
        issue.issues[number] = record
    store.add_item(forge.state, project, repo.id, record.id)
    demo = forge.state.repo(*DEMO_REPO.split("/"))
    store.add_item(forge.state, project, demo.id, collab(demo).issues[4].id)
    rt = make_runtime(repo_allowlist=DEMO_REPO)
    async with mcp_client(rt) as client:
        _, items = await call_tool(client, "list_project_items", ORG | {"number": project.number})
        _, refused = await call_tool(
            client,
            "add_project_item",
            {"project_id": project.node_id, "full_name": other, "number": number},
        )
    hidden, shown = items["items"]
    assert hidden["type"] == "OUTSIDE_ALLOW_LIST" and hidden.get("title") is None
    assert "secret plan" not in str(items)
    assert shown["repository"] == DEMO_REPO
    assert error_code(refused) == "repo_not_allowed"
