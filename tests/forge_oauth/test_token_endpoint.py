"""POST /login/oauth/access_token as GitHub answers it: the code grant (with and without
PKCE), single-use and expiring codes, GitHub App style expiring tokens with refresh
rotation; the evidence is what the issued tokens can still do on the forge."""

from __future__ import annotations

import base64
import time

import httpx2
import pytest

from .conftest import (
    CALLBACK,
    api,
    authorize_params,
    exchange,
    git,
    pkce_pair,
    run_flow,
)


def _code(browser, people, app, login="alice", **extra) -> str:
    outcome = run_flow(
        browser, people.url, authorize_params(app, **extra), login, people.passwords[login]
    )
    outcome.context.close()
    return outcome.query()["code"]


def _status(people, token: str, path: str = "/user") -> int:
    with api(people.url, token) as client:
        return client.get(path).status_code


def test_a_code_without_pkce_gives_a_token_for_rest_graphql_and_git(
    browser, people, oauth_app, tmp_path
):
    code = _code(browser, people, oauth_app, scope="repo")
    answer = exchange(people.url, oauth_app, json_answer=False, code=code)  # form-encoded
    token = answer["access_token"]
    assert token.startswith("gho_") and answer["scope"] == "repo"
    assert answer["token_type"] == "bearer"
    with api(people.url, token) as alice:
        assert alice.get("/repos/octo-org/private-notes").status_code == 200
        query = '{ viewer { login } repository(owner: "octo-org", name: "private-notes") { name } }'
        data = alice.post("/graphql", json={"query": query}).json()["data"]
        assert data == {"viewer": {"login": "alice"}, "repository": {"name": "private-notes"}}
    listed = git(tmp_path, token, "ls-remote", f"{people.url}/octo-org/private-notes.git")
    assert listed.returncode == 0 and "refs/heads/main" in listed.stdout


def test_pkce_verifier_is_checked_and_a_failed_attempt_spends_the_code(browser, people, oauth_app):
    verifier, challenge = pkce_pair()
    pkce = {"code_challenge": challenge, "code_challenge_method": "S256"}
    code = _code(browser, people, oauth_app, **pkce)
    wrong = exchange(people.url, oauth_app, code=code, code_verifier=pkce_pair()[0])
    assert wrong["error"] == "bad_verification_code"
    assert wrong["error_description"] == "The code passed is incorrect or expired."
    assert "access_token" not in wrong
    late = exchange(people.url, oauth_app, code=code, code_verifier=verifier)
    assert late["error"] == "bad_verification_code"  # the code went with the first attempt

    missing = exchange(people.url, oauth_app, code=_code(browser, people, oauth_app, **pkce))
    assert missing["error"] == "bad_verification_code"
    unasked = exchange(
        people.url, oauth_app, code=_code(browser, people, oauth_app), code_verifier=verifier
    )
    assert unasked["error"] == "bad_verification_code"


def test_a_replayed_code_is_refused_and_revokes_what_it_issued(browser, people, oauth_app):
    code = _code(browser, people, oauth_app, scope="repo")
    token = exchange(people.url, oauth_app, code=code)["access_token"]
    assert _status(people, token) == 200
    again = exchange(people.url, oauth_app, code=code)
    assert again["error"] == "bad_verification_code"
    assert _status(people, token) == 401
    assert token not in people.forge.state.tokens


def test_codes_expire_after_ten_minutes(browser, people, oauth_app):
    code = _code(browser, people, oauth_app)
    store = people.forge.state.oauth
    before = time.time()
    record = list(store.codes.values())[-1]  # the code just issued
    assert not record.redeemed and record.login == "alice"
    assert 590 <= record.expires_at - before <= 600
    record.expires_at = before - 1  # ten minutes later
    assert exchange(people.url, oauth_app, code=code)["error"] == "bad_verification_code"


def test_client_credentials_and_redirect_uri_are_checked(browser, people, oauth_app):
    code = _code(browser, people, oauth_app)
    bad_secret = {**oauth_app, "client_secret": "0" * 40}
    assert exchange(people.url, bad_secret, code=code)["error"] == "incorrect_client_credentials"
    other_app = people.forge.register_oauth_app("Other", [CALLBACK])
    assert exchange(people.url, other_app, code=code)["error"] == "bad_verification_code"

    code = _code(browser, people, oauth_app)
    mismatch = exchange(people.url, oauth_app, code=code, redirect_uri=CALLBACK + "/other")
    assert mismatch["error"] == "redirect_uri_mismatch"

    code = _code(browser, people, oauth_app)
    basic = base64.b64encode(
        f"{oauth_app['client_id']}:{oauth_app['client_secret']}".encode()
    ).decode()
    answer = httpx2.post(
        f"{people.url}/login/oauth/access_token",
        json={"code": code, "redirect_uri": CALLBACK},
        headers={"Authorization": f"Basic {basic}", "Accept": "application/json"},
    )
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.headers["cache-control"] == "no-store"
    assert answer.json()["access_token"].startswith("gho_")
    unknown = exchange(people.url, oauth_app, code="x", grant_type="password")
    assert unknown["error"] == "unsupported_grant_type"


@pytest.fixture
def expiring_app(people):
    return people.forge.register_oauth_app("Sandbox GitHub App", [CALLBACK], expiring=True)


def test_expiring_tokens_refresh_with_rotation(browser, people, expiring_app):
    assert expiring_app["client_id"].startswith("Iv23li")
    verifier, challenge = pkce_pair()
    code = _code(
        browser, people, expiring_app, code_challenge=challenge, code_challenge_method="S256"
    )
    first = exchange(people.url, expiring_app, code=code, code_verifier=verifier)
    assert first["access_token"].startswith("ghu_")
    assert first["refresh_token"].startswith("ghr_")
    assert first["expires_in"] == 28800 and first["refresh_token_expires_in"] == 15897600
    assert first["scope"] == "" and first["token_type"] == "bearer"
    record = people.forge.state.tokens[first["access_token"]]
    assert 28790 <= record.expires_at - time.time() <= 28800
    assert _status(people, first["access_token"]) == 200

    second = exchange(
        people.url, expiring_app, grant_type="refresh_token", refresh_token=first["refresh_token"]
    )
    assert second["access_token"].startswith("ghu_")
    assert second["refresh_token"] != first["refresh_token"]
    assert _status(people, second["access_token"]) == 200
    assert _status(people, first["access_token"]) == 401  # the old access token is gone

    # The spent refresh token again: refused, and the whole sign-in's tokens are revoked.
    replay = exchange(
        people.url, expiring_app, grant_type="refresh_token", refresh_token=first["refresh_token"]
    )
    assert replay["error"] == "bad_refresh_token"
    assert _status(people, second["access_token"]) == 401
    after = exchange(
        people.url, expiring_app, grant_type="refresh_token", refresh_token=second["refresh_token"]
    )
    assert after["error"] == "bad_refresh_token"


def test_refresh_needs_the_right_app_and_an_expiring_app(browser, people, expiring_app, oauth_app):
    first = exchange(people.url, expiring_app, code=_code(browser, people, expiring_app))
    refresh = first["refresh_token"]
    stolen = exchange(people.url, oauth_app, grant_type="refresh_token", refresh_token=refresh)
    assert stolen["error"] == "bad_refresh_token"
    forged = exchange(people.url, expiring_app, grant_type="refresh_token", refresh_token="ghr_x")
    assert forged["error"] == "bad_refresh_token"


def test_an_expired_user_token_gets_401(browser, people):
    app = people.forge.register_oauth_app(
        "Short-lived", [CALLBACK], expiring=True, access_token_ttl_seconds=1
    )
    answer = exchange(people.url, app, code=_code(browser, people, app))
    assert answer["expires_in"] == 1
    token = answer["access_token"]
    deadline = time.monotonic() + 60
    status = _status(people, token)
    while status == 200 and time.monotonic() < deadline:
        status = _status(people, token)  # polled until the second has passed
    assert status == 401
    with api(people.url, token) as client:
        assert client.get("/user").json()["message"] == "Bad credentials"
    renewed = exchange(
        people.url, app, grant_type="refresh_token", refresh_token=answer["refresh_token"]
    )
    assert renewed["access_token"].startswith("ghu_")  # the refresh token outlives it


def test_expire_token_helper_and_admin_route(browser, people, oauth_app):
    token = exchange(people.url, oauth_app, code=_code(browser, people, oauth_app))["access_token"]
    admin = {"Authorization": f"Bearer {people.forge.admin_token}"}
    answer = httpx2.post(
        f"{people.url}/_sandbox/tokens/expire", json={"token": token}, headers=admin
    )
    assert answer.status_code == 200
    assert _status(people, token) == 401


def _app_client(people, app) -> httpx2.Client:
    return httpx2.Client(
        base_url=people.url, auth=(app["client_id"], app["client_secret"]), timeout=30
    )


def test_the_app_checks_and_revokes_its_tokens(browser, people, expiring_app, oauth_app):
    answer = exchange(people.url, expiring_app, code=_code(browser, people, expiring_app))
    token, refresh = answer["access_token"], answer["refresh_token"]
    path = f"/applications/{expiring_app['client_id']}/token"
    with _app_client(people, expiring_app) as app_api:
        checked = app_api.post(path, json={"access_token": token})
        assert checked.status_code == 200
        assert checked.json()["user"]["login"] == "alice"
        assert checked.json()["token_last_eight"] == token[-8:]
        assert app_api.request("DELETE", path, json={}).status_code == 422
        assert app_api.request("DELETE", path, json={"access_token": token}).status_code == 204
        assert app_api.post(path, json={"access_token": token}).status_code == 404
    assert _status(people, token) == 401
    gone = exchange(people.url, expiring_app, grant_type="refresh_token", refresh_token=refresh)
    assert gone["error"] == "bad_refresh_token"  # the refresh token went with it

    other = exchange(people.url, oauth_app, code=_code(browser, people, oauth_app))
    with _app_client(people, expiring_app) as wrong_app:  # not this app's token: untouched
        answer = wrong_app.request("DELETE", path, json={"access_token": other["access_token"]})
        assert answer.status_code == 204
        foreign = f"/applications/{oauth_app['client_id']}/token"
        assert wrong_app.post(foreign, json={"access_token": "x"}).status_code == 404
    assert _status(people, other["access_token"]) == 200
    with httpx2.Client(base_url=people.url, auth=(oauth_app["client_id"], "0" * 40)) as bad_secret:
        assert bad_secret.post(foreign, json={"access_token": "x"}).status_code == 401
    grant = f"/applications/{oauth_app['client_id']}/grant"
    with _app_client(people, oauth_app) as app_api:
        assert (
            app_api.request(
                "DELETE", grant, json={"access_token": other["access_token"]}
            ).status_code
            == 204
        )
    assert _status(people, other["access_token"]) == 401
