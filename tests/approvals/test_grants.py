"""Approvals nobody can exhaust for another, and grants whose scope is what the page says:
caps per session and principal, a fair global cap, a per-minute rate, finite windows,
no window for a sessionless client, and revocation on /status. Real MCP clients over
HTTP against the forge; evidence from the forge's branch heads and request log and from
the approval store, never only from the server's answer."""

from __future__ import annotations

import re
from typing import Any

import httpx2 as httpx
import pytest
from fastmcp import Client
from pydantic import ValidationError

from github_mcp.approvals.store import Caps
from github_mcp.status.grants import grant_id
from tests.approvals.conftest import (
    TOKEN_A,
    TOKEN_B,
    FakeClock,
    branch_head,
    commit_parents,
    http_client,
    visit_approval_page,
)
from tests.approvals.test_page_bearer import approval_url, commit_args
from tests.conftest import call_tool, error_code


def numbered(repo: str, n: int) -> dict[str, Any]:
    """A distinct write each time (a repeat of one write reuses its open request)."""
    return commit_args(repo, f"# demo\nversion {n}\n")


async def test_a_flood_from_one_principal_cannot_block_another(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        pending = served.rt.pending
        async with Client(served.url + "/mcp", auth=TOKEN_A) as flooder:
            codes = []
            for n in range(40):
                codes.append(
                    error_code((await call_tool(flooder, "commit_files", numbered(repo, n)))[1])
                )
        opened = codes.count("write_not_allowed")  # a refusal carrying a fresh link
        assert opened == Caps().per_session  # a sessionless client is its own session
        assert codes[opened:] == ["rate_limited"] * (40 - opened)
        flooder_key = pending.open_requests()[0].scope.principal.key
        assert {r.scope.principal.key for r in pending.open_requests()} == {flooder_key}

        # the other principal is still asked, and its human's approval lands its write
        async with Client(served.url + "/mcp", auth=TOKEN_B) as other:
            link = approval_url((await call_tool(other, "commit_files", commit_args(repo)))[1])
            visit = await visit_approval_page(link, "approve", token=TOKEN_B)
            assert visit.outcome == "approved"
            is_error, written = await call_tool(other, "commit_files", commit_args(repo))
            assert not is_error, written
    assert commit_parents(forge, repo, branch_head(forge, repo)) == [before]


async def test_per_minute_rate_and_a_fair_global_cap(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    clock = FakeClock()
    with approval_server(clock=clock) as served:
        pending = served.rt.pending
        pending.caps = Caps(per_session=50, per_principal=50, per_principal_per_minute=3)
        async with Client(served.url + "/mcp", auth=TOKEN_A) as model:
            codes = [
                error_code((await call_tool(model, "commit_files", numbered(repo, n)))[1])
                for n in range(5)
            ]
            assert codes == ["write_not_allowed"] * 3 + ["rate_limited"] * 2
            clock.advance(61)  # a minute later the same principal may ask again
            later = await call_tool(model, "commit_files", numbered(repo, 9))
            assert error_code(later[1]) == "write_not_allowed"
            assert len(pending.open_requests()) == 4

            # global cap 4, already full of A's requests: A is over its fair share, B is not
            pending.caps = Caps(per_session=50, per_principal=50, global_open=4)
            refused = await call_tool(model, "commit_files", numbered(repo, 10))
            assert error_code(refused[1]) == "rate_limited"
        async with Client(served.url + "/mcp", auth=TOKEN_B) as other:
            asked = await call_tool(other, "commit_files", numbered(repo, 11))
            assert error_code(asked[1]) == "write_not_allowed" and approval_url(asked[1])
        owners = [r.scope.principal.key for r in pending.open_requests()]
        assert len(owners) == 5 and len(set(owners)) == 2


async def test_a_sessionless_client_is_never_offered_a_window(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        async with Client(served.url + "/mcp", auth=TOKEN_A) as model:  # current protocol
            link = approval_url((await call_tool(model, "commit_files", commit_args(repo)))[1])
            # a forged POST asking for a window is refused, and stores nothing
            page_url, _, fragment = link.partition("#")
            bearer = {"Authorization": f"Bearer {TOKEN_A}"}
            with httpx.Client(headers=bearer, follow_redirects=True) as browser:
                opened = browser.post(page_url + "/open", data={"key": fragment[4:]})
                shown = browser.get(page_url)
                csrf = re.search(r'name="csrf" value="([^"]+)"', shown.text)
                assert csrf and re.search(r'id="approve-window"[^>]* disabled', shown.text)
                assert "Approve this write once" in shown.text
                forged = browser.post(
                    page_url,
                    data={"key": fragment[4:], "csrf": csrf.group(1), "choice": "approve_window"},
                    headers={"Origin": served.url},
                )
            assert opened.status_code == 200 and forged.status_code == 400
            assert served.rt.gate.grants() == []
            is_error, payload = await call_tool(model, "commit_files", commit_args(repo))
            assert is_error and error_code(payload) == "write_not_allowed"
            # the human approves the one write: it lands once, and nothing else is open
            visit = await visit_approval_page(link, "approve", token=TOKEN_A)
            assert visit.outcome == "approved" and "Not offered here" in visit.text
            assert not (await call_tool(model, "commit_files", commit_args(repo)))[0]
            again = await call_tool(model, "commit_files", numbered(repo, 2))
            assert error_code(again[1]) == "write_not_allowed"
    assert commit_parents(forge, repo, branch_head(forge, repo)) == [before]


def test_the_approval_ttl_is_finite_and_cannot_mean_until_restart(make_settings):
    assert make_settings().approval_ttl_seconds == 900
    for forever in (0, -1):
        with pytest.raises(ValidationError):
            make_settings(approval_ttl_seconds=forever)


async def test_a_session_window_expires_after_the_default_ttl(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    clock = FakeClock()
    with approval_server(clock=clock, approval_mode="tool") as served:
        async with http_client(served.url, TOKEN_A) as model:  # a session: a window is allowed
            state = (await call_tool(model, "authorize_write_actions", {"approved": True}))[1]
            assert state["scope"] == "session" and state["expires_in_s"] == 900
            is_error, first = await call_tool(model, "commit_files", numbered(repo, 1))
            assert not is_error, first
            clock.advance(901)
            is_error, late = await call_tool(model, "commit_files", numbered(repo, 2))
            assert is_error and error_code(late) == "write_not_allowed"
            assert served.rt.gate.grants() == []
    assert branch_head(forge, repo) == first["commit_sha"]


def status_page(url: str, client: httpx.Client) -> tuple[str, str]:
    page = client.get(url + "/status", headers={"Authorization": f"Bearer {TOKEN_A}"})
    assert page.status_code == 200
    csrf = client.cookies.get("github_mcp_status_revoke_csrf", path="/status")
    return page.text, csrf or ""


async def test_status_lists_grants_and_pending_requests_and_revokes_a_grant(
    approval_server, forge, fresh_repo
):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        async with Client(served.url + "/mcp", auth=TOKEN_A) as model:
            link = approval_url((await call_tool(model, "commit_files", commit_args(repo)))[1])
            request_id = link.split("/approvals/")[1].split("#")[0]
            with httpx.Client() as browser:
                text, _ = status_page(served.url, browser)
            assert f'data-request="{request_id}"' in text  # pending, with its age
            assert "commit_files on " + repo in text and link.split("#")[1] not in text

            visit = await visit_approval_page(link, "approve", token=TOKEN_A)
            assert visit.outcome == "approved"
            with httpx.Client() as browser:
                text, csrf = status_page(served.url, browser)
                grant = re.search(r'data-grant="([0-9a-f]+)"', text)
                assert grant and "one write, once" in text
                assert f'data-request="{request_id}"' not in text
                auth = {"Authorization": f"Bearer {TOKEN_A}", "Origin": served.url}
                no_csrf = browser.post(
                    served.url + "/status", data={"revoke": grant.group(1)}, headers=auth
                )
                assert no_csrf.status_code == 403 and len(served.rt.gate.grants()) == 1
                revoked = browser.post(
                    served.url + "/status",
                    data={"revoke": grant.group(1), "csrf": csrf},
                    headers=auth,
                )
                assert revoked.status_code == 303
            assert served.rt.gate.grants() == []
            # the approved write, revoked before it ran, does not land
            is_error, payload = await call_tool(model, "commit_files", commit_args(repo))
            assert is_error and error_code(payload) == "write_not_allowed"
    assert branch_head(forge, repo) == before


async def test_each_user_sees_and_revokes_only_their_own_grants(approval_server, forge, fresh_repo):
    repo = fresh_repo()
    with approval_server(approval_mode="tool") as served:
        gate = served.rt.gate
        async with (
            http_client(served.url, TOKEN_A) as alpha,
            http_client(served.url, TOKEN_B) as bravo,
        ):
            for model in (alpha, bravo):
                assert (await call_tool(model, "authorize_write_actions", {"approved": True}))[1][
                    "approved"
                ]
            assert len(gate.grants()) == 2
            url = served.url + "/approvals/grants"
            with httpx.Client(headers={"Authorization": f"Bearer {TOKEN_B}"}) as browser:
                page = browser.get(url)
                assert page.status_code == 200
                mine = re.findall(r'data-grant="([0-9a-f]+)"', page.text)
                assert len(mine) == 1  # bravo's own, not alpha's
                alphas = [k for k, _ in gate.grants() if grant_id(k) != mine[0]]
                csrf = browser.cookies.get("github_mcp_grants_csrf", path="/approvals/grants")
                # bravo cannot revoke alpha's grant, even naming it
                browser.post(url, data={"revoke": grant_id(alphas[0]), "csrf": csrf})
                assert len(gate.grants()) == 2
                revoked = browser.post(url, data={"revoke": mine[0], "csrf": csrf})
                assert revoked.status_code == 303
            assert [k for k, _ in gate.grants()] == alphas
            head = branch_head(forge, repo)
            is_error, refused = await call_tool(bravo, "commit_files", numbered(repo, 1))
            assert is_error and error_code(refused) == "write_not_allowed"
            assert branch_head(forge, repo) == head
            is_error, written = await call_tool(alpha, "commit_files", numbered(repo, 2))
            assert not is_error, written
    assert branch_head(forge, repo) == written["commit_sha"]
