"""Every button of the cards works on the default tool list, as `make run` serves it: the
tools the cards call are listed for the cards (not the model) in a host that shows cards,
each result tells its card which of them this session can call, and a card offers only the
buttons whose calls can go through. Evidence from the forge's state."""

from __future__ import annotations

import re

from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from github_mcp.apps.catalog import VIEWS, card_calls
from github_mcp.apps.wiring import CALLABLE_META
from tests.apps.conftest import HOST_TOKEN, McpAppsHost, ui_client
from tests.apps.forge_data import forge_get, fresh_pr, pr_with_failed_run
from tests.apps.host import open_host
from tests.conftest import DEMO_REPO, ROOT, mcp_client

FOR_CARDS = {"list_workflow_runs", "get_job_logs", "rerun_failed_jobs", "request_pr_reviewers"}


def test_every_tool_a_card_calls_is_declared_in_its_view():
    """Each tool name views/<card>/main.js mentions is one its View declares in `calls` (or
    `app_tools`), so the server lists it for the card and says whether it can be called."""
    import github_mcp.tools  # noqa: F401 - registers the built-in tools
    from github_mcp.pipeline.registry import REGISTRY

    for view in VIEWS:
        source = (ROOT / "views" / view.name / "main.js").read_text()
        named = set(re.findall(r'"(\w+)"', source)) & set(REGISTRY)
        assert named <= set(view.calls) | set(view.tools) | set(view.app_tools), view.name
        assert set(view.calls) <= named, view.name
    assert FOR_CARDS <= card_calls()


async def test_the_cards_tools_are_listed_for_the_cards_not_the_model(make_runtime):
    rt = make_runtime(toolsets="default")
    async with mcp_client(rt) as plain:
        plain_names = {t.name for t in await plain.list_tools()}
    assert not FOR_CARDS & plain_names  # not on the default list
    async with ui_client(rt) as host:
        tools = {t.name: t for t in await host.list_tools()}
        for name in FOR_CARDS:
            assert tools[name].meta == {"ui": {"visibility": ["app"]}}, name
        assert "visibility" not in tools["get_pr_overview"].meta["ui"]
        assert {n for n, t in tools.items() if not _cards_only(t)} - plain_names <= {
            "decide_proposed_write"
        }


async def test_a_toolset_the_session_enables_is_listed_to_the_model_again(card_server):
    """Over an HTTP session (a stateful one: the 2026 revision keeps none): once Actions is
    enabled, its tools are the model's."""
    with card_server() as (url, _rt):
        transport = StreamableHttpTransport(f"{url}/mcp", auth=HOST_TOKEN)
        async with Client(transport, extensions=[McpAppsHost()], mode="legacy") as host:
            assert _cards_only({t.name: t for t in await host.list_tools()}["get_job_logs"])
            await host.call_tool("enable_toolset", {"name": "actions"})
            tools = {t.name: t for t in await host.list_tools()}
    assert not _cards_only(tools["list_workflow_runs"]) and not _cards_only(tools["get_job_logs"])
    assert _cards_only(tools["request_pr_reviewers"])


async def test_each_result_says_which_card_calls_go_through_here(make_runtime):
    args = {"pr": f"{DEMO_REPO}#1"}
    async with ui_client(make_runtime(toolsets="default")) as host:
        everything = (await host.call_tool("get_failing_tests", args)).meta[CALLABLE_META]
    assert everything == dict.fromkeys(
        ("get_pr_overview", "get_job_logs", "list_workflow_runs", "rerun_failed_jobs"), True
    )
    async with ui_client(make_runtime(read_only=True)) as host:
        read_only = (await host.call_tool("get_pr_overview", args)).meta[CALLABLE_META]
        listed = {t.name for t in await host.list_tools()}
    writes = {"rerun_failed_jobs", "request_pr_reviewers", "merge_pull_request"}
    assert {n for n, ok in read_only.items() if not ok} == writes
    assert not writes & listed
    no_actions = make_runtime(toolsets="meta,repos,pull_requests,automation")
    async with ui_client(no_actions) as host:
        ci = (await host.call_tool("get_failing_tests", args)).meta[CALLABLE_META]
    assert {n for n, ok in ci.items() if not ok} == {
        "get_job_logs", "list_workflow_runs", "rerun_failed_jobs"
    }  # fmt: skip


def _cards_only(tool) -> bool:
    return (tool.meta or {}).get("ui", {}).get("visibility") == ["app"]


async def test_the_pr_cards_blocker_buttons_rerun_and_ask_for_a_review(card_server, forge):
    name, number, run = pr_with_failed_run(forge)
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_pr_overview", {"pr": f"{name}#{number}"})
            card = host.card
            blocker = card.locator("#blockers li[data-kind=checks_failing] button")
            assert await blocker.inner_text() == "Rerun failed jobs"
            await blocker.click()
            calls = await host.wait_for_calls(3)
            assert [c["name"] for c in calls[1:]] == ["list_workflow_runs", "rerun_failed_jobs"]
            await card.locator("#status.ok").wait_for()
            assert forge_get(forge, f"/repos/{name}/actions/runs/{run['id']}")["run_attempt"] == 2
            review = card.locator("#blockers li[data-kind=approvals] button")
            if await review.count():
                await review.click()
                assert await card.locator("#reviewers").evaluate(
                    "e => document.activeElement === e"
                )


async def test_a_read_only_session_offers_no_write_buttons(card_server, forge):
    name, number, _run = pr_with_failed_run(forge)
    with card_server(read_only=True) as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_pr_overview", {"pr": f"{name}#{number}"})
            card = host.card
            for button in ("#rerun", "#request-review", "#merge", "#blockers button"):
                assert await card.locator(button).count() == 0, button
            assert await card.locator("#open").count() == 1
            await host.show("get_failing_tests", {"pr": f"{name}#{number}"})
            assert await host.card.locator("#rerun").count() == 0
            assert await host.card.locator("details.excerpt").count() == 1  # a read: offered


async def test_without_actions_the_ci_card_offers_no_log_or_rerun(card_server, forge):
    name, number, _run = pr_with_failed_run(forge)
    with card_server(toolsets="meta,repos,pull_requests,automation") as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_failing_tests", {"pr": f"{name}#{number}"})
            card = host.card
            assert await card.locator("[data-job=tests] li").count() == 1
            assert await card.locator("details.excerpt").count() == 0
            assert await card.locator("#rerun").count() == 0
            assert [c["name"] for c in (await host.log())["calls"]] == ["get_pr_overview"]


async def test_the_ci_cards_open_button_and_its_no_checks_chip(card_server, forge):
    name, pr = fresh_pr(forge, "No CI here")
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_failing_tests", {"pr": f"{name}#{pr['number']}"})
            card = host.card
            assert await card.locator("[data-pill]").inner_text() == "no checks"
            assert await card.locator("#rerun").is_disabled()  # nothing failed
            await card.locator("#open").click()
            await host.page.wait_for_function("window.cardHost.log.links.length === 1")
            links = (await host.log())["links"]
    pull = forge_get(forge, f"/repos/{name}/pulls/{pr['number']}")
    assert links == [pull["html_url"]]


async def test_the_diff_cards_more_files_button_reads_the_next_page(card_server, forge):
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_pr_diff", {"pr": f"{DEMO_REPO}#1", "limit": 1})
            card = host.card
            assert await card.locator("#files details.file").count() == 1
            await card.locator("#more").click()
            calls = await host.wait_for_calls(3)
            assert calls[-1]["name"] == "get_pr_diff" and calls[-1]["arguments"]["cursor"]
            await card.locator("#files details.file").nth(1).wait_for()
            shown = await card.locator("#files details.file").evaluate_all(
                "els => els.map(e => e.dataset.path)"
            )
    files = [f["filename"] for f in forge_get(forge, f"/repos/{DEMO_REPO}/pulls/1/files")]
    assert shown == files[: len(shown)] and len(shown) == 2
