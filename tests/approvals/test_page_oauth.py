"""The approval page under GITHUB_MCP_AUTH=oauth: the page sits behind the user's own GitHub
sign-in (the forge's login in Chromium) and only the user whose write it is may decide.
Evidence is the forge's branch heads."""

from __future__ import annotations

import pytest

from tests.approvals.conftest import branch_head, commit_parents, visit_approval_page
from tests.approvals.test_page_bearer import approval_url, commit_args
from tests.conftest import call_tool, error_code
from tests.oauth.signin import signed_in_client

ORG = "approvals-org"
REPO = f"{ORG}/team-service"
PASSWORDS = {"ann": "ann-pass-7310", "ben": "ben-pass-2291"}


@pytest.fixture(scope="module")
def people(forge):
    for login, password in PASSWORDS.items():
        forge.add_user(login, password=password)
    forge.add_org_member(ORG, "ann", role="admin")
    forge.add_org_member(ORG, "ben", role="admin")
    forge.seed_repo(REPO, {"README.md": "# demo\nline two\n"}, private=True)
    return forge


async def test_only_the_signed_in_owner_can_approve(oauth_server, people):
    forge = people
    server = oauth_server(allowed_users="ann,ben")
    before = branch_head(forge, REPO)
    async with signed_in_client(server.mcp_url, "ann", PASSWORDS["ann"]) as model:
        is_error, state = await call_tool(model, "authorize_write_actions", {"approved": True})
        assert is_error and error_code(state) == "write_not_allowed"
        link = approval_url((await call_tool(model, "commit_files", commit_args(REPO)))[1])
        assert (
            "signed in as ann"
            in (await call_tool(model, "commit_files", commit_args(REPO)))[1]["error"]["hint"]
        )

        # ben signs in on the page with his own GitHub account: not his approval
        intruder = await visit_approval_page(link, "approve", sign_in=("ben", PASSWORDS["ben"]))
        assert intruder.outcome is None and "Not your approval" in intruder.text
        assert branch_head(forge, REPO) == before
        is_error, payload = await call_tool(model, "commit_files", commit_args(REPO))
        assert is_error and error_code(payload) == "write_not_allowed"

        # ann signs in on the page, sees the write, approves it
        visit = await visit_approval_page(link, "approve", sign_in=("ann", PASSWORDS["ann"]))
        assert "commit_files" in visit.text and REPO in visit.text
        assert any("README.md" in f and "+2" in f for f in visit.files)
        assert visit.outcome == "approved"
        is_error, result = await call_tool(model, "commit_files", commit_args(REPO))
        assert not is_error, result
        after = branch_head(forge, REPO)
        assert commit_parents(forge, REPO, after) == [before]
    assert branch_head(forge, REPO) == after
