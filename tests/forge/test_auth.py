"""Authentication and access: bad tokens, anonymous reads, read-only and repo-limited tokens."""

from __future__ import annotations

import base64


def test_unknown_token_gets_githubs_bad_credentials_body(world):
    with world.client("ghp_notarealtoken000000000000000000000") as client:
        response = client.get("/user")
    assert response.status_code == 401
    assert response.json() == {
        "message": "Bad credentials",
        "documentation_url": "https://docs.github.com/rest",
        "status": "401",
    }


def test_bearer_and_basic_schemes_are_accepted(world):
    with world.client(anonymous=True, headers={"Authorization": f"Bearer {world.token}"}) as client:
        assert client.get("/user").json()["login"] == "octocat"
    basic = base64.b64encode(f"x-access-token:{world.token}".encode()).decode()
    with world.client(anonymous=True, headers={"Authorization": f"Basic {basic}"}) as client:
        assert client.get("/user").json()["login"] == "octocat"


def test_token_prefixes_follow_githubs_kinds(forge):
    assert forge.create_token(kind="classic").startswith("ghp_")
    assert forge.create_token(kind="fine_grained").startswith("github_pat_")
    assert forge.create_token(kind="oauth").startswith("gho_")


def test_anonymous_reads_public_but_not_private_repos(world):
    with world.client(anonymous=True) as anon:
        public = anon.get("/repos/octocat/hello")
        private = anon.get("/repos/octocat/secret")
        me = anon.get("/user")
    assert public.status_code == 200
    assert "permissions" not in public.json()
    assert public.headers["x-ratelimit-limit"] == "60"
    assert private.status_code == 404
    assert private.json()["message"] == "Not Found"
    assert me.status_code == 401
    assert me.json()["message"] == "Requires authentication"


def test_anonymous_write_requires_authentication(world):
    with world.client(anonymous=True) as anon:
        response = anon.post(
            "/repos/octocat/hello/git/blobs", json={"content": "x", "encoding": "utf-8"}
        )
    assert response.status_code == 401


def test_read_only_token_reads_but_cannot_write(world):
    with world.client(world.read_token) as client:
        assert client.get("/repos/octocat/secret").status_code == 200
        repo = client.get("/repos/octocat/hello").json()
        write = client.post("/repos/octocat/hello/git/blobs", json={"content": "x"})
    assert repo["permissions"]["push"] is False and repo["permissions"]["pull"] is True
    assert write.status_code == 403
    assert write.json()["message"] == "Resource not accessible by personal access token"


def test_repo_limited_token_hides_other_private_repos(world):
    with world.client(world.limited_token) as client:
        assert client.get("/repos/octocat/hello").status_code == 200
        hidden = client.get("/repos/octocat/secret")
        listed = [r["full_name"] for r in client.get("/user/repos").json()]
    assert hidden.status_code == 404
    assert listed == ["octocat/hello"]


def test_repo_limited_token_cannot_write_public_repo_outside_its_list(world):
    world.forge.seed_repo("octocat/other", {"a.txt": "a\n"})
    with world.client(world.limited_token) as client:
        assert client.get("/repos/octocat/other").status_code == 200  # public: readable
        write = client.post("/repos/octocat/other/git/blobs", json={"content": "x"})
    assert write.status_code == 403


def test_classic_tokens_report_oauth_scopes_fine_grained_do_not(world):
    with world.client() as classic, world.client(world.read_token) as fine:
        scopes = classic.get("/user").headers.get("x-oauth-scopes")
        none = fine.get("/user").headers.get("x-oauth-scopes")
    assert scopes is not None and "repo" in scopes
    assert none is None


def test_authorization_header_never_reaches_the_request_log(world, api):
    api.get("/user")
    entries = world.forge.requests()
    assert entries, "request log is empty"
    assert world.token not in repr(entries)
