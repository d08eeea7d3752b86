"""The approval page signs in as /status does, in a real browser: one session cookie for
both, started by /status's token form (or GitHub), never a browser's HTTP Basic prompt;
and it shows every choice the README promises. Evidence from the forge's branch heads."""

from __future__ import annotations

from typing import Any

from tests.approvals.conftest import TOKEN_A, branch_head, commit_parents, http_client
from tests.approvals.test_page_bearer import approval_url, commit_args
from tests.conftest import call_tool
from tests.shared_browser import fresh_context

CHOICES = ["Approve this write once", "Approve for 15 minutes", "Deny"]


def _basic_prompts(pages: list[Any]) -> list[str]:
    return [r.url for r in pages if "www-authenticate" in r.headers]


async def _sign_in_on_status(page: Any, base: str, token: str) -> None:
    await page.goto(base + "/status")
    await page.fill("#token", token)
    async with page.expect_navigation():
        await page.click("#submit")
    await page.wait_for_selector("#total-calls")


async def test_signed_in_to_status_the_approval_page_opens_with_every_choice(
    approval_server, forge, fresh_repo
):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:  # a client with a session
            link = approval_url((await call_tool(model, "commit_files", commit_args(repo)))[1])
            async with fresh_context() as context:
                page = await context.new_page()
                responses: list[Any] = []
                page.on("response", lambda r: responses.append(r))
                await _sign_in_on_status(page, served.url, TOKEN_A)
                await page.goto(link)
                await page.wait_for_selector("#files")  # the write itself, no sign-in asked
                assert "/status" not in page.url
                buttons = await page.locator("form button[name=choice]").all_inner_texts()
                assert buttons == CHOICES
                assert not await page.locator("#approve-window").is_disabled()
                async with page.expect_navigation():
                    await page.click("#approve-window")
                outcome = await page.get_attribute("#outcome", "data-status")
                assert _basic_prompts(responses) == []
            assert outcome == "approved_window"
            # the window lets this session's gated writes through: the forge moves
            is_error, result = await call_tool(model, "commit_files", commit_args(repo))
            assert not is_error, result
            after = branch_head(forge, repo)
            assert commit_parents(forge, repo, after) == [before]
            second = commit_args(repo, "# demo\nand again\n")
            assert not (await call_tool(model, "commit_files", second))[0]
            assert commit_parents(forge, repo, branch_head(forge, repo)) == [after]


async def test_a_browser_not_signed_in_is_sent_to_the_status_form_and_back(
    approval_server, forge, fresh_repo
):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            link = approval_url((await call_tool(model, "commit_files", commit_args(repo)))[1])
            async with fresh_context() as context:
                page = await context.new_page()
                responses: list[Any] = []
                page.on("response", lambda r: responses.append(r))
                await page.goto(link)
                await page.wait_for_selector("form#sign-in")
                assert page.url.startswith(served.url + "/status?next=/approvals/")
                assert await page.locator("#approval-sign-in").count() == 1
                assert "commit_files" not in await page.inner_text("body")
                await page.fill("#token", TOKEN_A)
                async with page.expect_navigation():
                    await page.click("#submit")
                await page.wait_for_selector("#files")  # back on the approval, signed in
                assert page.url == link.partition("#")[0]
                texts = await page.locator("form button[name=choice]").all_inner_texts()
                async with page.expect_navigation():
                    await page.click("#approve")
                outcome = await page.get_attribute("#outcome", "data-status")
                # the same session opens /status without another sign-in
                status = await page.goto(served.url + "/status")
                assert status is not None and status.status == 200
                assert _basic_prompts(responses) == []
            assert texts == CHOICES and outcome == "approved"
            assert not (await call_tool(model, "commit_files", commit_args(repo)))[0]
    assert commit_parents(forge, repo, branch_head(forge, repo)) == [before]
