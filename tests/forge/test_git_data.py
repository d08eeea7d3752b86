"""The Git Database API: refs (with compare-and-swap), commits, trees and blobs."""

from __future__ import annotations

import base64
import hashlib
from concurrent.futures import ThreadPoolExecutor

import pytest

from sandbox_forge import Forge

REPO = "/repos/octocat/hello"


def blob_sha(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # noqa: S324


def head(api, branch: str = "main") -> str:
    return api.get(f"{REPO}/git/ref/heads/{branch}").json()["object"]["sha"]


def commit_on(api, parent: str, files: dict[str, str | None], message: str = "change") -> str:
    base_tree = api.get(f"{REPO}/git/commits/{parent}").json()["tree"]["sha"]
    entries = [
        {
            "path": p,
            "mode": "100644",
            "type": "blob",
            **({"content": c} if c is not None else {"sha": None}),
        }
        for p, c in files.items()
    ]
    tree = api.post(f"{REPO}/git/trees", json={"base_tree": base_tree, "tree": entries}).json()
    body = {"message": message, "tree": tree["sha"], "parents": [parent]}
    return api.post(f"{REPO}/git/commits", json=body).json()["sha"]


# --- refs ---------------------------------------------------------------------------------


def test_get_ref_and_matching_refs(api):
    ref = api.get(f"{REPO}/git/ref/heads/feature/shout").json()
    assert ref["ref"] == "refs/heads/feature/shout"
    assert ref["object"]["type"] == "commit" and len(ref["object"]["sha"]) == 40
    matching = api.get(f"{REPO}/git/matching-refs/heads/feat").json()
    assert [r["ref"] for r in matching] == ["refs/heads/feature/shout"]
    assert api.get(f"{REPO}/git/matching-refs/heads/zzz").json() == []
    missing = api.get(f"{REPO}/git/ref/heads/nope")
    assert missing.status_code == 404


def test_create_ref_then_duplicate_is_422(api):
    sha = head(api)
    created = api.post(f"{REPO}/git/refs", json={"ref": "refs/heads/new", "sha": sha})
    assert created.status_code == 201
    assert created.json()["object"]["sha"] == sha
    again = api.post(f"{REPO}/git/refs", json={"ref": "refs/heads/new", "sha": sha})
    assert again.status_code == 422
    assert again.json()["message"] == "Reference already exists"


def test_create_ref_validates_name_and_object(api):
    sha = head(api)
    bad_name = api.post(f"{REPO}/git/refs", json={"ref": "heads/x", "sha": sha})
    assert bad_name.status_code == 422
    bad_sha = api.post(f"{REPO}/git/refs", json={"ref": "refs/heads/y", "sha": "f" * 40})
    assert bad_sha.status_code == 422
    assert bad_sha.json()["message"] == "Object does not exist"
    missing = api.post(f"{REPO}/git/refs", json={"sha": sha})
    assert missing.status_code == 422


def test_fast_forward_update_and_non_fast_forward_refusal(api):
    start = head(api)
    child = commit_on(api, start, {"new.txt": "1\n"})
    moved = api.patch(f"{REPO}/git/refs/heads/main", json={"sha": child})
    assert moved.status_code == 200 and moved.json()["object"]["sha"] == child
    sideways = commit_on(api, start, {"other.txt": "2\n"})
    refused = api.patch(f"{REPO}/git/refs/heads/main", json={"sha": sideways})
    assert refused.status_code == 422
    assert refused.json()["message"] == "Update is not a fast forward"
    assert head(api) == child
    forced = api.patch(f"{REPO}/git/refs/heads/main", json={"sha": sideways, "force": True})
    assert forced.status_code == 200 and head(api) == sideways


def test_update_of_missing_ref_is_422(api):
    response = api.patch(f"{REPO}/git/refs/heads/ghost", json={"sha": head(api)})
    assert response.status_code == 422
    assert response.json()["message"] == "Reference does not exist"


def test_delete_ref(api):
    assert api.delete(f"{REPO}/git/refs/heads/feature/shout").status_code == 204
    assert api.get(f"{REPO}/git/ref/heads/feature/shout").status_code == 404
    again = api.delete(f"{REPO}/git/refs/heads/feature/shout")
    assert again.status_code == 422


def test_concurrent_updates_from_the_same_head_exactly_one_wins(world, api):
    start = head(api)
    children = [commit_on(api, start, {f"racer{i}.txt": f"{i}\n"}) for i in range(10)]

    def race(sha: str) -> int:
        with world.client() as client:
            return client.patch(f"{REPO}/git/refs/heads/main", json={"sha": sha}).status_code

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = list(pool.map(race, children))
    assert sorted(statuses) == [200] + [422] * 9
    winner = children[statuses.index(200)]
    assert head(api) == winner


def test_ref_updates_fire_hooks(world, api):
    seen = []
    world.forge.on_ref_update(seen.append)
    start = head(api)
    child = commit_on(api, start, {"hooked.txt": "x\n"})
    api.patch(f"{REPO}/git/refs/heads/main", json={"sha": child})
    api.post(f"{REPO}/git/refs", json={"ref": "refs/heads/hooked", "sha": child})
    api.delete(f"{REPO}/git/refs/heads/hooked")
    assert [(u.ref, u.old, u.new, u.source) for u in seen] == [
        ("refs/heads/main", start, child, "api"),
        ("refs/heads/hooked", None, child, "api"),
        ("refs/heads/hooked", child, None, "api"),
    ]


# --- commits ------------------------------------------------------------------------------


def test_create_commit_with_explicit_author_and_read_it_back(api):
    parent = head(api)
    tree = api.get(f"{REPO}/git/commits/{parent}").json()["tree"]["sha"]
    body = {
        "message": "Exact dates\n\nBody text",
        "tree": tree,
        "parents": [parent],
        "author": {"name": "Mona", "email": "mona@example.com", "date": "2020-01-02T03:04:05Z"},
    }
    created = api.post(f"{REPO}/git/commits", json=body)
    assert created.status_code == 201
    data = api.get(f"{REPO}/git/commits/{created.json()['sha']}").json()
    assert data["author"] == {
        "name": "Mona",
        "email": "mona@example.com",
        "date": "2020-01-02T03:04:05Z",
    }
    assert data["committer"]["name"] == "Mona"  # defaults to the author, as on GitHub
    assert data["message"] == "Exact dates\n\nBody text"
    assert data["parents"][0]["sha"] == parent
    assert data["verification"]["verified"] is False
    assert data["verification"]["reason"] == "unsigned"


def test_create_commit_validation(api):
    parent = head(api)
    tree = api.get(f"{REPO}/git/commits/{parent}").json()["tree"]["sha"]
    no_tree = api.post(f"{REPO}/git/commits", json={"message": "m", "tree": "f" * 40})
    assert no_tree.status_code == 422 and no_tree.json()["message"] == "Tree SHA does not exist"
    bad_parent = api.post(
        f"{REPO}/git/commits", json={"message": "m", "tree": tree, "parents": ["e" * 40]}
    )
    assert bad_parent.status_code == 422
    no_message = api.post(f"{REPO}/git/commits", json={"tree": tree})
    assert no_message.status_code == 422
    assert api.get(f"{REPO}/git/commits/{'a' * 40}").status_code == 404


# --- trees --------------------------------------------------------------------------------


def test_recursive_tree_lists_blobs_and_subtrees(api):
    tree = api.get(f"{REPO}/git/trees/main", params={"recursive": "1"}).json()
    paths = {e["path"]: e for e in tree["tree"]}
    assert tree["truncated"] is False
    assert paths["src/util"]["type"] == "tree"
    readme = paths["README.md"]
    assert readme["type"] == "blob" and readme["size"] == len(b"# hello\n\nHello, world.\n")
    flat = api.get(f"{REPO}/git/trees/main").json()
    assert {e["path"] for e in flat["tree"]} == {"README.md", "docs", "src"}


def test_create_tree_adds_nested_paths_and_deletes(api):
    base = api.get(f"{REPO}/git/commits/{head(api)}").json()["tree"]["sha"]
    body = {
        "base_tree": base,
        "tree": [
            {"path": "deep/er/new.txt", "mode": "100644", "type": "blob", "content": "hi\n"},
            {"path": "src/util", "mode": "040000", "type": "tree", "sha": None},
            {"path": "README.md", "mode": "100644", "type": "blob", "sha": None},
        ],
    }
    created = api.post(f"{REPO}/git/trees", json=body)
    assert created.status_code == 201
    listing = api.get(f"{REPO}/git/trees/{created.json()['sha']}?recursive=1").json()["tree"]
    paths = {e["path"]: e["sha"] for e in listing if e["type"] == "blob"}
    assert paths["deep/er/new.txt"] == blob_sha(b"hi\n")
    assert "README.md" not in paths and "src/util/helpers.py" not in paths
    assert "src/app.py" in paths


def test_create_tree_validation(api):
    bad_path = api.post(f"{REPO}/git/trees", json={"tree": [{"path": "../x", "content": "x"}]})
    assert bad_path.status_code == 422
    bad_sha = api.post(
        f"{REPO}/git/trees",
        json={"tree": [{"path": "x", "mode": "100644", "type": "blob", "sha": "d" * 40}]},
    )
    assert bad_sha.status_code == 422
    assert bad_sha.json()["message"] == f"tree.sha {'d' * 40} is not a valid blob"
    assert api.post(f"{REPO}/git/trees", json={}).status_code == 422


def test_big_tree_is_reported_truncated():
    with Forge(tree_truncate_limit=50) as forge:
        forge.seed_repo("o/big", {f"dir{i % 7}/file{i}.txt": str(i) for i in range(120)})
        token = forge.create_token("o")
        import httpx2

        response = httpx2.get(
            f"{forge.base_url}/repos/o/big/git/trees/main?recursive=1",
            headers={"Authorization": f"token {token}"},
        )
    data = response.json()
    assert data["truncated"] is True
    assert len(data["tree"]) == 50


# --- blobs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "encoding", "raw"),
    [
        ("plain text\n", "utf-8", b"plain text\n"),
        (base64.b64encode(b"\x00\xff").decode(), "base64", b"\x00\xff"),
    ],
)
def test_create_and_read_blobs(api, content, encoding, raw):
    created = api.post(f"{REPO}/git/blobs", json={"content": content, "encoding": encoding})
    assert created.status_code == 201
    sha = created.json()["sha"]
    assert sha == blob_sha(raw)
    data = api.get(f"{REPO}/git/blobs/{sha}").json()
    assert data["encoding"] == "base64" and data["size"] == len(raw)
    assert base64.b64decode(data["content"]) == raw
    raw_response = api.get(
        f"{REPO}/git/blobs/{sha}", headers={"Accept": "application/vnd.github.raw"}
    )
    assert raw_response.content == raw
    assert raw_response.headers["content-type"].startswith("application/vnd.github.raw")


def test_blob_content_is_wrapped_like_githubs(api):
    content = "x" * 200
    sha = api.post(f"{REPO}/git/blobs", json={"content": content}).json()["sha"]
    lines = api.get(f"{REPO}/git/blobs/{sha}").json()["content"].split("\n")
    assert all(len(line) == 60 for line in lines[:-2]) and lines[-1] == ""


def test_bad_blob_requests(api):
    assert (
        api.post(f"{REPO}/git/blobs", json={"content": "@@", "encoding": "base64"}).status_code
        == 422
    )
    assert api.post(f"{REPO}/git/blobs", json={"encoding": "utf-8"}).status_code == 422
    assert api.get(f"{REPO}/git/blobs/{'0' * 40}").status_code == 404
