"""The CI failure card in the local MCP Apps host, in headless Chromium: failing tests
grouped by job, links to the file at the commit, log excerpts read on demand, and a rerun
that the forge records."""

from __future__ import annotations

from tests.apps.conftest import HOST_TOKEN
from tests.apps.forge_data import forge_get, pr_with_failed_run
from tests.apps.host import open_host
from tests.conftest import DEMO_REPO

HOSTILE = "<img src=x onerror=\"document.title='pwned'\"> <b>not bold</b>"


async def test_failing_tests_are_grouped_by_job_with_links_and_log_excerpts(
    card_server, forge, screenshots
):
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            result = await host.show("get_failing_tests", {"pr": f"{DEMO_REPO}#1"})
            data = result["structuredContent"]
            card = host.card
            jobs = await card.locator("section.job").evaluate_all(
                "els => els.map(e => e.dataset.job)"
            )
            assert jobs == ["test-js", "test-python"]
            assert await card.locator("[data-job=test-js] li").count() == 4
            assert await card.locator("[data-job=test-python] li").count() == 5
            assert await card.locator("[data-counts]").inner_text() == (
                "9 failing tests in 2 jobs · checks: 2 passed, 3 failed, 0 pending"
            )
            first = card.locator("[data-job=test-js] li").first
            assert await first.locator(".test").inner_text() == "cart › adds an item"
            assert await first.locator(".location").inner_text() == (
                "web/src/__tests__/cart.test.js:10"
            )
            assert await first.locator("code.rerun").inner_text() == data["failures"][0]["rerun"]
            # pytest names the file in the test id: the card links it all the same
            weight = card.locator("[data-test='tests/test_inventory.py::test_total_weight']")
            assert await weight.locator(".location").inner_text() == "tests/test_inventory.py:21"
            assert await card.locator("#other [data-check='codecov/patch']").count() == 1

            await first.locator(".location").click()
            await host.page.wait_for_function("window.cardHost.log.links.length === 1")
            pull = forge_get(forge, f"/repos/{DEMO_REPO}/pulls/1")
            assert (await host.log())["links"] == [
                f"{pull['html_url'].rsplit('/pull/', 1)[0]}/blob/{data['head_sha']}"
                "/web/src/__tests__/cart.test.js#L10"
            ]

            await first.locator("details summary").click()
            calls = await host.wait_for_calls(2)
            job_id = next(j["job_id"] for j in data["failed_jobs"] if j["job"] == "test-js")
            assert calls[1] == {
                "name": "get_job_logs",
                "arguments": {"full_name": DEMO_REPO, "job_id": job_id, "failed_steps_only": True},
            }
            excerpt = first.locator("pre.log[data-loaded]")
            assert "adds an item" in (await excerpt.inner_text()).splitlines()[0]
            assert host.csp_violations() == []
            await host.screenshot(screenshots / "apps-ci-card.png")


async def test_hostile_test_output_stays_text_and_rerun_reaches_the_forge(card_server, forge):
    name, number, run = pr_with_failed_run(forge, message=HOSTILE)
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_failing_tests", {"pr": f"{name}#{number}"})
            card = host.card
            row = card.locator("[data-job=tests] li")
            assert await row.count() == 1
            assert HOSTILE in await row.locator("pre.message").inner_text()
            assert await card.locator("img, b").count() == 0

            await card.locator("#rerun").click()
            calls = await host.wait_for_calls(3)
            assert [c["name"] for c in calls] == [
                "get_pr_overview",
                "list_workflow_runs",
                "rerun_failed_jobs",
            ]
            assert calls[2]["arguments"] == {"full_name": name, "run_id": run["id"]}
            await card.locator("#status.ok").wait_for()
    assert forge_get(forge, f"/repos/{name}/actions/runs/{run['id']}")["run_attempt"] == 2


async def test_run_overview_lists_jobs_reads_logs_and_reruns(card_server, forge, screenshots):
    """get_workflow_run_overview is in the Actions toolset: listed once a user (or the
    model, with enable_toolset) adds it."""
    name, _number, run = pr_with_failed_run(forge)
    with card_server(toolsets="default,actions") as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_workflow_run_overview", {"full_name": name, "run_id": run["id"]})
            card = host.card
            assert await card.locator("[data-pill]").inner_text() == "failure"
            job = card.locator("#jobs [data-job=tests]")
            assert "Failed: 1. Run pytest" in await job.inner_text()
            await job.locator("details summary").click()
            await job.locator("pre.log[data-loaded]").wait_for()
            assert "AssertionError: assert 41 == 42" in await job.locator("pre.log").inner_text()
            assert host.csp_violations() == []
            await host.screenshot(screenshots / "apps-ci-run-card.png")

            await card.locator("#rerun").click()
            calls = await host.wait_for_calls(2)
            assert calls[1] == {
                "name": "rerun_failed_jobs",
                "arguments": {"full_name": name, "run_id": run["id"]},
            }
            await card.locator("#status.ok").wait_for()
    assert forge_get(forge, f"/repos/{name}/actions/runs/{run['id']}")["run_attempt"] == 2
