"""The approval page over real HTTP in bearer mode, with Chromium as the human. Evidence
is the forge's branch heads (its REST API), never only the server's answer."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any
from urllib.parse import urlsplit

import httpx2 as httpx
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StreamableHttpTransport

from tests.approvals.conftest import (
    TOKEN_A,
    TOKEN_B,
    FakeClock,
    branch_head,
    commit_parents,
    http_client,
    visit_approval_page,
)
from tests.conftest import call_tool, error_code


def commit_args(repo: str, content: str = "# demo\nchanged by the assistant\nline three\n"):
    return {
        "full_name": repo,
        "branch": "main",
        "message": "Update the README",
        "files": [
            {"path": "README.md", "content": content},
            {"path": "NEW.md", "content": "a\nb\n"},
        ],
    }


def approval_url(payload: dict[str, Any]) -> str:
    error = payload["error"]
    assert error["code"] == "write_not_allowed", payload
    assert error["approval_url"] in error["hint"]  # the link is there for the human
    return error["approval_url"]


async def test_model_cannot_approve_its_own_writes_over_http(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            is_error, state = await call_tool(model, "authorize_write_actions", {"approved": True})
            assert is_error and error_code(state) == "write_not_allowed"
            assert "/approvals/" in state["error"]["approval_url"]
            is_error, payload = await call_tool(model, "commit_files", commit_args(repo))
            assert is_error
            approval_url(payload)
            config = (await call_tool(model, "get_server_config"))[1]
            assert config["write_policy"]["mode"] == "auto"
            assert config["write_policy"]["approved"] is False
    assert branch_head(forge, repo) == before


async def test_a_human_click_approves_that_write_exactly_once(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            payload = (await call_tool(model, "commit_files", commit_args(repo)))[1]
            link = approval_url(payload)
            assert urlsplit(link).netloc == urlsplit(served.url).netloc
            assert branch_head(forge, repo) == before

            visit = await visit_approval_page(link, "approve", token=TOKEN_A)
            assert visit.status == 200
            assert "commit_files" in visit.text and repo in visit.text and "main" in visit.text
            assert any("README.md" in f and "+2" in f and "−1" in f for f in visit.files)
            assert any("NEW.md" in f and "added" in f and "+2" in f for f in visit.files)
            assert visit.outcome == "approved"

            is_error, result = await call_tool(model, "commit_files", commit_args(repo))
            assert not is_error, result
            after = branch_head(forge, repo)
            assert after != before and commit_parents(forge, repo, after) == [before]

            # the approval was for that one write: the same call again needs a new click
            is_error, payload = await call_tool(model, "commit_files", commit_args(repo))
            assert is_error and approval_url(payload) != link
            # and the spent link cannot be used again
            again = await visit_approval_page(link, "approve", token=TOKEN_A)
            assert again.outcome is None and "approved" in again.text.lower()
    assert branch_head(forge, repo) == after


async def test_url_elicitation_waits_for_the_click(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    asked: list[Any] = []
    clicks: list[asyncio.Task] = []
    notices: list[Any] = []

    async def human(message: str, response_type: Any, params: Any, context: Any) -> Any:
        asked.append(params)
        assert params.mode == "url"
        clicks.append(
            asyncio.create_task(visit_approval_page(params.url, "approve", token=TOKEN_A))
        )
        return ElicitResult(action="accept")  # the human agreed to open the page

    async def on_message(message: Any) -> None:
        notices.append(message)

    with approval_server() as served:
        async with http_client(
            served.url, TOKEN_A, elicitation_handler=human, message_handler=on_message
        ) as client:
            is_error, result = await call_tool(client, "commit_files", commit_args(repo))
            assert not is_error, result
            visit = await clicks[0]
    assert len(asked) == 1 and "/approvals/" in asked[0].url
    assert visit.outcome == "approved"
    after = branch_head(forge, repo)
    assert commit_parents(forge, repo, after) == [before]
    completed = [
        getattr(getattr(n, "root", n), "params", None)
        for n in notices
        if "ElicitComplete" in type(getattr(n, "root", n)).__name__
    ]
    assert [p.elicitation_id for p in completed] == [asked[0].elicitation_id]


async def test_a_deny_stays_denied(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    links: list[str] = []

    async def human(message: str, response_type: Any, params: Any, context: Any) -> Any:
        links.append(params.url)
        if len(links) == 1:
            await visit_approval_page(params.url, "deny", token=TOKEN_A)
            return ElicitResult(action="accept")
        return ElicitResult(action="decline")  # asked again, the human says no

    with approval_server() as served:
        async with http_client(served.url, TOKEN_A, elicitation_handler=human) as client:
            is_error, payload = await call_tool(client, "commit_files", commit_args(repo))
            assert is_error and error_code(payload) == "write_not_allowed"
            assert "denied" in payload["error"]["message"]
            # replaying an approve on the denied link is refused
            replay = await visit_approval_page(links[0], "approve", token=TOKEN_A)
            assert replay.outcome is None and "denied" in replay.text.lower()
            # the model asking for approval itself, or retrying, gets nothing through
            is_error, state = await call_tool(client, "authorize_write_actions", {"approved": True})
            assert is_error and error_code(state) == "write_not_allowed"
            is_error, payload = await call_tool(client, "commit_files", commit_args(repo))
            assert is_error and error_code(payload) == "write_not_allowed"
            config = (await call_tool(client, "get_server_config"))[1]
            assert config["write_policy"]["approved"] is False
    assert branch_head(forge, repo) == before


async def test_approve_for_n_minutes_expires(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    clock = FakeClock()
    with approval_server(clock=clock, approval_window_minutes=5) as served:
        async with http_client(served.url, TOKEN_A) as model:
            link = approval_url((await call_tool(model, "commit_files", commit_args(repo)))[1])
            visit = await visit_approval_page(link, "approve-window", token=TOKEN_A)
            assert visit.outcome == "approved_window" and "5 minutes" in visit.text
            heads = [branch_head(forge, repo)]
            for n in range(2):  # two different writes pass inside the window, no new click
                args = commit_args(repo, f"version {n}\n")
                is_error, result = await call_tool(model, "commit_files", args)
                assert not is_error, result
                heads.append(branch_head(forge, repo))
            clock.advance(4 * 60)
            assert not (await call_tool(model, "commit_files", commit_args(repo, "v3\n")))[0]
            heads.append(branch_head(forge, repo))
            clock.advance(60)  # five minutes after the click
            is_error, payload = await call_tool(model, "commit_files", commit_args(repo, "v4\n"))
            assert is_error
            approval_url(payload)
    assert branch_head(forge, repo) == heads[-1]
    for parent, child in itertools.pairwise(heads):
        assert commit_parents(forge, repo, child) == [parent]


async def test_a_link_used_by_another_principal_is_refused(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            link = approval_url((await call_tool(model, "commit_files", commit_args(repo)))[1])
            intruder = await visit_approval_page(link, "approve", token=TOKEN_B)
            assert intruder.status == 403 and intruder.outcome is None
            assert "Not your approval" in intruder.text
            # a forged POST with B's credentials and the link's key is refused too
            page_url, _, fragment = link.partition("#")
            assert "key=" not in page_url  # the secret is only in the fragment
            key = fragment.split("key=", 1)[1]
            forged = httpx.post(
                page_url,
                data={"key": key, "csrf": "guess", "choice": "approve"},
                headers={"Authorization": f"Bearer {TOKEN_B}"},
            )
            assert forged.status_code == 403
            # without a sign-in the page shows nothing of the write: with the link's key it
            # sends the browser to /status's sign-in form, never to a Basic prompt
            with httpx.Client(follow_redirects=True) as anonymous:
                anonymous.post(page_url + "/open", data={"key": key})
                shown = anonymous.get(page_url)
            assert shown.status_code == 401 and shown.url.path == "/status"
            assert shown.url.params["next"] == page_url.removeprefix(served.url)
            assert "www-authenticate" not in shown.headers and 'id="sign-in"' in shown.text
            assert "commit_files" not in shown.text
            is_error, payload = await call_tool(model, "commit_files", commit_args(repo))
            assert is_error and error_code(payload) == "write_not_allowed"
            assert branch_head(forge, repo) == before
            # the link is still good for its own principal
            owner = await visit_approval_page(link, "approve", token=TOKEN_A)
            assert owner.outcome == "approved"
            assert not (await call_tool(model, "commit_files", commit_args(repo)))[0]
    assert commit_parents(forge, repo, branch_head(forge, repo)) == [before]


async def test_current_protocol_opens_the_page_and_waits_on_the_retry(
    approval_server, forge, fresh_repo
):
    """On 2026-07-28 the URL question is the call's result; the retry carries the human's
    consent to open the page, and waits for their click there."""
    repo = fresh_repo()
    before = branch_head(forge, repo)
    asked: list[Any] = []
    clicks: list[asyncio.Task] = []

    async def human(message: str, response_type: Any, params: Any, context: Any) -> Any:
        asked.append(params)
        clicks.append(
            asyncio.create_task(visit_approval_page(params.url, "approve", token=TOKEN_A))
        )
        return ElicitResult(action="accept")

    with approval_server() as served:
        transport = StreamableHttpTransport(served.url + "/mcp", auth=TOKEN_A)
        async with Client(transport, elicitation_handler=human) as client:
            is_error, result = await call_tool(client, "commit_files", commit_args(repo))
            assert not is_error, result
            assert (await clicks[0]).outcome == "approved"
    assert [p.mode for p in asked] == ["url"]
    assert commit_parents(forge, repo, branch_head(forge, repo)) == [before]
