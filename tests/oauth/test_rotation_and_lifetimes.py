"""Token lifetimes, refresh rotation and replay, by the RFCs: replaying a spent refresh
token (RFC 9700 §4.14.2) or authorization code (RFC 6749 §4.1.2) ends the grant it came
from, on any replica; access tokens live an hour (a setting) whatever GitHub's token
lives, with refresh for the rest; GitHub is asked to refresh its own token only near its
end; a token without `exp` is refused. Evidence of revocation comes from the forge."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from joserfc import jwt

from tests.conftest import settled_requests
from tests.oauth.flow import (
    PASSWORDS,
    github_revocations,
    manual_code,
    mcp_status,
    refresh,
    signed_in_tokens,
    token_request,
)
from tests.oauth.signin import CLIENT_REDIRECT


@pytest.fixture(scope="module")
def world(forge):
    for login, password in PASSWORDS.items():
        forge.add_user(login, password=password)
    return forge


# -- rotation and replay -------------------------------------------------------------------


async def test_replaying_a_used_refresh_token_ends_the_whole_grant(world, oauth_server):
    server = oauth_server()
    base = server.base_url
    client_id, first = await signed_in_tokens(server, "alice")
    rotated = refresh(base, client_id, first["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    second = rotated.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert mcp_status(base, second["access_token"]) == 200
    world.clear_requests()
    # an attacker (or a confused client) replays the spent refresh token
    replay = refresh(base, client_id, first["refresh_token"])
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    # the whole family is gone: the current access and refresh tokens, and GitHub's token
    assert github_revocations(world) == [204]
    assert mcp_status(base, second["access_token"]) == 401
    assert mcp_status(base, first["access_token"]) == 401
    after = refresh(base, client_id, second["refresh_token"])
    assert after.status_code == 400 and after.json()["error"] == "invalid_grant"


async def test_replaying_an_authorization_code_revokes_what_it_issued(world, oauth_server):
    server = oauth_server()
    base = server.base_url
    client_id, code, verifier = await manual_code(server, "alice")
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CLIENT_REDIRECT,
        "client_id": client_id,
        "code_verifier": verifier,
    }
    first = token_request(base, **form)
    assert first.status_code == 200, first.text
    tokens = first.json()
    assert mcp_status(base, tokens["access_token"]) == 200
    world.clear_requests()
    replay = token_request(base, **form)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert github_revocations(world) == [204]
    assert mcp_status(base, tokens["access_token"]) == 401
    assert refresh(base, client_id, tokens["refresh_token"]).status_code == 400


# -- lifetimes ---------------------------------------------------------------------------


def _claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


@pytest.mark.parametrize("expiring", [True, False], ids=["github-app", "oauth-app"])
async def test_access_tokens_live_an_hour_and_refresh_carries_the_rest(
    world, oauth_server, expiring
):
    """A GitHub App's user token lives 8 h with a refresh token; an OAuth App's never
    expires and has none. Either way the client gets a 1-hour access token and a refresh
    token that rotates."""
    server = oauth_server(expiring_app=expiring)
    base = server.base_url
    client_id, tokens = await signed_in_tokens(server, "alice")
    assert tokens["expires_in"] == 3600
    claims = _claims(tokens["access_token"])
    assert claims["exp"] - claims["iat"] == 3600
    assert tokens["refresh_token"]
    rotated = refresh(base, client_id, tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    assert rotated.headers["cache-control"] == "no-store"
    again = rotated.json()
    assert again["expires_in"] == 3600 and again["refresh_token"] != tokens["refresh_token"]
    assert mcp_status(base, again["access_token"]) == 200


@pytest.mark.parametrize(("github_ttl", "asks_github"), [(28800, False), (600, True)])
async def test_github_is_asked_to_refresh_only_when_its_token_nears_its_end(
    world, oauth_server, github_ttl, asks_github
):
    """Every refresh of GitHub's token ends the previous one under calls in flight: an
    hourly refresh of ours re-issues the same GitHub token while it has time left."""
    server = oauth_server(github_token_ttl=github_ttl)
    client_id, tokens = await signed_in_tokens(server, "alice")
    world.clear_requests()
    rotated = refresh(server.base_url, client_id, tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    github_refreshes = [
        r for r in settled_requests(world) if r["path"] == "/login/oauth/access_token"
    ]
    assert len(github_refreshes) == (1 if asks_github else 0), github_refreshes
    assert mcp_status(server.base_url, rotated.json()["access_token"]) == 200


async def test_the_access_token_lifetime_is_a_setting(world, oauth_server):
    server = oauth_server(oauth_access_token_ttl_seconds=600)
    _, tokens = await signed_in_tokens(server, "alice")
    assert tokens["expires_in"] == 600
    claims = _claims(tokens["access_token"])
    assert claims["exp"] - claims["iat"] == 600


async def test_a_signed_token_without_exp_is_refused(world, oauth_server):
    server = oauth_server()
    base = server.base_url
    _, tokens = await signed_in_tokens(server, "alice")
    sign_in = server.app.state.sign_in
    claims = sign_in.jwt_issuer.verify_token(tokens["access_token"])
    forever = dict(claims)
    del forever["exp"]
    key = sign_in.jwt_issuer._jwt_key
    no_exp = jwt.encode({"alg": "HS256"}, forever, key)
    same = jwt.encode({"alg": "HS256"}, claims, key)
    assert mcp_status(base, same) == 200  # the control: re-signed unchanged, accepted
    assert mcp_status(base, no_exp) == 401


# -- replicas --------------------------------------------------------------------------------


@pytest.fixture
def redis_url(tmp_path):
    """A real redis-server (requested before oauth_server, so it outlives the servers)."""
    from tests.replicas.cluster import Redis

    redis = Redis(tmp_path / "redis")
    yield redis.url
    redis.stop()


async def test_replay_is_caught_across_replicas_sharing_redis(world, redis_url, oauth_server):
    """Two replicas of one public URL share the grant store in a real redis-server: a
    refresh on B spends the token, its replay on A ends the grant everywhere."""
    shared = {"state_url": redis_url, "oauth_signing_key": "replicas-share-this-key-0123"}
    a = oauth_server(**shared)
    b = oauth_server(
        **shared,
        public_url=a.base_url,
        oauth_client_id=a.client_id,
        oauth_client_secret=a.client_secret,
    )
    client_id, first = await signed_in_tokens(a, "alice")
    rotated = refresh(b.base_url, client_id, first["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    second = rotated.json()
    assert mcp_status(b.base_url, second["access_token"]) == 200
    world.clear_requests()
    replay = refresh(a.base_url, client_id, first["refresh_token"])
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert github_revocations(world) == [204]
    for replica in (a, b):
        assert mcp_status(replica.base_url, second["access_token"]) == 401
        assert refresh(replica.base_url, client_id, second["refresh_token"]).status_code == 400
