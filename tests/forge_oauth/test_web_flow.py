"""GitHub's web application flow on the forge, driven in headless Chromium: sign in with a
forge user's password, authorize (or cancel), and come back to the client's callback."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import httpx2

from .conftest import (
    CALLBACK,
    api,
    authorize_params,
    exchange,
    pkce_pair,
    run_flow,
)


def test_alice_signs_in_authorizes_and_her_token_is_hers(browser, people, oauth_app):
    verifier, challenge = pkce_pair()
    params = authorize_params(
        oauth_app, scope="repo read:org", code_challenge=challenge, code_challenge_method="S256"
    )
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{people.url}/login/oauth/authorize?{urlencode(params)}")
    assert page.url.startswith(f"{people.url}/login?")  # signed out: the login form first
    page.close()

    outcome = run_flow(browser, people.url, params, "alice", people.passwords["alice"])
    query = outcome.query()
    assert outcome.redirect.startswith(CALLBACK + "?")
    assert query["state"] == "st-42" and len(query["code"]) == 20

    answer = exchange(people.url, oauth_app, code=query["code"], code_verifier=verifier)
    assert answer["token_type"] == "bearer" and answer["scope"] == "repo,read:org"
    assert answer["access_token"].startswith("gho_")
    with api(people.url, answer["access_token"]) as alice:
        me = alice.get("/user")
        assert me.status_code == 200
        assert me.json()["login"] == "alice"
        assert me.json()["id"] == people.forge.state.user("alice").id
        assert me.headers["x-oauth-scopes"] == "repo, read:org"
        assert alice.get("/api/v3/user").json()["login"] == "alice"
    # The request log saw the flow but never the code, the verifier or the secret.
    logged = json.dumps(people.forge.requests())
    assert "/login/oauth/access_token" in logged
    for secret in (query["code"], verifier, oauth_app["client_secret"], answer["access_token"]):
        assert secret not in logged
    outcome.context.close()


def test_the_authorize_page_names_the_app_and_the_scopes(browser, people, oauth_app):
    params = authorize_params(oauth_app, scope="repo workflow")
    outcome = run_flow(browser, people.url, params, "bob", people.passwords["bob"], decide=None)
    assert outcome.redirect is None
    assert "Authorize Sandbox MCP" in outcome.page_text
    assert "repo" in outcome.page_text and "workflow" in outcome.page_text
    assert "bob" in outcome.page_text
    outcome.context.close()


def test_a_wrong_password_stays_on_the_login_page(browser, people, oauth_app):
    outcome = run_flow(browser, people.url, authorize_params(oauth_app), "alice", "not-it")
    assert outcome.redirect is None
    assert "Incorrect username or password." in outcome.page_text
    outcome.context.close()


def test_cancel_sends_access_denied_with_the_state_and_no_code(browser, people, oauth_app):
    outcome = run_flow(
        browser,
        people.url,
        authorize_params(oauth_app, scope="repo"),
        "bob",
        people.passwords["bob"],
        decide="cancel",
    )
    query = outcome.query()
    assert query["error"] == "access_denied"
    assert query["error_description"] == "The user has denied your application access."
    assert query["state"] == "st-42" and "code" not in query
    outcome.context.close()


def test_unknown_apps_and_unregistered_redirects_get_a_page_never_a_redirect(
    browser, people, oauth_app
):
    context = browser.new_context()
    unknown = run_flow(
        browser, people.url, {"client_id": "Ov23linope", "redirect_uri": CALLBACK}, context=context
    )
    assert unknown.redirect is None and "Not Found" in unknown.page_text
    for bad in (
        "http://evil.example/oauth/callback",
        "http://127.0.0.1:48123/elsewhere",
        "http://127.0.0.1:48123/oauth/callback/../../steal",
        "https://127.0.0.1:48123/oauth/callback",
    ):
        outcome = run_flow(
            browser, people.url, authorize_params(oauth_app, redirect_uri=bad), context=context
        )
        assert outcome.redirect is None, bad
        assert "redirect_uri is not associated with this application" in outcome.page_text
    context.close()
    with httpx2.Client(base_url=people.url) as client:
        answer = client.get(
            "/login/oauth/authorize",
            params={"client_id": oauth_app["client_id"], "redirect_uri": "http://evil.example/"},
        )
        assert answer.status_code == 400 and "location" not in answer.headers


def test_a_path_below_the_callback_is_accepted(browser, people, oauth_app):
    params = authorize_params(oauth_app, redirect_uri=CALLBACK + "/deeper")
    outcome = run_flow(browser, people.url, params, "bob", people.passwords["bob"])
    assert outcome.redirect.startswith(CALLBACK + "/deeper?code=")
    outcome.context.close()


def test_an_app_already_authorized_sends_the_browser_straight_back(browser, people, oauth_app):
    params = authorize_params(oauth_app, scope="repo")
    first = run_flow(browser, people.url, params, "alice", people.passwords["alice"])
    assert "code" in first.query()
    again = run_flow(browser, people.url, params, decide=None, context=first.context)
    assert "code" in again.query() and again.query()["code"] != first.query()["code"]
    wider = run_flow(
        browser, people.url, authorize_params(oauth_app, scope="repo workflow"),
        decide=None, context=first.context,
    )  # fmt: skip
    assert wider.redirect is None and "workflow" in wider.page_text  # more scopes: ask again
    first.context.close()


def test_pkce_needs_s256(browser, people, oauth_app):
    params = authorize_params(oauth_app, code_challenge="a" * 43, code_challenge_method="plain")
    outcome = run_flow(browser, people.url, params, "alice", people.passwords["alice"])
    assert outcome.query()["error"] == "invalid_request"
    assert "code" not in outcome.query()
    outcome.context.close()


def test_forms_without_the_session_csrf_token_are_refused(browser, people, oauth_app):
    params = authorize_params(oauth_app, scope="repo")
    outcome = run_flow(browser, people.url, params, "bob", people.passwords["bob"], decide=None)
    cookies = {c["name"]: c["value"] for c in outcome.context.cookies()}
    assert "user_session" in cookies
    cookie = next(c for c in outcome.context.cookies() if c["name"] == "user_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    with httpx2.Client(base_url=people.url, cookies=cookies) as forged:
        answer = forged.post(
            "/login/oauth/authorize",
            data={**params, "authorize": "1", "authenticity_token": "guessed"},
        )
        assert answer.status_code == 403 and "location" not in answer.headers
        no_token = forged.post("/login/oauth/authorize", data={**params, "authorize": "1"})
        assert no_token.status_code == 403
    with httpx2.Client(base_url=people.url) as stranger:  # no session at all
        answer = stranger.post("/session", data={"login": "bob", "password": "x"})
        assert answer.status_code == 403
    outcome.context.close()
