"""Done-when: with GITHUB_MCP_AUTH=oauth on the sandbox forge, the protected resource
metadata names this server's resource and its authorization server, and an
unauthenticated /mcp gets 401 with `resource_metadata`. Plus the start-up rules."""

from __future__ import annotations

import httpx2 as httpx
import pytest

from github_mcp.config import Settings
from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.server import build_http_app

DUMMY = {"oauth_client_id": "Iv1.discovery", "oauth_client_secret": "not-used-here"}


def test_protected_resource_metadata_and_401(oauth_server):
    server = oauth_server(**DUMMY)
    base = server.base_url
    prm_path = "/.well-known/oauth-protected-resource"
    for path in (prm_path, prm_path + "/mcp"):
        response = httpx.get(base + path)
        assert response.status_code == 200, (path, response.text)
        prm = response.json()
        assert prm["resource"] == base + "/mcp"
        assert [s.rstrip("/") for s in prm["authorization_servers"]] == [base]

    unauthenticated = httpx.post(
        base + "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert unauthenticated.status_code == 401
    challenge = unauthenticated.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge

    metadata = httpx.get(base + "/.well-known/oauth-authorization-server").json()
    assert metadata["issuer"].rstrip("/") == base
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["registration_endpoint"] == base + "/register"
    assert metadata["revocation_endpoint"] == base + "/revoke"
    assert metadata["client_id_metadata_document_supported"] is True
    assert "refresh_token" in metadata["grant_types_supported"]


def test_plain_bearer_mode_has_no_oauth_metadata(make_runtime):
    rt = make_runtime(auth_tokens="a-static-bearer-token-0123456789")
    app = build_http_app(rt, host="127.0.0.1", port=8123)
    paths = {getattr(route, "path", "") for route in app.router.routes}
    assert not any(p.startswith("/.well-known/oauth") for p in paths)


@pytest.mark.parametrize(
    ("overrides", "host", "message"),
    [
        ({"auth_mode": "none"}, "0.0.0.0", "loopback"),
        ({"auth_mode": "oauth", **DUMMY}, "10.1.2.3", "GITHUB_MCP_PUBLIC_URL"),
        ({"auth_mode": "oauth"}, "127.0.0.1", "GITHUB_OAUTH_CLIENT_ID"),
        (
            {"auth_mode": "oauth", "public_url": "http://mcp.example.com", **DUMMY},
            "10.1.2.3",
            "https",
        ),
    ],
)
def test_start_up_refuses_what_cannot_work(make_settings, tmp_path, overrides, host, message):
    settings: Settings = make_settings(state_dir=tmp_path / "state", **overrides)
    rt = Runtime.create(settings)
    with pytest.raises(SystemExit) as refused:
        build_http_app(rt, host=host, port=8000)
    assert message in str(refused.value)


def test_public_url_names_resource_and_callback(make_settings, tmp_path):
    settings = make_settings(
        auth_mode="oauth",
        public_url="https://mcp.example.com/",
        state_dir=tmp_path / "state",
        **DUMMY,
    )
    app = build_http_app(Runtime.create(settings), host="10.1.2.3", port=8000)
    sign_in = app.state.sign_in
    assert str(sign_in.base_url).rstrip("/") == "https://mcp.example.com"
    assert str(sign_in._resource_url) == "https://mcp.example.com/mcp"
    authorize = settings.web_base_url + "/login/oauth/authorize"
    assert sign_in._upstream_authorization_endpoint == authorize
    # the generated signing key is kept private under the state dir
    key_file = tmp_path / "state" / "oauth-signing-key"
    assert key_file.stat().st_mode & 0o777 == 0o600
