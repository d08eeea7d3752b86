"""A pending approval request stays on /status after the session that asked for it ends,
until a human decides it or its link expires. Decided then, it writes nothing: the
session is gone. Real MCP clients over HTTP against the forge; the evidence is the status
page, the approval page's outcome and the forge's branch head."""

from __future__ import annotations

import re

import httpx2 as httpx

from tests.approvals.conftest import (
    TOKEN_A,
    FakeClock,
    branch_head,
    http_client,
    visit_approval_page,
)
from tests.approvals.test_grants import status_page
from tests.approvals.test_page_bearer import approval_url, commit_args
from tests.conftest import call_tool
from tests.replicas.cluster import wait_for


def _open_sessions(url: str) -> int:
    with httpx.Client() as browser:
        text, _ = status_page(url, browser)
    found = re.search(r'id="sessions-open"[^>]*>(\d+)<', text)
    assert found, "the status page lost its open-session count"
    return int(found.group(1))


def _listed(url: str, request_id: str) -> bool:
    with httpx.Client() as browser:
        text, _ = status_page(url, browser)
    return f'data-request="{request_id}"' in text


async def _asked_then_closed(served, repo: str) -> tuple[str, str]:
    """A session asks for approval of a write, then ends (DELETE): (link, request id)."""
    async with http_client(served.url, TOKEN_A) as model:  # handshake era: a session
        link = approval_url((await call_tool(model, "commit_files", commit_args(repo)))[1])
        assert _open_sessions(served.url) == 1
    wait_for(lambda: _open_sessions(served.url) == 0, "the session to end")
    return link, link.split("/approvals/")[1].split("#")[0]


async def test_a_pending_request_outlives_its_session_until_decided(
    approval_server, forge, fresh_repo
):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        link, request_id = await _asked_then_closed(served, repo)
        assert _listed(served.url, request_id)  # still open: listed
        assert [r.id for r in served.rt.pending.open_requests()] == [request_id]
        visit = await visit_approval_page(link, "approve", token=TOKEN_A)
        assert visit.outcome == "approved"
        assert not _listed(served.url, request_id)  # decided: no longer pending
    assert branch_head(forge, repo) == before  # nobody holds the scope: nothing written


async def test_a_pending_request_outlives_its_session_until_it_expires(
    approval_server, forge, fresh_repo
):
    repo = fresh_repo()
    clock = FakeClock()
    with approval_server(clock=clock) as served:
        _link, request_id = await _asked_then_closed(served, repo)
        assert _listed(served.url, request_id)
        clock.advance(served.rt.settings.approval_link_ttl_seconds + 1)
        assert not _listed(served.url, request_id)
        assert served.rt.pending.open_requests() == []
