"""Projects (v2) beyond one item value, through a real MCP client against the forge: a
project's fields, views and status updates listed on their own; creating a project, a
status update, a view (REST) and an iteration field; setting one field on many items at
once and deleting an item. Every write is an unscoped write a human approves. Evidence
comes from the forge's project store and its request log."""

from __future__ import annotations

import datetime
import uuid

from sandbox_forge.stores import projects as store
from sandbox_forge.stores.collab import collab
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client
from tests.test_tools_projects import ORG, fresh_project, roadmap
from tests.test_tools_write import write_requests


def project_numbered(forge, owner: str, number: int) -> store.Project:
    return next(p for p in store.owned_by(forge.state, owner) if p.number == number)


async def test_fields_views_and_status_updates_are_listed_on_their_own(make_runtime, forge):
    plan = roadmap(forge)
    mine = {"project_id": plan.node_id}
    async with mcp_client(make_runtime()) as client:
        _, fields = await call_tool(client, "list_project_fields", mine)
        _, views = await call_tool(client, "list_project_views", mine)
        _, updates = await call_tool(client, "list_project_status_updates", mine)
        _, missing = await call_tool(
            client, "list_project_views", {"project_id": store.make_id("PVT", 999_999)}
        )
    assert fields["project_id"] == views["project_id"] == plan.node_id
    by_name = {f["name"]: f for f in fields["fields"]}
    assert {f.name: f.id for f in plan.fields} == {n: f["database_id"] for n, f in by_name.items()}
    assert [o["name"] for o in by_name["Status"]["options"]] == ["Todo", "In progress", "Done"]
    assert len(by_name["Iteration"]["iterations"]) == 3
    assert [(v["number"], v["layout"]) for v in views["views"]] == [
        (1, "TABLE_LAYOUT"), (2, "BOARD_LAYOUT"),
    ]  # fmt: skip
    assert [v["database_id"] for v in views["views"]] == [v.id for v in plan.views]
    (update,) = updates["updates"]
    assert (update["status"], update["author"]) == ("ON_TRACK", "alice")
    assert update["body"] == plan.status_updates[0].body
    assert update["target_date"] == plan.status_updates[0].target_date
    assert error_code(missing) == "not_found"


async def test_create_a_project_with_a_status_update_a_view_and_an_iteration_field(
    make_runtime, forge
):
    title = f"Launch {uuid.uuid4().hex[:6]}"
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "create_project", ORG | {"title": title})
        refused_writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed" and refused_writes == []
    assert not any(p.title == title for p in store.owned_by(forge.state, "octo-org"))

    start = datetime.date.today()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, made = await call_tool(client, "create_project", ORG | {"title": title})
        project = project_numbered(forge, "octo-org", made["number"])
        _, status = await call_tool(
            client,
            "create_project_status_update",
            {"project_id": made["id"], "status": "AT_RISK", "body": "Blocked on review.",
             "start_date": start.isoformat(),
             "target_date": (start + datetime.timedelta(days=7)).isoformat()},
        )  # fmt: skip
        _, sprints = await call_tool(
            client,
            "create_project_iteration_field",
            {"project_id": made["id"], "name": "Sprint", "start_date": start.isoformat(),
             "duration_days": 7},
        )  # fmt: skip
        _, taken = await call_tool(
            client,
            "create_project_iteration_field",
            {"project_id": made["id"], "name": "sprint", "start_date": start.isoformat()},
        )
        _, board = await call_tool(
            client,
            "create_project_view",
            {"project_id": made["id"], "name": "Sprint board", "layout": "board",
             "filter": "is:open", "visible_fields": ["Title", "sprint"]},
        )  # fmt: skip
        _, unknown = await call_tool(
            client,
            "create_project_view",
            {"project_id": made["id"], "name": "Bad", "visible_fields": ["Nope"]},
        )
        _, nobody = await call_tool(client, "create_project", {"owner": "no-such-x", "title": "t"})
        mine = {"owner": "octocat", "title": f"Mine {title}"}
        _, personal = await call_tool(client, "create_project", mine)
        _, personal_view = await call_tool(
            client, "create_project_view", {"project_id": personal["id"], "name": "Plain"}
        )
    assert made["title"] == title and made["closed"] is False and made["public"] is False
    assert (project.owner, project.title) == ("octo-org", title)
    (kept,) = project.status_updates
    assert (kept.status, kept.body, kept.creator) == ("AT_RISK", "Blocked on review.", "octocat")
    assert status["status"] == "AT_RISK" and status["target_date"] == kept.target_date
    sprint = next(f for f in project.fields if f.name == "Sprint")
    assert sprint.data_type == "ITERATION" and sprint.node_id == sprints["id"]
    # no iterations given: GitHub makes three of the duration from the start date
    assert [(i.start_date, i.duration) for i in sprint.iterations] == [
        ((start + datetime.timedelta(days=7 * n)).isoformat(), 7) for n in range(3)
    ]
    assert error_code(taken) == "unprocessable" and "taken" in taken["error"]["message"]
    view = next(v for v in project.views if v.name == "Sprint board")
    title_field = next(f for f in project.fields if f.name == "Title")
    assert view.layout == "BOARD_LAYOUT" and view.filter == "is:open"
    assert view.visible_fields == [title_field.id, sprint.id]
    assert board["database_id"] == view.id and board["number"] == view.number
    assert board["visible_fields"] == [title_field.id, sprint.id]
    assert error_code(unknown) == "invalid_input" and "Sprint" in unknown["error"]["hint"]
    assert [v.name for v in project.views].count("Bad") == 0  # refused before sending
    assert error_code(nobody) == "not_found"
    # a user's project: its views are made through the user's numeric id
    users = project_numbered(forge, "octocat", personal["number"])
    with forge.state.lock:  # octocat's own list stays the demo's for the other tests
        store.projects(forge.state).remove(users)
    assert users.title == f"Mine {title}" and personal_view["number"] == 2
    assert [v.name for v in users.views] == ["View 1", "Plain"]


async def test_bulk_update_and_delete_items(make_runtime, forge):
    project = fresh_project(forge, f"Bulk {uuid.uuid4().hex[:6]}")
    repo = forge.state.repo(*DEMO_REPO.split("/"))
    issues = collab(repo).issues
    items = [store.add_item(forge.state, project, repo.id, issues[n].id) for n in (4, 6)]
    other = store.create_project(forge.state, "octo-org", f"Other {uuid.uuid4().hex[:6]}")
    stranger = store.add_item(forge.state, other, repo.id, issues[4].id)
    estimate = next(f for f in project.fields if f.name == "Estimate")
    status = next(f for f in project.fields if f.name == "Status")
    ids = [i.node_id for i in items] + [stranger.node_id]
    bulk_args = {"project_id": project.node_id, "item_ids": ids}
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, bulk = await call_tool(
            client, "update_project_items", bulk_args | {"field": "Estimate", "value": 3}
        )
        _, done = await call_tool(
            client, "update_project_items", bulk_args | {"field": "status", "value": "done"}
        )
        _, no_option = await call_tool(
            client, "update_project_items", bulk_args | {"field": "Status", "value": "Later"}
        )
        _, no_field = await call_tool(
            client, "update_project_items", bulk_args | {"field": "Size", "value": 1}
        )
        _, deleted = await call_tool(
            client,
            "delete_project_item",
            {"project_id": project.node_id, "item_id": items[0].node_id},
        )
        _, again = await call_tool(
            client,
            "delete_project_item",
            {"project_id": project.node_id, "item_id": items[0].node_id},
        )
        _, not_a_date = await call_tool(
            client,
            "update_project_items",
            {"project_id": project.node_id, "item_ids": ids[1:2], "field": "Due", "value": "soon"},
        )
    assert [u["id"] for u in bulk["updated"]] == [i.node_id for i in items]
    assert all(u["values"]["Estimate"] == 3 for u in bulk["updated"])
    (failed,) = bulk["failed"]  # not an item of this project: its own error, the rest set
    assert failed["item_id"] == stranger.node_id and "global id" in failed["error"]
    assert items[1].values[estimate.id] == 3 and estimate.id not in stranger.values
    assert [u["values"]["Status"] for u in done["updated"]] == ["Done", "Done"]
    assert items[1].values[status.id] == "aa02"  # the option named, by its id
    assert error_code(no_option) == "invalid_input" and "Todo" in no_option["error"]["hint"]
    assert error_code(no_field) == "invalid_input" and "Estimate" in no_field["error"]["hint"]
    assert deleted["deleted_item_id"] == items[0].node_id
    assert [i.id for i in project.items] == [items[1].id]
    assert error_code(again) == "not_found"
    assert error_code(not_a_date) == "invalid_input"
