"""Sign-in by the RFCs, each departure an outside probe found, now a test: registration of
the bodies connectors send (claude.ai's, from Anthropic's connector documentation), RFC
6749 §5.2 status codes, RFC 7009 revocation by a public client, secret-based client
authentication honoured, the sign-in pages' headers, client metadata document errors
(rotation, replay and lifetimes: test_rotation_and_lifetimes.py).
Evidence of revocation comes from the forge: the server told GitHub to revoke and GitHub
answered 204."""

from __future__ import annotations

import re
from urllib.parse import urlencode, urlsplit

import httpx2 as httpx
import pytest

from tests.oauth.flow import (
    PASSWORDS,
    github_revocations,
    manual_code,
    mcp_status,
    pkce_pair,
    refresh,
    registration,
    signed_in_tokens,
    token_request,
)
from tests.oauth.signin import CLIENT_REDIRECT
from tests.shared_browser import fresh_context

# What claude.ai's connector registers (Anthropic documents both callback URLs for remote
# MCP authentication; the connector asks for its own `claudeai` scope).
CLAUDE_AI_REGISTRATION = {
    "client_name": "claudeai",
    "redirect_uris": [
        "https://claude.ai/api/mcp/auth_callback",
        "https://claude.com/api/mcp/auth_callback",
    ],
    "token_endpoint_auth_method": "none",
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "scope": "claudeai",
}
# ChatGPT's connector registers a public client on its documented callback, without a scope.
CHATGPT_REGISTRATION = {
    "client_name": "ChatGPT",
    "redirect_uris": ["https://chatgpt.com/connector_platform_oauth_redirect"],
    "token_endpoint_auth_method": "none",
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
}
DUMMY = {"oauth_client_id": "Iv1.rfc-probe", "oauth_client_secret": "not-used-here"}


@pytest.fixture(scope="module")
def world(forge):
    for login, password in PASSWORDS.items():
        forge.add_user(login, password=password)
    return forge


# -- registration ------------------------------------------------------------------------


def test_chatgpt_registers_and_gets_the_granted_scopes(oauth_server):
    server = oauth_server(**DUMMY)
    response = httpx.post(server.base_url + "/register", json=CHATGPT_REGISTRATION)
    assert response.status_code == 201, response.text
    client = response.json()
    assert client["scope"] == "repo read:org" and client["token_endpoint_auth_method"] == "none"
    _, challenge = pkce_pair()
    query = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": CHATGPT_REGISTRATION["redirect_uris"][0],
        "state": "s",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": server.mcp_url,
    }
    authorize = httpx.get(f"{server.base_url}/authorize?{urlencode(query)}")
    assert authorize.status_code == 302, authorize.text
    consent = httpx.get(authorize.headers["location"])
    assert consent.status_code == 200 and "Allow Access" in consent.text


def test_claude_ai_registers_and_its_scope_is_narrowed(oauth_server):
    server = oauth_server(**DUMMY)
    base = server.base_url
    metadata = httpx.get(base + "/.well-known/oauth-authorization-server").json()
    resource = httpx.get(base + "/.well-known/oauth-protected-resource/mcp").json()
    # the real scopes: what the server asks GitHub for (GITHUB_OAUTH_SCOPES)
    assert metadata["scopes_supported"] == ["repo", "read:org"]
    assert resource["scopes_supported"] == ["repo", "read:org"]
    assert "none" in metadata["revocation_endpoint_auth_methods_supported"]

    response = httpx.post(base + "/register", json=CLAUDE_AI_REGISTRATION)
    assert response.status_code == 201, response.text
    client = response.json()
    assert client["scope"] == "repo read:org"  # `claudeai` narrowed to what is granted
    assert client["token_endpoint_auth_method"] == "none"
    assert "client_secret" not in client
    # a mix keeps the known part
    mixed = registration(base, scope="repo admin:enterprise")
    assert mixed["scope"] == "repo"

    # claude.ai asks for `claudeai` at /authorize too: the consent page, not an error
    _, challenge = pkce_pair()
    query = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": "https://claude.ai/api/mcp/auth_callback",
        "scope": "claudeai",
        "state": "s",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    authorize = httpx.get(f"{base}/authorize?{urlencode(query)}", follow_redirects=False)
    assert authorize.status_code == 302, authorize.text
    assert urlsplit(authorize.headers["location"]).path == "/consent"


def test_a_github_app_deployment_without_scopes_still_registers_claude_ai(oauth_server):
    """GitHub Apps ignore scopes, so an operator may set GITHUB_OAUTH_SCOPES empty: the
    server then grants no scope, and claude.ai's `claudeai` narrows to none, not a 400."""
    server = oauth_server(**DUMMY, oauth_scopes="")
    base = server.base_url
    assert httpx.get(base + "/.well-known/oauth-authorization-server").json().get(
        "scopes_supported"
    ) in (None, [])
    response = httpx.post(base + "/register", json=CLAUDE_AI_REGISTRATION)
    assert response.status_code == 201, response.text
    assert not response.json().get("scope")
    _, challenge = pkce_pair()
    query = {
        "response_type": "code",
        "client_id": response.json()["client_id"],
        "redirect_uri": "https://claude.ai/api/mcp/auth_callback",
        "scope": "claudeai",
        "state": "s",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    authorize = httpx.get(f"{base}/authorize?{urlencode(query)}", follow_redirects=False)
    assert authorize.status_code == 302, authorize.text
    assert urlsplit(authorize.headers["location"]).path == "/consent"


def test_an_omitted_or_unsupported_auth_method_is_said_plainly(oauth_server):
    server = oauth_server(**DUMMY)
    base = server.base_url
    omitted = {k: v for k, v in CLAUDE_AI_REGISTRATION.items() if k != "token_endpoint_auth_method"}
    response = httpx.post(base + "/register", json=omitted)
    assert response.status_code == 201, response.text
    assert response.json()["token_endpoint_auth_method"] == "none"  # stated, not implied
    for method in ("private_key_jwt", "tls_client_auth"):
        body = {**CLAUDE_AI_REGISTRATION, "token_endpoint_auth_method": method}
        refused = httpx.post(base + "/register", json=body)
        assert refused.status_code == 400
        assert refused.json()["error"] == "invalid_client_metadata"
        assert "token_endpoint_auth_method" in refused.json()["error_description"]


@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic"])
async def test_a_secret_based_client_gets_a_secret_and_must_use_it(world, oauth_server, method):
    server = oauth_server()
    base = server.base_url
    client = registration(base, token_endpoint_auth_method=method)
    assert client["token_endpoint_auth_method"] == method  # never downgraded to none
    secret = client["client_secret"]
    assert secret and client["client_secret_expires_at"] == 0
    client_id, code, verifier = await manual_code(server, "alice", client_id=client["client_id"])
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CLIENT_REDIRECT,
        "client_id": client_id,
        "code_verifier": verifier,
    }
    without = token_request(base, **form)  # no authentication at all: 400 (RFC 6749 §5.2)
    assert without.status_code == 400 and without.json()["error"] == "invalid_client"
    if method == "client_secret_post":
        wrong = token_request(base, **form, client_secret="0" * 64)
        right = lambda: token_request(base, **form, client_secret=secret)  # noqa: E731
    else:
        wrong = token_request(base, auth=(client_id, "0" * 64), **form)
        right = lambda: token_request(base, auth=(client_id, secret), **form)  # noqa: E731
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    if method == "client_secret_basic":
        assert wrong.headers["www-authenticate"].startswith("Basic")
    ok = right()
    assert ok.status_code == 200, ok.text
    assert mcp_status(base, ok.json()["access_token"]) == 200


# -- token endpoint errors (RFC 6749 §5.2) ------------------------------------------------


def test_token_errors_use_rfc_6749_status_codes(oauth_server):
    server = oauth_server(**DUMMY)
    base = server.base_url
    client_id = registration(base)["client_id"]
    cases = {
        "unknown code": dict(
            grant_type="authorization_code",
            code="no-such-code",
            redirect_uri=CLIENT_REDIRECT,
            client_id=client_id,
            code_verifier=pkce_pair()[0],
        ),
        "unknown refresh token": dict(
            grant_type="refresh_token", refresh_token="no-such-token", client_id=client_id
        ),
        "unsupported grant": dict(grant_type="password", client_id=client_id),
    }
    for name, form in cases.items():
        response = token_request(base, **form)
        assert response.status_code == 400, (name, response.text)
        assert response.headers["cache-control"] == "no-store"
    assert token_request(base, **cases["unknown code"]).json()["error"] == "invalid_grant"
    # invalid_client: 401 only when the client tried to authenticate, with a challenge
    # when it used HTTP Basic; 400 otherwise
    unknown_client = token_request(base, **{**cases["unknown code"], "client_id": "nobody"})
    assert unknown_client.status_code == 400
    assert unknown_client.json()["error"] == "invalid_client"
    with_secret = token_request(
        base, **{**cases["unknown code"], "client_id": "nobody", "client_secret": "guess"}
    )
    assert with_secret.status_code == 401 and with_secret.json()["error"] == "invalid_client"
    with_basic = token_request(
        base, auth=("nobody", "guess"), **{**cases["unknown code"], "client_id": "nobody"}
    )
    assert with_basic.status_code == 401
    assert with_basic.headers["www-authenticate"].startswith("Basic")


# -- revocation (RFC 7009) ---------------------------------------------------------------


async def test_a_public_client_revokes_with_its_client_id_alone(world, oauth_server):
    server = oauth_server()
    base = server.base_url
    client_id, tokens = await signed_in_tokens(server, "alice")
    other_client = registration(base)["client_id"]
    # another client cannot revoke alice's token (RFC 7009 §2.1), and is told nothing
    foreign = httpx.post(
        base + "/revoke", data={"token": tokens["refresh_token"], "client_id": other_client}
    )
    assert foreign.status_code == 200
    assert mcp_status(base, tokens["access_token"]) == 200
    world.clear_requests()
    revoked = httpx.post(
        base + "/revoke",
        data={
            "token": tokens["refresh_token"],
            "token_type_hint": "refresh_token",
            "client_id": client_id,
        },
    )
    assert revoked.status_code == 200, revoked.text
    assert revoked.headers["cache-control"] == "no-store"
    assert github_revocations(world) == [204]  # the GitHub grant ended too
    assert mcp_status(base, tokens["access_token"]) == 401
    assert refresh(base, client_id, tokens["refresh_token"]).status_code == 400
    unknown = httpx.post(base + "/revoke", data={"token": "whatever", "client_id": "nobody"})
    assert unknown.status_code == 400 and unknown.json()["error"] == "invalid_client"


# -- the pages ------------------------------------------------------------------------------


def _consent_url(base: str) -> str:
    client_id = registration(base)["client_id"]
    _, challenge = pkce_pair()
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": CLIENT_REDIRECT,
        "state": "s",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    authorize = httpx.get(f"{base}/authorize?{urlencode(query)}", follow_redirects=False)
    assert authorize.status_code == 302, authorize.text
    return authorize.headers["location"]


def _assert_page_headers(response: httpx.Response) -> None:
    assert response.headers["cache-control"] == "no-store", response.headers
    csp = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
    # nothing the page loads comes from another origin (links to documentation are fine)
    assert not re.search(r"""src=["']https?://|<link[^>]+href=["']https?://""", response.text)


async def test_sign_in_pages_load_nothing_from_elsewhere_and_are_never_cached(oauth_server):
    server = oauth_server(**DUMMY)
    base = server.base_url
    consent_url = _consent_url(base)
    _assert_page_headers(httpx.get(consent_url))
    # the callback's error page (a stale or forged state) and the authorize error page
    _assert_page_headers(httpx.get(base + "/auth/callback?state=forged&code=x"))
    _assert_page_headers(
        httpx.get(
            base + "/authorize?client_id=nobody&response_type=code", headers={"accept": "text/html"}
        )
    )
    # what the browser itself fetched to show the consent page: this origin only
    fetched: list[str] = []
    async with fresh_context() as context:
        page = await context.new_page()
        page.on("request", lambda request: fetched.append(request.url))
        await page.goto(_consent_url(base))
        await page.wait_for_load_state("networkidle")
        assert await page.locator("button[value=approve]").count() == 1
    assert fetched and all(
        url.startswith(base + "/") or url.startswith("data:") for url in fetched
    ), fetched


# -- client ID metadata documents ---------------------------------------------------------


@pytest.mark.parametrize("accept", ["application/json", "text/html"])
def test_a_blocked_metadata_document_url_says_why(oauth_server, accept):
    server = oauth_server(**DUMMY)
    _, challenge = pkce_pair()
    client_id = "https://127.0.0.1:9/oauth/client.json"
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": "https://app.example/cb",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    response = httpx.get(
        f"{server.base_url}/authorize?{urlencode(query)}", headers={"accept": accept}
    )
    assert response.status_code == 400
    text = response.text
    assert "blocked" in text and "private, loopback" in text, text
    assert "not registered" not in text


# -- who the tools act as -----------------------------------------------------------------


async def test_get_me_reports_the_oauth_credential(world, oauth_server):
    from tests.conftest import call_tool
    from tests.oauth.signin import signed_in_client

    server = oauth_server()
    async with signed_in_client(server.mcp_url, "alice", PASSWORDS["alice"]) as client:
        is_error, me = await call_tool(client, "get_me")
        assert not is_error, me
    assert me["login"] == "alice"
    assert me["credential_kind"] == "user_to_server"  # a GitHub App user token, not "none"
