"""Commit history, single commits with files and stats, diffs, and comparisons."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from sandbox_forge import Forge

from .worlds import World, make_world

REPO = "/repos/octocat/hello"


@pytest.fixture(scope="module")
def history() -> Iterator[tuple[World, list[str]]]:
    """Read-only tests share one forge: hello gets five more commits on main."""
    with Forge(record_responses=True) as forge:
        world = make_world(forge)
        shas = []
        with world.client() as api:
            for i in range(5):
                path = "docs/guide.md" if i % 2 == 0 else f"notes/n{i}.txt"
                current = api.get(f"{REPO}/contents/{path}")
                body = {
                    "message": f"Change {i}",
                    "content": base64.b64encode(f"version {i}\n".encode()).decode(),
                }
                if current.status_code == 200:
                    body["sha"] = current.json()["sha"]
                shas.append(api.put(f"{REPO}/contents/{path}", json=body).json()["commit"]["sha"])
        yield world, shas


@pytest.fixture
def api(history):
    with history[0].client() as client:
        yield client


def test_list_commits_newest_first_with_pagination(history, api):
    _, shas = history
    page = api.get(f"{REPO}/commits", params={"per_page": 2})
    assert [c["sha"] for c in page.json()] == [shas[4], shas[3]]
    assert 'rel="last"' in page.headers["link"] and "page=3" in page.headers["link"]
    last = api.get(f"{REPO}/commits", params={"per_page": 2, "page": 3}).json()
    assert len(last) == 2 and last[-1]["commit"]["message"] == "Initial commit"
    assert page.json()[0]["commit"]["message"] == "Change 4"


def test_list_commits_by_path_and_branch(history, api):
    _, shas = history
    by_path = api.get(f"{REPO}/commits", params={"path": "docs/guide.md"}).json()
    assert [c["commit"]["message"] for c in by_path] == [
        "Change 4",
        "Change 2",
        "Change 0",
        "Initial commit",
    ]
    branch = api.get(f"{REPO}/commits", params={"sha": "feature/shout"}).json()
    assert branch[0]["commit"]["message"] == "Changes on feature/shout"
    assert api.get(f"{REPO}/commits", params={"sha": "nope"}).status_code == 404


def test_commit_author_is_linked_to_the_user(history, api):
    commit = api.get(f"{REPO}/commits").json()[0]
    assert commit["author"]["login"] == "octocat"
    assert commit["commit"]["author"]["email"] == "octocat@users.noreply.sandbox"


def test_single_commit_has_files_stats_and_patch(history, api):
    _, shas = history
    data = api.get(f"{REPO}/commits/{shas[4]}").json()
    (changed,) = data["files"]
    assert changed["filename"] == "docs/guide.md" and changed["status"] == "modified"
    assert changed["additions"] == 1 and changed["deletions"] == 1
    assert changed["patch"].startswith("@@ -1 +1 @@")
    assert data["stats"] == {"total": 2, "additions": 1, "deletions": 1}
    added = api.get(f"{REPO}/commits/{shas[1]}").json()["files"][0]
    assert added["status"] == "added" and added["filename"] == "notes/n1.txt"


def test_commit_by_branch_name_and_bad_ref(history, api):
    _, shas = history
    assert api.get(f"{REPO}/commits/main").json()["sha"] == shas[4]
    assert api.get(f"{REPO}/commits/feature/shout").status_code == 200
    bad = api.get(f"{REPO}/commits/not-a-ref")
    assert bad.status_code == 422
    assert bad.json()["message"] == "No commit found for SHA: not-a-ref"


def test_commit_diff_patch_and_sha_media_types(history, api):
    _, shas = history
    diff = api.get(f"{REPO}/commits/{shas[4]}", headers={"Accept": "application/vnd.github.diff"})
    assert diff.headers["content-type"].startswith("application/vnd.github.diff")
    assert diff.text.startswith("diff --git a/docs/guide.md b/docs/guide.md")
    assert "-version 2\n+version 4" in diff.text
    patch = api.get(f"{REPO}/commits/{shas[4]}", headers={"Accept": "application/vnd.github.patch"})
    assert patch.text.startswith("From ") and "Subject: [PATCH] Change 4" in patch.text
    sha = api.get(f"{REPO}/commits/main", headers={"Accept": "application/vnd.github.sha"})
    assert sha.text == shas[4]


def test_compare_ahead_behind_and_diverged(history, api):
    _, shas = history
    ahead = api.get(f"{REPO}/compare/{shas[1]}...{shas[4]}").json()
    assert ahead["status"] == "ahead" and ahead["ahead_by"] == 3 and ahead["behind_by"] == 0
    assert [c["sha"] for c in ahead["commits"]] == shas[2:]
    assert {f["filename"] for f in ahead["files"]} == {"docs/guide.md", "notes/n3.txt"}
    assert ahead["merge_base_commit"]["sha"] == shas[1]
    behind = api.get(f"{REPO}/compare/{shas[4]}...{shas[1]}").json()
    assert behind["status"] == "behind" and behind["behind_by"] == 3
    diverged = api.get(f"{REPO}/compare/main...feature/shout").json()
    assert diverged["status"] == "diverged"
    assert (diverged["ahead_by"], diverged["behind_by"]) == (1, 5)
    assert [f["filename"] for f in diverged["files"]] == ["src/app.py"]
    same = api.get(f"{REPO}/compare/main...main").json()
    assert same["status"] == "identical" and same["files"] == []


def test_compare_diff_and_errors(history, api):
    diff = api.get(
        f"{REPO}/compare/main...feature/shout", headers={"Accept": "application/vnd.github.diff"}
    )
    assert diff.text.startswith("diff --git a/src/app.py b/src/app.py")
    assert api.get(f"{REPO}/compare/main...nope").status_code == 404
    assert api.get(f"{REPO}/compare/main").status_code == 404


def test_compare_paginates_commits_when_asked(history, api):
    _, shas = history
    page = api.get(f"{REPO}/compare/{shas[0]}...{shas[4]}", params={"per_page": 2})
    assert [c["sha"] for c in page.json()["commits"]] == shas[1:3]
    assert 'rel="next"' in page.headers["link"]
