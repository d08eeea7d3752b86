"""The diff card (get_pr_diff, compare_refs) and the change summary card (after a write
that committed files), in the local MCP Apps host in headless Chromium."""

from __future__ import annotations

from tests.apps.conftest import HOST_TOKEN
from tests.apps.forge_data import forge_get, fresh_pr
from tests.apps.host import open_host
from tests.conftest import DEMO_REPO

BIDI = "\u202e"
ZERO_WIDTH = "\u200b"


async def test_pr_diff_shows_each_file_with_counts_lines_and_links(card_server, forge, screenshots):
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_pr_diff", {"pr": f"{DEMO_REPO}#1"})
            card = host.card
            assert await card.locator("details.file").count() == 5
            assert await card.locator("[data-totals]").inner_text() == "5 files +96 −2"
            calc = card.locator("details.file[data-path='src/demo_app/calc.py']")
            await calc.locator("summary").click()
            assert await calc.locator("tr.add").count() == 2
            assert await calc.locator("tr.del").count() == 2
            assert "return round(a / b, 2)" in await calc.locator("tr.add").last.inner_text()
            link = calc.locator(".file-link")
            await link.wait_for()
            await link.click()
            await host.page.wait_for_function("window.cardHost.log.links.length === 1")
            repo = forge_get(forge, f"/repos/{DEMO_REPO}")
            pull = forge_get(forge, f"/repos/{DEMO_REPO}/pulls/1")
            assert (await host.log())["links"] == [
                f"{repo['html_url']}/blob/{pull['head']['sha']}/src/demo_app/calc.py"
            ]
            assert host.csp_violations() == []
            await host.screenshot(screenshots / "apps-diff-card.png")


async def test_compare_refs_fetches_a_patch_when_a_file_is_opened(card_server):
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            args = {"full_name": DEMO_REPO, "base": "main", "head": "feature/cart-and-inventory"}
            await host.show("compare_refs", args)
            card = host.card
            assert await card.locator("[data-pill]").inner_text() == "diverged"
            assert await card.locator("#commits li").count() == 3
            cart = card.locator("details.file[data-path='web/src/cart.js']")
            await cart.locator("summary").click()
            await cart.locator(".patch[data-loaded] table").wait_for()
            assert await cart.locator("tr.add").count() == 9
            calls = [c for c in (await host.log())["calls"] if c["name"] == "compare_refs"]
            assert calls == [{"name": "compare_refs", "arguments": args | {"include_patch": True}}]


async def test_hidden_characters_in_a_diff_are_shown(card_server, forge):
    name = "octo-org/cards-hidden"
    forge.seed_repo(
        name,
        {"auth.py": "allowed = False\n"},
        branches={"feature": {"auth.py": f"allowed = False # {BIDI}{ZERO_WIDTH} True\n"}},
    )
    from sandbox_forge.admin.collab_seeding import create_pull

    pr = create_pull(forge, name, "feature", "main", "Harmless change", user="alice")
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("get_pr_diff", {"pr": f"{name}#{pr['number']}"})
            card = host.card
            assert await card.locator(".hidden-count").inner_text() == "2 hidden characters"
            markers = await card.locator("tr.add .hidden-char").all_inner_texts()
            assert markers == ["⟨U+202E⟩", "⟨U+200B⟩"]


async def test_change_summary_after_a_commit(card_server, forge, screenshots):
    name, _pr = fresh_pr(forge, "unused")
    message = f"Fix the answer <img src=x onerror=alert(1)>{BIDI}"
    args = {
        "full_name": name,
        "branch": "feature",
        "message": message,
        "files": [
            {"path": "app.py", "content": "x = 3\ny = 4\n"},
            {"path": "docs/notes.md", "content": "# Notes\n"},
        ],
    }
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            result = await host.show("commit_files", args)
            sha = result["structuredContent"]["commit_sha"]
            head = forge_get(forge, f"/repos/{name}/git/ref/heads/feature")["object"]["sha"]
            assert head == sha
            card = host.card
            assert await card.locator("h1").inner_text() == "Committed to feature"
            assert await card.locator("#sha").inner_text() == sha[:12]
            assert await card.locator("#verification").get_attribute("data-verified") == "true"
            assert await card.locator("[data-totals]").inner_text() == "2 files +3 −1"
            shown = await card.locator("#message").inner_text()
            assert shown == message.replace(BIDI, "⟨U+202E⟩")
            assert await card.locator("img").count() == 0
            await card.locator("#open-commit").wait_for()
            await card.locator("#open-commit").click()
            await host.page.wait_for_function("window.cardHost.log.links.length === 1")
            repo = forge_get(forge, f"/repos/{name}")
            assert (await host.log())["links"] == [f"{repo['html_url']}/commit/{sha}"]
            await card.locator("details.file[data-path='app.py'] summary").click()
            assert host.csp_violations() == []
            await host.screenshot(screenshots / "apps-change-card.png")
