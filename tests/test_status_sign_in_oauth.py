"""/status under GITHUB_MCP_AUTH=oauth: a user signs in with GitHub (the forge's own sign-in,
in Chromium through Playwright) and sees only their own activity; the operator's bearer
token still shows the whole page. Evidence of who wrote what is the forge's branches."""

from __future__ import annotations

import httpx2 as httpx
import pytest

from github_mcp.status.auth import SESSION_COOKIE
from tests.conftest import call_tool
from tests.oauth.conftest import oauth_server as oauth_server
from tests.oauth.signin import signed_in_client
from tests.shared_browser import fresh_context

ORG = "status-oauth-org"
PASSWORDS = {"stat-ann": "stat-ann-pass-5512", "stat-ben": "stat-ben-pass-8830"}
OPERATOR = "status-oauth-operator-0123456789"


@pytest.fixture(scope="module")
def people(forge):
    for login, password in PASSWORDS.items():
        if forge.state.repo(ORG, login) is None:
            forge.add_user(login, password=password)
            forge.seed_repo(f"{ORG}/{login}", {"README.md": f"# {login}\n"})
            forge.add_collaborator(f"{ORG}/{login}", login, role="write")
    return forge


async def _branch(mcp_url: str, login: str, branch: str) -> None:
    async with signed_in_client(mcp_url, login, PASSWORDS[login]) as client:
        is_error, result = await call_tool(
            client, "create_branch", {"full_name": f"{ORG}/{login}", "branch": branch}
        )
    assert not is_error, result


async def _sign_in_on_status(url: str, login: str) -> tuple[str, list[dict]]:
    async with fresh_context() as context:
        page = await context.new_page()
        await page.goto(url + "/status")
        async with page.expect_navigation():
            await page.click("#sign-in-github")
        await page.fill("#login_field", login)
        await page.fill("#password", PASSWORDS[login])
        async with page.expect_navigation():
            await page.click("button[name=commit]")
        if await page.locator("#js-oauth-authorize-btn").count():
            async with page.expect_navigation():
                await page.click("#js-oauth-authorize-btn")
        await page.wait_for_selector("#own-audit")
        return await page.inner_text("body"), list(await context.cookies())


async def test_a_github_user_sees_only_their_own_activity(oauth_server, people):
    server = oauth_server(allowed_users=",".join(PASSWORDS), auth_tokens=OPERATOR)
    await _branch(server.mcp_url, "stat-ann", "ann/feature")
    await _branch(server.mcp_url, "stat-ben", "ben/feature")
    assert people.state.repo(ORG, "stat-ann").git.read_ref("refs/heads/ann/feature")
    assert people.state.repo(ORG, "stat-ben").git.read_ref("refs/heads/ben/feature")

    text, cookies = await _sign_in_on_status(server.base_url, "stat-ann")
    assert "Signed in as stat-ann" in text
    assert f"{ORG}/stat-ann" in text and "ann/feature" in text
    assert "stat-ben" not in text and "ben/feature" not in text
    (cookie,) = [c for c in cookies if c["name"] == SESSION_COOKIE]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"

    # the operator's token shows the whole server, both users' writes included
    whole = httpx.get(server.base_url + "/status", headers={"Authorization": f"Bearer {OPERATOR}"})
    assert whole.status_code == 200 and 'id="total-calls"' in whole.text
    assert "ann/feature" in whole.text and "ben/feature" in whole.text


async def test_without_a_session_the_page_offers_github_sign_in(oauth_server, people):
    server = oauth_server(allowed_users=",".join(PASSWORDS))
    page = httpx.get(server.base_url + "/status")
    assert page.status_code == 401 and 'id="sign-in-github"' in page.text
    assert 'id="sign-in"' not in page.text  # no token form: no tokens are configured
    forged = httpx.get(
        server.base_url + "/status", cookies={SESSION_COOKIE: "github:stat-ben|9999999999|00"}
    )
    assert forged.status_code == 401
