"""The proposed-write card in a real MCP Apps host (ext-apps' AppBridge) in headless
Chromium: what the human reads, and what Approve and Deny do. Evidence is the forge's
state (branch heads, file contents) and the host's log of the card's tool calls."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx

from tests.approvals.conftest import branch_head, commit_parents, visit_approval_page
from tests.apps.conftest import HOST_TOKEN
from tests.apps.host import open_host, serve_with_host
from tests.apps.test_proposed_write_tool import connect, file_at
from tests.security.test_approval_binding import forge_put_file

HOSTILE = '<img src=x onerror="document.title=\'pwned\'">Fix <b>it</b> & "quote"'
RLO = "\u202e"
DECIDE = "decide_proposed_write"
CARD = "github-mcp/proposed-write"
_numbers = itertools.count(1)


def new_repo(forge: Any) -> str:
    name = f"octo-org/card-view-{next(_numbers)}"
    forge.seed_repo(name, {"README.md": "# demo\nline two\nline three\n"})
    return name


def commit_args(repo: str) -> dict[str, Any]:
    return {
        "full_name": repo,
        "branch": "main",
        "message": f"{HOSTILE}\n\nThe body, in full.\nSigned-off-by: a",
        "files": [
            {"path": "README.md", "content": f"# demo\n{HOSTILE}\nline three\nevil{RLO}txt.exe\n"}
        ],
    }


async def outcome(card: Any) -> tuple[str, str]:
    """The card's status once its click settled (not busy)."""
    status = card.locator("#status:not([data-outcome=busy])[data-outcome]")
    await status.wait_for(timeout=30_000)
    return await status.get_attribute("data-outcome"), await status.inner_text()


async def test_approve_on_the_card_lands_exactly_the_approved_commit(
    card_server, forge, screenshots
):
    repo = new_repo(forge)
    args = commit_args(repo)
    before = branch_head(forge, repo)
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            result = await host.show("commit_files", args)
            pending = result["_meta"][CARD]
            card = host.card
            assert await card.locator("h1").inner_text() == "Approve this write?"
            rows = dict(
                zip(
                    await card.locator("#write th").all_inner_texts(),
                    await card.locator("#write td").all_inner_texts(),
                    strict=True,
                )
            )
            assert (rows["Repository"], rows["Branch"], rows["Tool"]) == (
                repo, "main", "commit_files",
            )  # fmt: skip
            assert (
                rows["Title"]
                == f"commit message: {HOSTILE}\n\nThe body, in full.\nSigned-off-by: a"
            )
            readme = await card.locator("#files li[data-path='README.md']").inner_text()
            assert "modified README.md" in readme and "+2" in readme and "−1" in readme
            diff = await card.locator("pre.diff[data-path='README.md'] .add").all_inner_texts()
            assert diff == [f"+{HOSTILE}", "+evil⟨U+202E⟩txt.exe"]
            # GitHub-bound text stays text: no element from it, hidden characters marked
            assert await card.locator("img, b").count() == 0
            assert await card.locator("mark.hidden-char").first.inner_text() == "⟨U+202E⟩"
            assert await card.locator("#approve").is_enabled()
            await host.screenshot(screenshots / "apps-proposed-write.png")

            # the model side: a client without the extension cannot decide it
            async with connect(url, ui=False, token=HOST_TOKEN) as model:
                assert DECIDE not in {t.name for t in await model.list_tools()}
                stolen = {k: pending[k] for k in ("request", "nonce")} | {"choice": "approve"}
                answer = await model.call_tool(DECIDE, stolen, raise_on_error=False)
                assert answer.is_error and answer.structured_content["error"]["code"]
            assert branch_head(forge, repo) == before

            await card.locator("#approve").click()
            assert (await outcome(card))[0] == "written"
            calls = await host.wait_for_calls(2)
            log = await host.log()
    assert [c["name"] for c in calls] == [DECIDE, "commit_files"]
    assert calls[0]["arguments"]["choice"] == "approve"
    assert calls[1]["arguments"] == args  # exactly the call the human saw
    after = branch_head(forge, repo)
    assert after != before and commit_parents(forge, repo, after) == [before]
    assert file_at(forge, repo, "README.md") == args["files"][0]["content"]
    assert after in log["contexts"][-1]["content"][0]["text"]  # the model is told
    assert host.csp_violations() == []


async def test_a_head_that_moved_after_approval_is_refused(card_server, forge):
    repo = new_repo(forge)
    edit = {
        "full_name": repo,
        "branch": "main",
        "path": "README.md",
        "message": "Reword line two",
        "sections": [{"start_line": 2, "end_line": 2, "new_text": "TWO\n"}],
    }
    head = branch_head(forge, repo)
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("update_file_sections_and_commit", edit)
            card = host.card
            assert await card.locator("code[data-fact=head_sha]").inner_text() == head
            moved = forge_put_file(forge, repo, "main", "README.md", "KEEP\n# demo\n", "Late")
            await card.locator("#approve").click()
            state, text = await outcome(card)
            calls = await host.wait_for_calls(2)
    assert state == "refused" and "conflict" in text, text
    assert moved[:12] in text
    assert [c["name"] for c in calls] == [DECIDE, "update_file_sections_and_commit"]
    assert branch_head(forge, repo) == moved
    assert file_at(forge, repo, "README.md") == "KEEP\n# demo\n"


async def test_deny_on_the_card_writes_nothing(card_server, forge):
    repo = new_repo(forge)
    before = branch_head(forge, repo)
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("commit_files", commit_args(repo))
            card = host.card
            await card.locator("#deny").click()
            state, text = await outcome(card)
            calls = await host.wait_for_calls(1)
            assert await card.locator("#approve").is_disabled()
    assert state == "denied" and "nothing was written" in text
    assert [(c["name"], c["arguments"]["choice"]) for c in calls] == [(DECIDE, "deny")]
    assert branch_head(forge, repo) == before
    assert file_at(forge, repo, "README.md") == "# demo\nline two\nline three\n"


@contextlib.contextmanager
def multi_user_server(make_runtime: Any) -> Iterator[str]:
    rt = make_runtime(auth_tokens=f"{HOST_TOKEN},another-principal-0123456789")
    with serve_with_host(rt) as url:
        yield url


async def test_where_the_host_is_not_trusted_the_card_links_the_page(make_runtime, forge):
    repo = new_repo(forge)
    args = commit_args(repo)
    before = branch_head(forge, repo)
    with multi_user_server(make_runtime) as url:
        async with open_host(url, HOST_TOKEN) as host:
            result = await host.show("commit_files", args)
            card = host.card
            assert await card.locator("#approve, #deny").count() == 0
            assert "approval page decides" in await card.locator("#page-note").inner_text()
            await card.locator("#open-page").click()
            await host.page.wait_for_function("window.cardHost.log.links.length >= 1")
            [link] = (await host.log())["links"]
            assert link == result["structuredContent"]["error"]["approval_url"]
            assert branch_head(forge, repo) == before
            visit = await visit_approval_page(link, "approve", token=HOST_TOKEN)
            assert visit.outcome == "approved"
            again = await host.show("commit_files", args)  # the model's retry
            assert not again["isError"]
            # the change card now shows the commit
            sha = again["structuredContent"]["commit_sha"]
            assert await host.card.locator("#sha").inner_text() == sha[:12]
    assert commit_parents(forge, repo, branch_head(forge, repo)) == [before]


async def test_a_write_without_a_card_of_its_own_shows_the_proposed_write_card(card_server, forge):
    """An issue (a write not scoped to a branch) waits for the human on the proposed-write
    card; Approve creates exactly that issue, once."""
    repo = new_repo(forge)
    args = {"full_name": repo, "title": HOSTILE, "body": f"Body line\nhidden{RLO}here"}
    with card_server() as (url, _rt):
        async with open_host(url, HOST_TOKEN) as host:
            await host.show("create_issue", args)
            card = host.card
            rows = await card.locator("#write td").all_inner_texts()
            assert HOSTILE in rows and "Body line\nhidden⟨U+202E⟩here" in rows
            assert await card.locator("img, b").count() == 0
            assert issue_titles(forge, repo) == []
            await card.locator("#approve").click()
            assert (await outcome(card))[0] == "written"
            calls = await host.wait_for_calls(2)
    assert [c["name"] for c in calls] == [DECIDE, "create_issue"]
    assert issue_titles(forge, repo) == [HOSTILE]


def issue_titles(forge: Any, repo: str) -> list[str]:
    token = forge.create_token(login="octocat")
    answer = httpx.get(
        f"{forge.base_url}/repos/{repo}/issues",
        params={"state": "all"},
        headers={"Authorization": f"Bearer {token}"},
    )
    return [issue["title"] for issue in answer.json()]
