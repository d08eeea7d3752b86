"""Odd and hostile input gets a GitHub-style 4xx, never a 500 or a crash."""

from __future__ import annotations

import pytest

REPO = "/repos/octocat/hello"

ODD_GETS = [
    f"{REPO}/commits?sha=--all",
    f"{REPO}/commits?since=--output=/tmp/x&per_page=abc&page=-3",
    f"{REPO}/commits?path=--help",
    f"{REPO}/commits/--all",
    f"{REPO}/commits/HEAD~999",
    f"{REPO}/compare/...",
    f"{REPO}/compare/main...--all",
    f"{REPO}/compare/someone:main...main",
    f"{REPO}/contents/../etc/passwd",
    f"{REPO}/contents/src?ref=--all",
    f"{REPO}/contents/src?ref=main:src",
    f"{REPO}/git/ref/",
    f"{REPO}/git/ref/heads/../../config",
    f"{REPO}/git/trees/--all",
    f"{REPO}/git/trees/main:nope",
    f"{REPO}/git/blobs/zzz",
    f"{REPO}/git/commits/HEAD",
    f"{REPO}/branches/--all",
    "/search/code?q=%22unbalanced",
    "/search/code?q=needle%20path:--all",
    "/search/commits?q=--all",
    "/search/repositories?q=",
    "/users/--all",
    "/repos/octocat/hello.git",
    "/octocat/nope.git/info/refs?service=git-upload-pack",
    "/octocat/hello.git/info/refs?service=evil",
    "/octocat/hello/raw/main/../../x",
]


@pytest.mark.parametrize("path", ODD_GETS)
def test_odd_reads_never_fail_with_a_server_error(api, path):
    response = api.get(path)
    assert response.status_code < 500, response.text


ODD_WRITES = [
    ("POST", f"{REPO}/git/refs", {"ref": "refs/heads/a..b", "sha": "0" * 40}),
    ("POST", f"{REPO}/git/refs", {"ref": 5, "sha": []}),
    ("PATCH", f"{REPO}/git/refs/heads/main", {"sha": "main", "force": "yes"}),
    ("PATCH", f"{REPO}/git/refs/heads/main", {"sha": None}),
    ("POST", f"{REPO}/git/trees", {"tree": "not a list"}),
    ("POST", f"{REPO}/git/trees", {"tree": [1, 2]}),
    ("POST", f"{REPO}/git/trees", {"tree": [{"path": "a", "mode": 100644, "content": "x"}]}),
    ("POST", f"{REPO}/git/trees", {"tree": [{"path": ".git/config", "content": "x"}]}),
    ("POST", f"{REPO}/git/trees", {"base_tree": "--all", "tree": []}),
    ("POST", f"{REPO}/git/commits", {"message": 1, "tree": "x"}),
    ("POST", f"{REPO}/git/commits", {"message": "m", "tree": "x", "parents": "nope"}),
    ("POST", f"{REPO}/git/blobs", {"content": "x", "encoding": "rot13"}),
    ("PUT", f"{REPO}/contents/a.txt", {"message": "m", "content": "eA==", "branch": 7}),
    ("PUT", f"{REPO}/contents/a.txt", {"message": "m", "content": "eA==", "author": "me"}),
    ("PUT", f"{REPO}/contents/a.txt", {"message": "m", "content": "eA==", "author": {}}),
    (
        "PUT",
        f"{REPO}/contents/a.txt",
        {"message": "m", "content": "eA==", "committer": {"name": "n", "email": "e", "date": 5}},
    ),
    ("PUT", f"{REPO}/contents/src", {"message": "m", "content": "eA==", "sha": "x"}),
    ("DELETE", f"{REPO}/contents/src", {"message": "m", "sha": "x"}),
    ("POST", "/app/installations/abc/access_tokens", {}),
]


@pytest.mark.parametrize(("method", "path", "body"), ODD_WRITES)
def test_odd_writes_get_a_client_error(api, method, path, body):
    response = api.request(method, path, json=body)
    assert 400 <= response.status_code < 500, response.text
    assert "message" in response.json()


def test_body_that_is_not_an_object_is_a_400(api):
    response = api.post(f"{REPO}/git/blobs", json=["content"])
    assert response.status_code == 400
