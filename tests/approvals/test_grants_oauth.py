"""Grants under GITHUB_MCP_AUTH=oauth: a user whose GitHub permission could never allow a
write is refused at once and opens no approval request, and signing in again or signing
out (revoking a token) ends the user's grants. Real MCP OAuth clients signed in through
headless Chromium on the forge; evidence from the forge's branch heads and request log and
from the approval store."""

from __future__ import annotations

import httpx2 as httpx
import pytest

from github_mcp.status.grants import grant_id
from tests.approvals.conftest import branch_head, visit_approval_page
from tests.approvals.test_page_bearer import commit_args
from tests.conftest import call_tool, error_code, settled_requests
from tests.oauth.signin import signed_in_client

ORG = "grants-org"
REPO = f"{ORG}/grants-service"
PASSWORDS = {"gina": "gina-pass-5512", "rory": "rory-pass-9034"}


@pytest.fixture(scope="module")
def people(forge):
    for login, password in PASSWORDS.items():
        forge.add_user(login, password=password)
    forge.add_org_member(ORG, "gina", role="admin")
    forge.seed_repo(REPO, {"README.md": "# demo\nline two\n"}, private=True)
    forge.add_collaborator(REPO, "rory", role="read")  # may read, may never push
    return forge


def sign_in(server, login: str):
    # the handshake-era protocol: its connections are sessions, which may hold a window
    return signed_in_client(server.mcp_url, login, PASSWORDS[login], mode="legacy")


def writes_to(forge, repo: str) -> list[dict]:
    return [
        r
        for r in settled_requests(forge)
        if r["method"] in ("POST", "PATCH", "PUT", "DELETE") and f"/repos/{repo}/" in r["path"]
    ]


async def test_a_read_only_user_is_refused_at_once_and_opens_no_request(oauth_server, people):
    forge = people
    server = oauth_server(allowed_users="gina,rory")
    before = branch_head(forge, REPO)
    writes_before = len(writes_to(forge, REPO))
    async with sign_in(server, "rory") as model:
        for attempt in range(3):
            args = commit_args(REPO, f"# demo\nrory {attempt}\n")
            is_error, payload = await call_tool(model, "commit_files", args)
            assert is_error and error_code(payload) == "forbidden", payload
            assert "pull" in payload["error"]["message"] and payload["error"]["hint"]
            assert "approval_url" not in payload["error"]
    assert server.rt.pending.open_requests() == []
    assert len(writes_to(forge, REPO)) == writes_before  # nothing was even tried
    assert branch_head(forge, REPO) == before


async def test_signing_in_again_or_out_revokes_the_users_grants(oauth_server, people):
    forge = people
    server = oauth_server(allowed_users="gina,rory", approval_mode="tool")
    gate = server.rt.gate
    before = branch_head(forge, REPO)
    async with sign_in(server, "gina") as first:
        state = (await call_tool(first, "authorize_write_actions", {"approved": True}))[1]
        assert state["approved"] and state["scope"] == "session"
        assert [owner for owner, _ in gate.grants() if owner.startswith("github:gina/")]
        async with sign_in(server, "gina") as second:  # gina signs in again, elsewhere
            await call_tool(second, "get_me")
            assert gate.grants() == []
            is_error, refused = await call_tool(first, "commit_files", commit_args(REPO))
            assert is_error and error_code(refused) == "write_not_allowed", refused
        assert branch_head(forge, REPO) == before

        # approved again in the first session, then gina signs out (RFC 7009 revocation)
        assert (await call_tool(first, "authorize_write_actions", {"approved": True}))[1][
            "approved"
        ]
        assert len(gate.grants()) == 1
        tokens = await first.oauth_storage.get_tokens()
        client = await first.oauth_storage.get_client_info()
        revoked = httpx.post(
            server.base_url + "/revoke",
            data={"token": tokens.access_token, "client_id": client.client_id},
        )
        assert revoked.status_code == 200
        assert gate.grants() == []
    assert branch_head(forge, REPO) == before


async def test_a_signed_in_user_revokes_their_own_grant_in_the_browser(oauth_server, people):
    forge = people
    server = oauth_server(allowed_users="gina,rory", approval_mode="tool")
    gate = server.rt.gate
    before = branch_head(forge, REPO)
    async with sign_in(server, "gina") as model:
        assert (await call_tool(model, "authorize_write_actions", {"approved": True}))[1][
            "approved"
        ]
        (key,) = [k for k, _ in gate.grants()]
        page = server.base_url + "/approvals/grants"
        choice = f"revoke-{grant_id(key)}"
        # gina signs in to the page with GitHub (the forge) and clicks Revoke
        visit = await visit_approval_page(page, choice, sign_in=("gina", PASSWORDS["gina"]))
        assert "Signed in as gina" in visit.text and "gated writes of one session" in visit.text
        assert gate.grants() == []
        is_error, refused = await call_tool(model, "commit_files", commit_args(REPO))
        assert is_error and error_code(refused) == "write_not_allowed", refused
    assert branch_head(forge, REPO) == before
