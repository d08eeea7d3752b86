"""The proposed-write card's server side, through real MCP clients over streamable HTTP
against the sandbox forge: what a gated write answers to a client that renders MCP Apps,
the app-only Approve/Deny tool and its nonce, and the fallbacks where the host is not
trusted. Evidence is the forge's state (branch heads, file contents), not the answers."""

from __future__ import annotations

import contextlib
import html
import itertools
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2 as httpx
import pytest
from fastmcp import Client
from fastmcp.apps.config import UI_EXTENSION_ID
from fastmcp.client.transports import StreamableHttpTransport
from mcp.client.extension import advertise

from github_mcp.approvals.requests import PendingApprovals
from github_mcp.pipeline.runtime import Runtime
from github_mcp.policy.write_gate import WriteGate
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.approvals.conftest import FakeClock, branch_head, commit_parents
from tests.oauth.conftest import oauth_server as oauth_server
from tests.oauth.signin import signed_in_client
from tests.security.test_approval_binding import forge_put_file

TOKEN = "card-owner-0123456789abcdef"
OTHER = "card-other-0123456789abcdef"
DECIDE = "decide_proposed_write"
CARD = "github-mcp/proposed-write"
RLO = "\u202e"
_numbers = itertools.count(1)


@pytest.fixture
def card_server(make_runtime):
    """The server over HTTP: one bearer principal (single-user) unless `tokens` says more."""

    @contextlib.contextmanager
    def start(
        tokens: str = TOKEN, clock: FakeClock | None = None, **settings: Any
    ) -> Iterator[tuple[str, Runtime]]:
        rt = make_runtime(auth_tokens=tokens, **settings)
        if clock is not None:
            rt.gate = WriteGate(rt.settings, rt.metrics, rt.gate.default_branch, clock=clock)
            rt.pending = PendingApprovals(rt.gate, clock=clock)
        with serve_in_thread(build_http_app(rt)) as url:
            yield url, rt

    return start


@pytest.fixture
def repo(forge) -> str:
    name = f"octo-org/card-{next(_numbers)}"
    forge.seed_repo(name, {"README.md": "# demo\nline two\nline three\n"})
    return name


@contextlib.asynccontextmanager
async def connect(url: str, *, ui: bool, token: str = TOKEN) -> AsyncIterator[Client]:
    """A real MCP client; with `ui` it declares the MCP Apps extension, as a host does."""
    extensions = [advertise(UI_EXTENSION_ID, {"mimeTypes": ["text/html;profile=mcp-app"]})]
    transport = StreamableHttpTransport(url + "/mcp", auth=token)
    async with Client(transport, mode="legacy", extensions=extensions if ui else None) as client:
        yield client


def file_at(forge: Any, repo: str, path: str, ref: str = "main") -> str | None:
    admin = forge.create_token(login="octocat")
    response = httpx.get(
        f"{forge.base_url}/repos/{repo}/contents/{path}",
        params={"ref": ref},
        headers={"Authorization": f"Bearer {admin}", "Accept": "application/vnd.github.raw"},
    )
    return response.text if response.status_code == 200 else None


def commit_args(repo: str, message: str = "Update the README") -> dict[str, Any]:
    return {
        "full_name": repo,
        "branch": "main",
        "message": message,
        "files": [{"path": "README.md", "content": "# demo\nchanged\nline three\nfour\n"}],
    }


async def write(client: Client, name: str, args: dict[str, Any]) -> Any:
    return await client.call_tool(name, args, raise_on_error=False)


def card_of(result: Any) -> dict[str, Any]:
    assert result.is_error, result.structured_content
    assert result.structured_content["error"]["code"] == "write_not_allowed"
    meta = result.meta or {}
    assert CARD in meta, meta
    return meta[CARD]


async def decide(client: Client, card: dict[str, Any], choice: str, **change: str) -> Any:
    args = {"request": card["request"], "nonce": card["nonce"], "choice": choice, **change}
    return await client.call_tool(DECIDE, args, raise_on_error=False)


def refused(result: Any) -> str:
    """A structured refusal (never a crash): its message."""
    assert result.is_error, result.structured_content
    error = result.structured_content["error"]
    assert error["code"] == "write_not_allowed" and error["hint"], error
    return error["message"]


# -- the model side: a client without the MCP Apps extension ------------------------


async def test_a_plain_client_neither_lists_nor_can_call_the_app_only_tool(
    card_server, forge, repo
):
    before = branch_head(forge, repo)
    with card_server() as (url, _):
        async with connect(url, ui=True) as host, connect(url, ui=False) as model:
            card = card_of(await write(host, "commit_files", commit_args(repo)))
            listed = {t.name: t for t in await model.list_tools()}
            assert DECIDE not in listed
            assert (listed["commit_files"].meta or {}).get("ui") is None  # no change
            # the model's own write gets today's answer: the page's link, no card
            answer = await write(model, "commit_files", commit_args(repo, "Other"))
            assert answer.structured_content["error"]["approval_url"]
            assert CARD not in (answer.meta or {})
            # even holding the card's request and nonce, a direct call is refused
            for choice in ("approve", "deny"):
                answer = await decide(model, card, choice)
                assert answer.is_error  # a structured refusal: to this client it is unknown
                assert answer.structured_content["error"]["code"] == "not_found"
            # nothing was decided: the host's retry still waits for the human
            again = card_of(await write(host, "commit_files", commit_args(repo)))
            assert again["request"] == card["request"]
    assert branch_head(forge, repo) == before


async def test_the_host_lists_the_tool_as_app_only_and_links_the_write_tools(card_server):
    with card_server() as (url, _):
        async with connect(url, ui=True) as host:
            listed = {t.name: t for t in await host.list_tools()}
    assert listed[DECIDE].meta["ui"]["visibility"] == ["app"]
    proposed = "ui://github-mcp/proposed-write.html"
    assert listed["merge_pull_request"].meta["ui"]["resourceUri"] == proposed
    assert listed["create_issue"].meta["ui"]["resourceUri"] == proposed
    # a commit's own card (the change card) shows the proposed write while it waits
    assert listed["commit_files"].meta["ui"]["resourceUri"] == "ui://github-mcp/change-card.html"
    assert (listed["get_file_contents"].meta or {}).get("ui") is None  # reads: no card


# -- what the card shows -------------------------------------------------------------


async def test_the_card_shows_the_facts_the_page_shows(card_server, forge, repo):
    message = "Update the README\n\nWhy: the second line was wrong.\nSigned-off-by: a"
    args = commit_args(repo, message)
    args["files"][0]["content"] = f"# demo\nchanged{RLO}txt.exe\nline three\n"
    with card_server() as (url, rt):
        async with connect(url, ui=True) as host:
            result = await write(host, "commit_files", args)
            card = card_of(result)
            page = page_html(forge, rt, url, card["request"])
    facts = card["facts"]
    assert card["mode"] == "card" and card["nonce"] and card["choices"] == ["approve", "deny"]
    assert (facts["repository"], facts["branch"], facts["tool"]) == (repo, "main", "commit_files")
    assert facts["title"] == "commit message: " + message  # in full
    [readme] = facts["files"]
    assert (readme["path"], readme["change"], readme["added"], readme["removed"]) == (
        "README.md", "modified", 1, 1,
    )  # fmt: skip
    assert "-line two\n+changed⟨U+202E⟩txt.exe\n line three" in readme["diff"]
    assert RLO not in str(card)  # hidden characters are shown, never passed on
    # the model reads neither the nonce nor the diff: they travel in _meta only
    text = result.content[0].text
    assert card["nonce"] not in text and "+changed" not in text
    assert card["nonce"] not in str(result.structured_content)
    # the approval page renders the same facts (one function builds both)
    for label, value in facts["rows"]:
        assert html.escape(label) in page
        assert all(html.escape(line) in page for line in value.splitlines())
    for line in readme["diff"].splitlines():
        assert html.escape(line) in page
    assert RLO not in page


def page_html(forge: Any, rt: Runtime, url: str, request_id: str) -> str:
    """The approval page of the same request, as the human's browser gets it."""
    found = rt.pending.find(request_id)
    assert found is not None
    key = rt.pending.link(found, url).split("#key=")[1]
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}) as browser:
        opened = browser.post(f"/approvals/{request_id}/open", data={"key": key})
        assert opened.status_code == 303, opened.text
        page = browser.get(f"/approvals/{request_id}")
    assert page.status_code == 200, page.text
    return page.text


# -- Approve and Deny ----------------------------------------------------------------


async def test_approve_lands_exactly_the_approved_write_once(card_server, forge, repo):
    before = branch_head(forge, repo)
    with card_server() as (url, _):
        async with connect(url, ui=True) as host:
            card = card_of(await write(host, "commit_files", commit_args(repo)))
            decided = await decide(host, card, "approve")
            assert not decided.is_error and decided.structured_content["status"] == "approved"
            assert branch_head(forge, repo) == before  # approving writes nothing by itself
            # the nonce is single-use
            assert "already approved" in refused(await decide(host, card, "approve"))
            # another write is not the approved one: it gets its own card
            other = card_of(await write(host, "commit_files", commit_args(repo, "Other")))
            assert other["request"] != card["request"]
            assert branch_head(forge, repo) == before
            landed = await write(host, "commit_files", commit_args(repo))
            assert not landed.is_error, landed.structured_content
            after = branch_head(forge, repo)
            # once: the same call again is a new request for the human
            again = card_of(await write(host, "commit_files", commit_args(repo)))
            assert again["request"] not in (card["request"], other["request"])
    assert after != before and commit_parents(forge, repo, after) == [before]
    assert file_at(forge, repo, "README.md") == "# demo\nchanged\nline three\nfour\n"
    assert branch_head(forge, repo) == after


async def test_deny_writes_nothing(card_server, forge, repo):
    before = branch_head(forge, repo)
    with card_server() as (url, _):
        async with connect(url, ui=True) as host:
            card = card_of(await write(host, "commit_files", commit_args(repo)))
            decided = await decide(host, card, "deny")
            assert not decided.is_error and decided.structured_content["status"] == "denied"
            assert "already denied" in refused(await decide(host, card, "approve"))
            retry = card_of(await write(host, "commit_files", commit_args(repo)))
            assert retry["request"] != card["request"]  # asked afresh, not approved
    assert branch_head(forge, repo) == before
    assert file_at(forge, repo, "README.md") == "# demo\nline two\nline three\n"


async def test_the_nonce_is_bound_to_its_request_and_session(card_server, forge, repo):
    before = branch_head(forge, repo)
    with card_server() as (url, _):
        async with connect(url, ui=True) as first, connect(url, ui=True) as second:
            mine = card_of(await write(first, "commit_files", commit_args(repo)))
            theirs = card_of(await write(second, "commit_files", commit_args(repo, "Theirs")))
            # another session (same principal) cannot decide this session's request
            assert "not one of this session's" in refused(await decide(second, mine, "approve"))
            # a nonce of another request, or a made-up one, does not decide it
            swapped = {**mine, "nonce": theirs["nonce"]}
            assert "nonce is not valid" in refused(await decide(first, swapped, "approve"))
            forged = {**mine, "nonce": "0" * 64}
            assert "nonce is not valid" in refused(await decide(first, forged, "approve"))
            unknown = {**mine, "request": "no-such-request"}
            assert "not one of this session's" in refused(await decide(first, unknown, "deny"))
            # none of that spent it: its own session decides it
            assert not (await decide(first, mine, "deny")).is_error
    assert branch_head(forge, repo) == before


async def test_an_expired_card_decides_nothing(card_server, forge, repo):
    before = branch_head(forge, repo)
    clock = FakeClock()
    with card_server(clock=clock) as (url, rt):
        async with connect(url, ui=True) as host:
            card = card_of(await write(host, "commit_files", commit_args(repo)))
            clock.advance(rt.settings.approval_link_ttl_seconds + 1)
            assert "already expired" in refused(await decide(host, card, "approve"))
            retry = card_of(await write(host, "commit_files", commit_args(repo)))
            assert retry["request"] != card["request"]
    assert branch_head(forge, repo) == before


async def test_an_approval_bound_to_a_head_is_refused_once_the_head_moved(card_server, forge, repo):
    edit = {
        "full_name": repo,
        "branch": "main",
        "path": "README.md",
        "message": "Reword line two",
        "sections": [{"start_line": 2, "end_line": 2, "new_text": "TWO\n"}],
    }
    head = branch_head(forge, repo)
    with card_server() as (url, _):
        async with connect(url, ui=True) as host:
            card = card_of(await write(host, "update_file_sections_and_commit", edit))
            assert dict(card["facts"]["state"]["facts"])["head_sha"] == head
            assert not (await decide(host, card, "approve")).is_error
            moved = forge_put_file(forge, repo, "main", "README.md", "KEEP\n# demo\n", "Late")
            answer = await write(host, "update_file_sections_and_commit", edit)
    assert answer.is_error and answer.structured_content["error"]["code"] == "conflict"
    assert branch_head(forge, repo) == moved
    assert file_at(forge, repo, "README.md") == "KEEP\n# demo\n"


# -- where the host is not trusted: the page decides -------------------------------


async def test_with_several_principals_the_card_links_the_page_and_the_tool_is_refused(
    card_server, forge, repo
):
    before = branch_head(forge, repo)
    with card_server(tokens=f"{TOKEN},{OTHER}") as (url, _):
        async with connect(url, ui=True) as host:
            assert DECIDE not in {t.name for t in await host.list_tools()}
            result = await write(host, "commit_files", commit_args(repo))
            card = card_of(result)
            assert card["mode"] == "page" and "nonce" not in card
            assert card["approval_url"] == result.structured_content["error"]["approval_url"]
            assert card["facts"]["files"][0]["added"] == 2
            attempt = {"request": card["request"], "nonce": "a" * 64}
            message = refused(await decide(host, attempt, "approve"))
            assert "several principals" in message
    assert branch_head(forge, repo) == before


async def test_outside_auto_mode_the_tool_is_neither_listed_nor_callable(card_server, forge, repo):
    with card_server(approval_mode="tool") as (url, _):
        async with connect(url, ui=True) as host:
            assert DECIDE not in {t.name for t in await host.list_tools()}
            attempt = {"request": "r" * 16, "nonce": "a" * 64}
            assert "not auto" in refused(await decide(host, attempt, "approve"))


OAUTH_REPO = "cards-oauth-org/service"
OAUTH_PASSWORD = "cara-pass-5521"


async def test_a_hosted_server_with_github_sign_in_leaves_the_decision_to_the_page(
    oauth_server, forge
):
    """GITHUB_MCP_AUTH=oauth: even a client that declares MCP Apps gets the page's link on
    its card, and the app-only tool is neither listed nor callable."""
    forge.add_user("cara", password=OAUTH_PASSWORD)
    forge.add_org_member("cards-oauth-org", "cara", role="admin")
    forge.seed_repo(OAUTH_REPO, {"README.md": "# demo\nline two\nline three\n"}, private=True)
    before = branch_head(forge, OAUTH_REPO)
    server = oauth_server(allowed_users="cara")
    extensions = [advertise(UI_EXTENSION_ID, {"mimeTypes": ["text/html;profile=mcp-app"]})]
    async with signed_in_client(
        server.mcp_url, "cara", OAUTH_PASSWORD, mode="legacy", extensions=extensions
    ) as host:
        assert DECIDE not in {t.name for t in await host.list_tools()}
        result = await write(host, "commit_files", commit_args(OAUTH_REPO))
        card = card_of(result)
        assert card["mode"] == "page" and "nonce" not in card
        assert card["approval_url"] == result.structured_content["error"]["approval_url"]
        attempt = {"request": card["request"], "nonce": "a" * 64}
        assert "GITHUB_MCP_AUTH=oauth" in refused(await decide(host, attempt, "approve"))
    assert branch_head(forge, OAUTH_REPO) == before
