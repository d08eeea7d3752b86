"""Git smart HTTP with real git: clone, blobless clone with lazy fetch, fetch and push."""

from __future__ import annotations

import base64
import gzip
import os
import subprocess
from pathlib import Path

import httpx2
import pytest


def git_env(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "",
        "GIT_AUTHOR_NAME": "Tester",
        "GIT_AUTHOR_EMAIL": "tester@example.com",
        "GIT_COMMITTER_NAME": "Tester",
        "GIT_COMMITTER_EMAIL": "tester@example.com",
    }


def auth_args(token: str | None) -> list[str]:
    if token is None:
        return []
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return ["-c", f"http.extraHeader=Authorization: Basic {basic}"]


def git(tmp: Path, *args: str, token: str | None = None, cwd: Path | None = None, check=True):
    proc = subprocess.run(
        ["git", *auth_args(token), *args],
        cwd=cwd or tmp,
        env=git_env(tmp),
        capture_output=True,
        text=True,
        timeout=60,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc


def url(world, repo: str) -> str:
    return f"{world.forge.base_url}/{repo}.git"


def missing_objects(repo: Path, tmp: Path) -> int:
    out = git(tmp, "rev-list", "--objects", "--all", "--missing=print", cwd=repo).stdout
    return sum(1 for line in out.splitlines() if line.startswith("?"))


def test_anonymous_clone_of_a_public_repository(world, tmp_path):
    git(tmp_path, "clone", "--quiet", url(world, "octocat/hello"), "hello")
    assert (tmp_path / "hello/src/app.py").read_text().startswith("def greet")
    branches = git(tmp_path, "branch", "-r", cwd=tmp_path / "hello").stdout
    assert "origin/feature/shout" in branches


def test_clone_works_without_the_dot_git_suffix(world, tmp_path):
    git(tmp_path, "clone", "--quiet", f"{world.forge.base_url}/octocat/hello", "plain")
    assert (tmp_path / "plain/README.md").exists()


def test_private_repository_needs_a_token(world, tmp_path):
    denied = git(tmp_path, "clone", url(world, "octocat/secret"), "nope", check=False)
    assert denied.returncode != 0
    response = httpx2.get(
        f"{url(world, 'octocat/secret')}/info/refs", params={"service": "git-upload-pack"}
    )
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Basic realm="GitHub"'
    git(tmp_path, "clone", "--quiet", url(world, "octocat/secret"), "ok", token=world.token)
    assert (tmp_path / "ok/secret.txt").read_text() == "classified\n"


def test_bad_token_and_limited_token(world, tmp_path):
    bad = git(tmp_path, "clone", url(world, "octocat/hello"), "x", token="ghp_bogus", check=False)
    assert bad.returncode != 0  # git got a 401 and, with prompts disabled, gave up
    refused = httpx2.get(
        f"{url(world, 'octocat/hello')}/info/refs",
        params={"service": "git-upload-pack"},
        auth=("x-access-token", "ghp_bogus"),
    )
    assert refused.status_code == 401
    hidden = httpx2.get(
        f"{url(world, 'octocat/secret')}/info/refs",
        params={"service": "git-upload-pack"},
        auth=("x-access-token", world.limited_token),
    )
    assert hidden.status_code == 404


def test_blobless_clone_fetches_blobs_lazily(world, tmp_path):
    repo = tmp_path / "lazy"
    git(
        tmp_path,
        "clone",
        "--quiet",
        "--filter=blob:none",
        "--no-checkout",
        url(world, "octocat/secret"),
        "lazy",
        token=world.token,
    )
    assert missing_objects(repo, tmp_path) == 1  # secret.txt: not fetched yet
    git(tmp_path, "checkout", "--quiet", "main", token=world.token, cwd=repo)
    assert (repo / "secret.txt").read_text() == "classified\n"
    assert missing_objects(repo, tmp_path) == 0


def test_blobless_clone_of_a_public_repo_fetches_other_branches_on_demand(world, tmp_path):
    repo = tmp_path / "lazy"
    git(tmp_path, "clone", "--quiet", "--filter=blob:none", url(world, "octocat/hello"), "lazy")
    before = missing_objects(repo, tmp_path)
    assert before >= 1  # feature/shout's app.py was not needed for the checkout
    shown = git(tmp_path, "show", "origin/feature/shout:src/app.py", cwd=repo).stdout
    assert "HELLO" in shown
    assert missing_objects(repo, tmp_path) == before - 1


def test_push_with_token_updates_the_branch_and_fires_hooks(world, tmp_path):
    seen = []
    world.forge.on_ref_update(seen.append)
    repo = tmp_path / "work"
    git(tmp_path, "clone", "--quiet", url(world, "octocat/hello"), "work")
    (repo / "pushed.txt").write_text("from git push\n")
    git(tmp_path, "add", "pushed.txt", cwd=repo)
    git(tmp_path, "commit", "--quiet", "-m", "Pushed over HTTP", cwd=repo)
    new = git(tmp_path, "rev-parse", "HEAD", cwd=repo).stdout.strip()
    git(
        tmp_path,
        "push",
        "--quiet",
        "origin",
        "main",
        "main:refs/heads/pushed",
        token=world.token,
        cwd=repo,
    )
    with world.client() as api:
        assert api.get("/repos/octocat/hello/git/ref/heads/main").json()["object"]["sha"] == new
        content = api.get("/repos/octocat/hello/contents/pushed.txt").json()
    assert base64.b64decode(content["content"]) == b"from git push\n"
    assert {(u.ref, u.new, u.source) for u in seen} == {
        ("refs/heads/main", new, "push"),
        ("refs/heads/pushed", new, "push"),
    }


def test_push_without_token_or_with_read_only_token_is_refused(world, tmp_path):
    repo = tmp_path / "work"
    git(tmp_path, "clone", "--quiet", url(world, "octocat/hello"), "work")
    (repo / "x.txt").write_text("x\n")
    git(tmp_path, "add", "x.txt", cwd=repo)
    git(tmp_path, "commit", "--quiet", "-m", "x", cwd=repo)
    anonymous = git(tmp_path, "push", "origin", "main", cwd=repo, check=False)
    assert anonymous.returncode != 0
    read_only = git(
        tmp_path, "push", "origin", "main", token=world.read_token, cwd=repo, check=False
    )
    assert read_only.returncode != 0 and "403" in read_only.stderr
    refs = httpx2.get(
        f"{url(world, 'octocat/hello')}/info/refs",
        params={"service": "git-receive-pack"},
        auth=("x-access-token", world.read_token),
    )
    assert refs.status_code == 403


def test_fetch_sees_commits_made_through_the_api(world, tmp_path):
    repo = tmp_path / "work"
    git(tmp_path, "clone", "--quiet", url(world, "octocat/hello"), "work")
    with world.client() as api:
        made = api.put(
            "/repos/octocat/hello/contents/api.txt",
            json={"message": "via API", "content": base64.b64encode(b"api\n").decode()},
        ).json()["commit"]["sha"]
    git(tmp_path, "fetch", "--quiet", "origin", cwd=repo)
    assert git(tmp_path, "rev-parse", "origin/main", cwd=repo).stdout.strip() == made


def test_large_push_streams_through(world, tmp_path):
    repo = tmp_path / "big"
    git(tmp_path, "clone", "--quiet", url(world, "octocat/hello"), "big")
    (repo / "blob.bin").write_bytes(os.urandom(6 * 1024 * 1024))
    git(tmp_path, "add", "blob.bin", cwd=repo)
    git(tmp_path, "commit", "--quiet", "-m", "big", cwd=repo)
    git(
        tmp_path,
        "-c",
        "http.postBuffer=65536",
        "push",
        "--quiet",
        "origin",
        "main",
        token=world.token,
        cwd=repo,
    )
    with world.client() as api:
        data = api.get("/repos/octocat/hello/contents/blob.bin").json()
    assert data["size"] == 6 * 1024 * 1024


def _pkt(line: str) -> bytes:
    return f"{len(line) + 4:04x}{line}".encode()


@pytest.mark.parametrize("gzipped", [False, True])
def test_upload_pack_accepts_gzip_request_bodies(world, gzipped):
    body = _pkt("command=ls-refs\n") + b"0001" + _pkt("ref-prefix refs/heads/\n") + b"0000"
    headers = {
        "Content-Type": "application/x-git-upload-pack-request",
        "Git-Protocol": "version=2",
    }
    if gzipped:
        body = gzip.compress(body)
        headers["Content-Encoding"] = "gzip"
    response = httpx2.post(
        f"{url(world, 'octocat/hello')}/git-upload-pack", content=body, headers=headers
    )
    assert response.status_code == 200
    assert b"refs/heads/main" in response.content
    assert b"refs/heads/feature/shout" in response.content


def test_first_push_to_an_empty_repository_sets_the_default_branch(world, tmp_path):
    world.forge.seed_repo("octocat/blank", {}, default_branch="main")
    repo = tmp_path / "blank"
    repo.mkdir()
    git(tmp_path, "init", "--quiet", "-b", "trunk", cwd=repo)
    (repo / "a.txt").write_text("a\n")
    git(tmp_path, "add", "a.txt", cwd=repo)
    git(tmp_path, "commit", "--quiet", "-m", "first", cwd=repo)
    git(
        tmp_path,
        "push",
        "--quiet",
        url(world, "octocat/blank"),
        "trunk",
        token=world.token,
        cwd=repo,
    )
    with world.client() as api:
        assert api.get("/repos/octocat/blank").json()["default_branch"] == "trunk"
