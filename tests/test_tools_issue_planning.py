"""Sub-issues and "blocked by" dependencies through a real MCP client against the forge:
unscoped writes that need a human's approval; evidence from the forge's link tables;
requests and responses checked against GitHub's OpenAPI description."""

from __future__ import annotations

from sandbox_forge.admin.seed_collab import create_issue
from sandbox_forge.stores.sub_issues import BLOCKED_BY, SUB_ISSUES, links
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import new_repo, write_requests


def issue_ids(forge, full_name: str, *numbers: int) -> list[int]:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    issues = repo.extra["collab"].issues
    return [issues[n].id for n in numbers]


def contract_clean(forge, marker: str) -> None:
    records = [r for r in forge.responses() if marker in r["path"]]
    assert records and validate_records(records) == [] and validate_request_bodies(records) == []


async def test_sub_issues_need_approval_then_add_move_remove(make_runtime, forge):
    repo = new_repo(forge, prefix="planning-org")
    parent, a, b, c = (create_issue(forge, repo, t)["number"] for t in ("Epic", "A", "B", "C"))
    pid, aid, bid, cid = issue_ids(forge, repo, parent, a, b, c)
    add = {"full_name": repo, "number": parent, "action": "add"}
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "change_sub_issue", {**add, "sub_issue": a})
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed" and writes == []
    assert links(forge.state, SUB_ISSUES).get(pid, []) == []

    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        for n in (a, b, c):
            _, added = await call_tool(client, "change_sub_issue", {**add, "sub_issue": n})
        assert [i["number"] for i in added["sub_issues"]] == [a, b, c]
        assert links(forge.state, SUB_ISSUES)[pid] == [aid, bid, cid]
        move = {**add, "action": "reprioritize", "sub_issue": c, "before": a}
        _, moved = await call_tool(client, "change_sub_issue", move)
        assert links(forge.state, SUB_ISSUES)[pid] == [cid, aid, bid]
        _, removed = await call_tool(
            client, "change_sub_issue", {**add, "action": "remove", "sub_issue": a}
        )
        _, listed = await call_tool(
            client, "list_sub_issues", {"full_name": repo, "number": parent}
        )
        _, again = await call_tool(client, "change_sub_issue", {**add, "sub_issue": b})
        _, self_parent = await call_tool(client, "change_sub_issue", {**add, "sub_issue": parent})
        _, both = await call_tool(client, "change_sub_issue", {**move, "after": b, "before": a})
    assert [i["number"] for i in moved["sub_issues"]] == [c, a, b]
    assert [i["number"] for i in removed["sub_issues"]] == [c, b]
    assert listed == removed and listed["completed"] == 0
    assert links(forge.state, SUB_ISSUES)[pid] == [cid, bid]
    # A sub-issue has one parent: adding it twice is GitHub's 422, nothing changes.
    assert error_code(again) == "unprocessable", again
    assert error_code(self_parent) == "invalid_input" and error_code(both) == "invalid_input"
    assert links(forge.state, SUB_ISSUES)[pid] == [cid, bid]
    contract_clean(forge, "/sub_issue")


async def test_sub_issue_cycles_and_replace_parent_on_the_forge(make_runtime, forge):
    repo = new_repo(forge, prefix="planning-org")
    top, mid, leaf = (create_issue(forge, repo, t)["number"] for t in ("Top", "Mid", "Leaf"))
    tid, mid_id, lid = issue_ids(forge, repo, top, mid, leaf)
    async with mcp_client(make_runtime(auto_approve=True)) as client:

        async def change(parent: int, child: int, **extra):
            args = {"full_name": repo, "number": parent, "action": "add", "sub_issue": child}
            return (await call_tool(client, "change_sub_issue", {**args, **extra}))[1]

        await change(top, mid)
        await change(mid, leaf)
        cycle = await change(leaf, top)
        assert error_code(cycle) == "unprocessable"
        assert links(forge.state, SUB_ISSUES).get(lid, []) == []
        moved = await change(top, leaf, replace_parent=True)
    assert [i["number"] for i in moved["sub_issues"]] == [mid, leaf]
    assert links(forge.state, SUB_ISSUES)[tid] == [mid_id, lid]
    assert links(forge.state, SUB_ISSUES)[mid_id] == []


async def test_dependencies_add_list_remove(make_runtime, forge):
    repo = new_repo(forge, prefix="planning-org")
    blocked, blocker = (create_issue(forge, repo, t)["number"] for t in ("Deploy", "Fix CI"))
    blocked_id, blocker_id = issue_ids(forge, repo, blocked, blocker)
    args = {"full_name": repo, "number": blocked, "action": "add", "blocked_by": blocker}
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "change_issue_dependency", args)
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed" and writes == []
    assert links(forge.state, BLOCKED_BY).get(blocked_id, []) == []

    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, added = await call_tool(client, "change_issue_dependency", args)
        assert links(forge.state, BLOCKED_BY)[blocked_id] == [blocker_id]
        _, other_side = await call_tool(
            client, "get_issue_dependencies", {"full_name": repo, "number": blocker}
        )
        _, cycle = await call_tool(
            client,
            "change_issue_dependency",
            {**args, "number": blocker, "blocked_by": blocked},
        )
        _, removed = await call_tool(
            client, "change_issue_dependency", {**args, "action": "remove"}
        )
        _, missing = await call_tool(
            client, "change_issue_dependency", {**args, "blocked_by": 9999}
        )
    assert [i["number"] for i in added["blocked_by"]] == [blocker] and added["blocking"] == []
    assert [i["number"] for i in other_side["blocking"]] == [blocked]
    assert error_code(cycle) == "unprocessable"
    assert removed["blocked_by"] == [] and links(forge.state, BLOCKED_BY)[blocked_id] == []
    assert error_code(missing) == "not_found"
    contract_clean(forge, "/dependencies/")


async def test_demo_has_a_tracking_issue_with_sub_issues(make_runtime, forge):
    demo = forge.state.extensions["planning_demo"]
    async with mcp_client(make_runtime()) as client:
        _, subs = await call_tool(
            client, "list_sub_issues", {"full_name": DEMO_REPO, "number": demo["parent"]}
        )
        _, deps = await call_tool(
            client,
            "get_issue_dependencies",
            {"full_name": DEMO_REPO, "number": demo["blocked"]["issue"]},
        )
    assert [i["number"] for i in subs["sub_issues"]] == demo["sub_issues"]
    owner, name = DEMO_REPO.split("/")
    issues = forge.state.repo(owner, name).extra["collab"].issues
    closed = [n for n in demo["sub_issues"] if issues[n].state == "closed"]
    assert closed and subs["completed"] == len(closed)
    assert [i["number"] for i in deps["blocked_by"]] == [demo["blocked"]["by"]]


async def test_get_issue_names_a_sub_issues_parent_and_counts_a_parents_sub_issues(
    make_runtime, forge
):
    repo = new_repo(forge, prefix="planning-org")
    parent, a, b, plain = (
        create_issue(forge, repo, t)["number"] for t in ("Epic", "A", "B", "Alone")
    )
    pid, aid, bid = issue_ids(forge, repo, parent, a, b)
    with forge.state.lock:  # B is done: one of two closed
        links(forge.state, SUB_ISSUES)[pid] = [aid, bid]
        forge.state.repo(*repo.split("/")).extra["collab"].issues[b].state = "closed"
    forge.clear_responses()
    async with mcp_client(make_runtime()) as client:
        _, child = await call_tool(client, "get_issue", {"full_name": repo, "number": a})
        _, epic = await call_tool(client, "get_issue", {"full_name": repo, "number": parent})
        forge.clear_requests()
        _, alone = await call_tool(client, "get_issue", {"full_name": repo, "number": plain})
        asked = [r["path"] for r in forge.requests()]
    found = child["parent"]
    assert (found["number"], found["title"], found["state"]) == (parent, "Epic", "open"), child
    assert found["url"].endswith(f"/{repo}/issues/{parent}") and not found.get("repository")
    assert child.get("sub_issues") is None
    assert epic["sub_issues"] == {"total": 2, "completed": 1, "percent_completed": 50}
    assert epic.get("parent") is None
    assert alone.get("parent") is None and alone.get("sub_issues") is None
    assert not any(p.endswith("/parent") for p in asked)  # no parent: no extra call
    contract_clean(forge, "/issues/")
