"""GitHub App authentication: RS256 JWT -> installation token, expiry, restrictions."""

from __future__ import annotations

import calendar
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

APP_ID = 4242
INSTALLATION_ID = 77


@pytest.fixture(scope="module")
def keypair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


def app_jwt(private: str, iss=APP_ID, iat_offset=-60, exp_offset=540) -> str:
    now = int(time.time())
    claims = {"iat": now + iat_offset, "exp": now + exp_offset, "iss": str(iss)}
    return jwt.encode(claims, private, algorithm="RS256")


@pytest.fixture
def app_world(world, keypair):
    world.forge.register_app(
        APP_ID, keypair[1], INSTALLATION_ID, repos=["octocat/hello"], token_ttl_seconds=3600
    )
    return world


def exchange(world, token: str, installation_id: int = INSTALLATION_ID, **body):
    with world.client(anonymous=True, headers={"Authorization": f"Bearer {token}"}) as client:
        return client.post(f"/app/installations/{installation_id}/access_tokens", json=body)


def test_jwt_exchanges_for_an_installation_token(app_world, keypair):
    before = time.time()
    response = exchange(app_world, app_jwt(keypair[0]))
    assert response.status_code == 201
    data = response.json()
    assert data["token"].startswith("ghs_")
    assert data["repository_selection"] == "selected"
    assert [r["full_name"] for r in data["repositories"]] == ["octocat/hello"]
    assert data["permissions"]["contents"] == "write"
    expires = calendar.timegm(time.strptime(data["expires_at"], "%Y-%m-%dT%H:%M:%SZ"))
    assert before + 3590 <= expires <= time.time() + 3610


def test_installation_token_is_limited_to_its_repositories(app_world, keypair):
    token = exchange(app_world, app_jwt(keypair[0])).json()["token"]
    with app_world.client(token) as client:
        assert client.get("/repos/octocat/hello").status_code == 200
        assert client.get("/repos/octocat/secret").status_code == 404
        me = client.get("/user")
    assert me.status_code == 403
    assert me.json()["message"] == "Resource not accessible by integration"


def test_get_app_with_jwt(app_world, keypair):
    with app_world.client(
        anonymous=True, headers={"Authorization": f"Bearer {app_jwt(keypair[0])}"}
    ) as c:
        response = c.get("/app")
    assert response.status_code == 200
    assert response.json()["id"] == APP_ID


def test_get_app_needs_a_jwt(app_world):
    with app_world.client() as client:
        response = client.get("/app")
    assert response.status_code == 401
    assert response.json()["message"] == "A JSON web token could not be decoded"


def test_jwt_expiring_more_than_ten_minutes_ahead_is_refused(app_world, keypair):
    response = exchange(app_world, app_jwt(keypair[0], iat_offset=0, exp_offset=660))
    assert response.status_code == 401
    assert "too far in the future" in response.json()["message"]


def test_expired_jwt_is_refused(app_world, keypair):
    response = exchange(app_world, app_jwt(keypair[0], iat_offset=-700, exp_offset=-100))
    assert response.status_code == 401
    assert "'Expiration time' claim ('exp')" in response.json()["message"]


def test_jwt_signed_by_another_key_is_refused(app_world):
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = other.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    response = exchange(app_world, app_jwt(pem))
    assert response.status_code == 401


def test_unknown_installation_is_404(app_world, keypair):
    assert exchange(app_world, app_jwt(keypair[0]), installation_id=999).status_code == 404


def test_installation_token_expires(world, keypair):
    world.forge.register_app(APP_ID, keypair[1], INSTALLATION_ID, token_ttl_seconds=60)
    token = exchange(world, app_jwt(keypair[0])).json()["token"]
    record = world.forge.state.tokens[token]
    assert record.expires_at is not None and 0 < record.expires_at - time.time() <= 60
    with world.client(token) as client:
        assert client.get("/repos/octocat/hello").status_code == 200
        record.expires_at = time.time() - 1  # its time is up (no sleeping until it is)
        expired = client.get("/repos/octocat/hello")
    assert expired.status_code == 401
    assert expired.json()["message"] == "Bad credentials"


def test_token_can_be_narrowed_to_named_repositories(world, keypair):
    world.forge.register_app(APP_ID, keypair[1], INSTALLATION_ID, account="octocat")
    response = exchange(world, app_jwt(keypair[0]), repositories=["hello"])
    assert response.status_code == 201
    assert response.json()["repository_selection"] == "selected"
    refused = exchange(world, app_jwt(keypair[0]), repositories=["nope"])
    assert refused.status_code == 422
