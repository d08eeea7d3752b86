"""Hosted sign-in end to end: a real MCP OAuth client, headless Chromium on the consent
page and the forge's login and authorize pages, the forge as GitHub. Evidence comes from
the forge (who GitHub says the token is, branch heads, its request log) and the audit log.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2 as httpx
import pytest
from fastmcp.server.auth.jwt_issuer import JWTIssuer

from tests.conftest import call_tool, error_code, settled_requests
from tests.oauth.flow import (
    PASSWORDS,
    authorize_url,
    manual_code,
    mcp_status,
    pkce_pair,
    register_client,
    token_request,
)
from tests.oauth.signin import CLIENT_REDIRECT, sign_in_in_browser, signed_in_client

ORG = "oauth-org"
TEAM_REPO = f"{ORG}/team-app"  # alice admin, bob read
PRIVATE_REPO = f"{ORG}/alice-notes"  # alice only
TRANSCRIPT: list[str] = []


@pytest.fixture(scope="module")
def world(forge):
    for login, password in PASSWORDS.items():
        forge.add_user(login, password=password)
    forge.add_org_member(ORG, "alice", role="admin")
    forge.seed_repo(TEAM_REPO, {"README.md": "# team app\n"}, private=True)
    forge.seed_repo(PRIVATE_REPO, {"notes.md": "alice's private notes\n"}, private=True)
    forge.add_collaborator(TEAM_REPO, "bob", role="read")
    return forge


def branch_head(forge, full_name: str, branch: str) -> str | None:
    admin = forge.create_token(login="octocat")
    response = httpx.get(
        f"{forge.base_url}/repos/{full_name}/git/ref/heads/{branch}",
        headers={"Authorization": f"Bearer {admin}"},
    )
    return response.json()["object"]["sha"] if response.status_code == 200 else None


def resign(server, token: str, **changes: Any) -> str:
    """The same token re-signed with the server's own key, some claims changed: only
    the changed claim can be why it is refused."""
    sign_in = server.app.state.sign_in
    issuer: JWTIssuer = sign_in.jwt_issuer
    claims = issuer.verify_token(token)
    issuer_for = JWTIssuer(
        issuer=claims["iss"],
        audience=changes.pop("aud", claims["aud"]),
        signing_key=sign_in._jwt_signing_key,
    )
    lifetime = changes.pop("expires_in", claims["exp"] - int(time.time()))
    return issuer_for.issue_access_token(
        client_id=claims["client_id"],
        scopes=claims.get("scope", "").split(),
        jti=claims["jti"],
        expires_in=lifetime,
    )


# -- the whole flow ------------------------------------------------------------------


async def test_alice_signs_in_and_acts_as_herself(world, oauth_server):
    server = oauth_server()
    world.clear_requests()
    async with signed_in_client(server.mcp_url, "alice", PASSWORDS["alice"]) as client:
        is_error, me = await call_tool(client, "get_me")
        assert not is_error, me
        # the forge answered GET /user for the token the server sent: alice's own
        assert me["login"] == "alice"
        is_error, notes = await call_tool(
            client, "get_file_contents", {"full_name": PRIVATE_REPO, "path": "notes.md"}
        )
        assert not is_error, notes
        assert "alice's private notes" in json.dumps(notes)
        is_error, created = await call_tool(
            client, "create_branch", {"full_name": TEAM_REPO, "branch": "alice-feature"}
        )
        assert not is_error, created
        browser = client.oauth_browser
    assert branch_head(world, TEAM_REPO, "alice-feature") == created["sha"]
    audit = [json.loads(line) for line in server.settings.audit_log.read_text().splitlines()]
    assert [(a["tool"], a["principal"], a["principal_kind"]) for a in audit] == [
        ("create_branch", "alice", "github")
    ]
    # GitHub's side of the sign-in, as the forge logged it (secrets redacted there)
    forge_side = [
        f"{r['method']} {r['path']} -> {r['status']}"
        for r in settled_requests(world)
        if r["path"].startswith(("/login", "/session", "/user"))
    ]
    assert any(line.startswith("POST /login/oauth/access_token -> 200") for line in forge_side)
    TRANSCRIPT[:] = (
        ["# MCP server (what the client and the browser asked of it)"]
        + [
            f"{e.method} {e.path}"
            + (f"?{'&'.join(k + '=…' for k in e.query_keys)}" if e.query_keys else "")
            + f" -> {e.status}"
            + (f" (Location: {e.location})" if e.location else "")
            for e in server.recorder.exchanges
        ]
        + ["# browser navigations"]
        + browser.result.pages
        + ["# forge (GitHub) side"]
        + forge_side
    )
    import os

    if os.environ.get("OAUTH_TRANSCRIPT"):
        with open(os.environ["OAUTH_TRANSCRIPT"], "w") as handle:
            handle.write("\n".join(TRANSCRIPT) + "\n")
    # secrets never appear in what the transcript keeps
    text = "\n".join(TRANSCRIPT)
    assert "gho_" not in text and "ghu_" not in text and "code=" not in text.replace("code=…", "")


async def test_bob_is_bounded_by_his_own_github_permissions(world, oauth_server):
    # the sandbox's own tests cover bubblewrap; here the point is whose clone is whose
    server = oauth_server(workspace_sandbox="none")
    # alice's read of her private repo fills the caches first
    async with signed_in_client(server.mcp_url, "alice", PASSWORDS["alice"]) as alice:
        is_error, _ = await call_tool(
            alice, "get_file_contents", {"full_name": PRIVATE_REPO, "path": "notes.md"}
        )
        assert not is_error
        is_error, clone = await call_tool(
            alice, "ensure_workspace_clone", {"full_name": TEAM_REPO, "ref": "main"}
        )
        assert not is_error, clone
    head_before = branch_head(world, TEAM_REPO, "main")
    world.clear_requests()
    async with signed_in_client(server.mcp_url, "bob", PASSWORDS["bob"]) as bob:
        is_error, me = await call_tool(bob, "get_me")
        assert me["login"] == "bob"
        # alice's cached private content is not served to bob: GitHub is asked, with his
        # token, and says 404
        is_error, notes = await call_tool(
            bob, "get_file_contents", {"full_name": PRIVATE_REPO, "path": "notes.md"}
        )
        assert is_error and error_code(notes) == "not_found", notes
        # reads are GraphQL queries: the forge's log names who asked
        asked = [r for r in settled_requests(world) if r["path"].endswith("/graphql")]
        assert asked and {r.get("login") for r in asked} == {"bob"}, asked
        # bob may read the team repo, not write it: GitHub's 403 is permission_denied
        is_error, readme = await call_tool(
            bob, "get_file_contents", {"full_name": TEAM_REPO, "path": "README.md"}
        )
        assert not is_error, readme
        is_error, refused = await call_tool(
            bob, "create_branch", {"full_name": TEAM_REPO, "branch": "bob-feature"}
        )
        assert is_error and error_code(refused) == "permission_denied", refused
        # alice's workspace clone is not bob's to see
        is_error, changes = await call_tool(
            bob, "get_workspace_changes_summary", {"full_name": TEAM_REPO, "ref": "main"}
        )
        assert is_error and error_code(changes) == "not_found", changes
    users = server.settings.workspace_dir / "users"
    assert any((users / "alice").rglob("README.md"))  # alice's clone, under her root
    assert not any((users / "bob").rglob("README.md"))
    assert branch_head(world, TEAM_REPO, "bob-feature") is None
    assert branch_head(world, TEAM_REPO, "main") == head_before


# -- refusals --------------------------------------------------------------------------


async def test_refresh_rotates_and_revocation_ends_the_grant(world, oauth_server):
    server = oauth_server()
    base = server.base_url
    client_id, code, verifier = await manual_code(server, "alice")
    first = token_request(
        base,
        grant_type="authorization_code",
        code=code,
        redirect_uri=CLIENT_REDIRECT,
        client_id=client_id,
        code_verifier=verifier,
    )
    assert first.status_code == 200, first.text
    tokens = first.json()
    assert mcp_status(base, tokens["access_token"]) == 200
    assert tokens["refresh_token"]

    refreshed = token_request(
        base, grant_type="refresh_token", refresh_token=tokens["refresh_token"], client_id=client_id
    )
    assert refreshed.status_code == 200, refreshed.text
    new = refreshed.json()
    assert new["refresh_token"] != tokens["refresh_token"]
    assert mcp_status(base, new["access_token"]) == 200
    # rotation: the old refresh token is spent
    again = token_request(
        base, grant_type="refresh_token", refresh_token=tokens["refresh_token"], client_id=client_id
    )
    assert again.status_code == 400, again.text
    assert again.json()["error"] == "invalid_grant", again.text

    # RFC 7009 §2.1: a public client sends its client_id alone
    revoked = httpx.post(
        base + "/revoke", data={"token": new["access_token"], "client_id": client_id}
    )
    assert revoked.status_code == 200, revoked.text
    assert mcp_status(base, new["access_token"]) == 401
    after = token_request(
        base, grant_type="refresh_token", refresh_token=new["refresh_token"], client_id=client_id
    )
    assert after.status_code == 400, after.text
    assert after.json()["error"] == "invalid_grant", after.text


async def test_wrong_audience_and_expired_tokens_are_refused(world, oauth_server):
    server = oauth_server()
    base = server.base_url
    client_id, code, verifier = await manual_code(server, "alice")
    tokens = token_request(
        base,
        grant_type="authorization_code",
        code=code,
        redirect_uri=CLIENT_REDIRECT,
        client_id=client_id,
        code_verifier=verifier,
    ).json()
    assert mcp_status(base, tokens["access_token"]) == 200
    # the same grant and key, minted for another resource: refused (RFC 8707 binding)
    other_audience = resign(server, tokens["access_token"], aud="http://127.0.0.1:1/mcp")
    assert mcp_status(base, other_audience) == 401
    expired = resign(server, tokens["access_token"], expires_in=-60)
    assert mcp_status(base, expired) == 401
    # and the control: re-signed unchanged, it is accepted
    assert mcp_status(base, resign(server, tokens["access_token"])) == 200


async def test_pkce_is_required(world, oauth_server):
    server = oauth_server()
    base = server.base_url
    client_id = register_client(base)
    no_challenge = httpx.get(authorize_url(base, client_id, None), follow_redirects=False)
    location = no_challenge.headers.get("location", "")
    assert no_challenge.status_code in (302, 400)
    if no_challenge.status_code == 302:
        query = parse_qs(urlsplit(location).query)
        assert query["error"] == ["invalid_request"]
        assert "code" not in query

    client_id, code, verifier = await manual_code(server, "alice")
    missing = token_request(
        base,
        grant_type="authorization_code",
        code=code,
        redirect_uri=CLIENT_REDIRECT,
        client_id=client_id,
    )
    assert missing.status_code == 400
    wrong = token_request(
        base,
        grant_type="authorization_code",
        code=code,
        redirect_uri=CLIENT_REDIRECT,
        client_id=client_id,
        code_verifier=pkce_pair()[0],
    )
    assert wrong.status_code == 400, wrong.text
    assert wrong.json()["error"] == "invalid_grant", wrong.text


def test_unregistered_redirect_uri_is_refused(world, oauth_server):
    server = oauth_server()
    base = server.base_url
    client_id = register_client(base)
    _, challenge = pkce_pair()
    url = authorize_url(base, client_id, challenge)
    url = url.replace(
        urlencode({"redirect_uri": CLIENT_REDIRECT}),
        urlencode({"redirect_uri": "https://attacker.example/cb"}),
    )
    response = httpx.get(url, follow_redirects=False)
    assert response.status_code == 400
    assert "attacker.example" not in response.headers.get("location", "")


async def test_user_not_on_the_allow_list_gets_a_page_and_no_token(world, oauth_server):
    server = oauth_server(allowed_users="alice")
    client_id = register_client(server.base_url)
    _, challenge = pkce_pair()
    world.clear_requests()
    result = await sign_in_in_browser(
        authorize_url(server.base_url, client_id, challenge), "bob", PASSWORDS["bob"]
    )
    assert result.redirect is None  # no code ever reached the client
    assert result.refused_text and "bob is not allowed" in result.refused_text
    callback = [e for e in server.recorder.exchanges if e.path == "/auth/callback"]
    assert [e.status for e in callback] == [403]
    # the GitHub grant bob gave was revoked at once
    revokes = [
        r
        for r in settled_requests(world)
        if r["method"] == "DELETE" and "/applications/" in r["path"]
    ]
    assert revokes
