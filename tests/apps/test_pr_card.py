"""The pull request card in a real MCP Apps host (ext-apps' AppBridge) in headless Chromium:
what it shows, that GitHub's text stays text, and what its buttons do to the forge."""

from __future__ import annotations

from tests.approvals.conftest import visit_approval_page
from tests.apps.conftest import HOST_TOKEN
from tests.apps.forge_data import forge_get, fresh_pr, pr_with_failed_run
from tests.apps.host import open_host
from tests.conftest import DEMO_REPO

HOSTILE = '<img src=x onerror="document.title=\'pwned\'">Fix <b>it</b> & "quote"'


async def test_pr_card_shows_the_demo_pr_and_fills_in_its_readiness(card_server, screenshots):
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            result = await host.show("get_pr_overview", {"pr": f"{DEMO_REPO}#1"})
            card = host.card
            assert (
                await card.locator("h1.title").inner_text() == result["structuredContent"]["title"]
            )
            assert await card.locator("[data-pill]").all_inner_texts() == ["open", "blocked"]
            checks = card.locator("#checks li")
            assert await checks.count() == 4
            assert await card.locator("[data-check=lint]").inner_text() == "passed lint · required"
            assert "failed" in await card.locator("[data-check='codecov/patch']").inner_text()
            assert await card.locator("[data-counts]").inner_text() == (
                "5 checks: 2 passed, 3 failed, 0 pending"
            )
            assert await card.locator("#reviews li").count() == 3
            assert "changes requested" in await card.locator("[data-reviewer=bob]").inner_text()
            assert await card.locator("#threads p").inner_text() == "2 unresolved review threads"
            assert "Conflicts with the base branch" in await card.locator("#conflicts").inner_text()
            kinds = await card.locator("#blockers li.blocking").evaluate_all(
                "els => els.map(e => e.dataset.kind)"
            )
            assert kinds == [
                "conflicts",
                "changes_requested",
                "approvals",
                "checks_failing",
                "unresolved_threads",
            ]
            assert await card.locator("#merge").is_disabled()  # blocked: GitHub would refuse
            # the card asked the host for the readiness half, read-only
            assert [c["name"] for c in (await host.log())["calls"]] == ["check_merge_readiness"]
            assert host.csp_violations() == []
            await host.screenshot(screenshots / "apps-pr-card.png")


async def test_pr_card_from_merge_readiness_fetches_the_overview(card_server, screenshots):
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN, theme="dark") as host:
            await host.show("check_merge_readiness", {"full_name": DEMO_REPO, "number": 1})
            card = host.card
            assert await card.locator("h1.title").inner_text() == "Add cart and inventory modules"
            assert [c["name"] for c in (await host.log())["calls"]] == ["get_pr_overview"]
            scheme = await card.locator("html").evaluate(
                "() => getComputedStyle(document.documentElement).colorScheme"
            )
            assert scheme == "dark"
            # the host's container width reaches the card (MCP Apps containerDimensions)
            width = await card.locator("html").evaluate("e => e.style.maxWidth")
            assert width == "760px"
            await host.set_theme("light")  # ui/notifications/host-context-changed
            await card.locator("html[data-theme=light]").wait_for(state="attached")
            scheme = await card.locator("html").evaluate(
                "() => getComputedStyle(document.documentElement).colorScheme"
            )
            assert scheme == "light"
            await host.screenshot(screenshots / "apps-pr-card-dark.png")


async def test_github_text_stays_text(card_server, forge):
    body = "**bold** and <script>document.title='x'</script> [bad](javascript:alert(1)) [ok](https://example.com/a)"
    name, number, _run = pr_with_failed_run(forge, title=HOSTILE, body=body)
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_pr_overview", {"pr": f"{name}#{number}"})
            card = host.card
            assert await card.locator("h1.title").inner_text() == HOSTILE
            assert await card.locator("img, script:not(body > script), b").count() == 0
            assert await card.locator("details .md strong").text_content() == "bold"
            hrefs = await card.locator("details .md a").evaluate_all("els => els.map(e => e.href)")
            assert hrefs == ["https://example.com/a"]
            assert "<script>" in await card.locator("details .md").text_content()
            assert await card.locator("title").text_content() == "Pull request"


async def test_buttons_call_tools_through_the_host_and_change_the_forge(card_server, forge):
    name, number, run = pr_with_failed_run(forge)
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_pr_overview", {"pr": f"{name}#{number}"})
            card = host.card

            await card.locator("#rerun").click()
            calls = await host.wait_for_calls(3)
            assert [c["name"] for c in calls[1:]] == ["list_workflow_runs", "rerun_failed_jobs"]
            assert calls[2]["arguments"] == {"full_name": name, "run_id": run["id"]}
            assert forge_get(forge, f"/repos/{name}/actions/runs/{run['id']}")["run_attempt"] == 2
            assert "Rerun started" in await card.locator("#status.ok").inner_text()

            await card.locator("#reviewers").fill("bob")
            await card.locator("#request-review").click()
            calls = await host.wait_for_calls(4)
            assert calls[3] == {
                "name": "request_pr_reviewers",
                "arguments": {"pr": f"{name}#{number}", "users": ["bob"]},
            }
            await approve_through_the_page(host)
            await card.locator("#retry").click()
            await host.wait_for_calls(5)
            await card.locator("#status.ok").wait_for()
            requested = forge_get(forge, f"/repos/{name}/pulls/{number}/requested_reviewers")
            assert [u["login"] for u in requested["users"]] == ["bob"]

            await card.locator("#open").click()
            await host.page.wait_for_function("window.cardHost.log.links.length === 2")
            pull = forge_get(forge, f"/repos/{name}/pulls/{number}")
            assert (await host.log())["links"][-1] == pull["html_url"]


async def approve_through_the_page(host) -> None:
    """The card shows the approval page's link; the human opens it and approves there."""
    await host.card.locator("#approval").wait_for()
    await host.card.locator("#approval-link").click()
    await host.page.wait_for_function(
        "window.cardHost.log.links.some(l => l.includes('/approvals/'))"
    )
    link = next(lnk for lnk in (await host.log())["links"] if "/approvals/" in lnk)
    visit = await visit_approval_page(link, "approve", token=HOST_TOKEN)
    assert visit.outcome == "approved", visit.text


async def test_merge_goes_through_the_approval_path(card_server, forge, screenshots):
    """Merging into main needs a human's approval: the card's click is an ordinary
    merge_pull_request call, refused until the human approves on the approval page."""
    name, pr = fresh_pr(forge, "Ready to merge")
    main_before = forge_get(forge, f"/repos/{name}/git/ref/heads/main")["object"]["sha"]
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_pr_overview", {"pr": f"{name}#{pr['number']}"})
            card = host.card
            await card.locator("#merge").click()
            calls = await host.wait_for_calls(2)
            assert calls[1] == {
                "name": "merge_pull_request",
                "arguments": {"pr": f"{name}#{pr['number']}", "expected_head_sha": pr["head_sha"]},
            }
            assert "approval" in await card.locator("#status.bad").inner_text()
            pull = forge_get(forge, f"/repos/{name}/pulls/{pr['number']}")
            assert pull["merged"] is False
            assert (
                forge_get(forge, f"/repos/{name}/git/ref/heads/main")["object"]["sha"]
                == main_before
            )
            await host.screenshot(screenshots / "apps-pr-card-approval.png")

            await approve_through_the_page(host)
            await card.locator("#retry").click()
            await host.wait_for_calls(3)
            await card.locator("#status.ok").wait_for()
    pull = forge_get(forge, f"/repos/{name}/pulls/{pr['number']}")
    assert pull["merged"] is True
    main_after = forge_get(forge, f"/repos/{name}/git/ref/heads/main")["object"]["sha"]
    assert main_after == pull["merge_commit_sha"] != main_before
