"""The Contents API: files, directories, raw bytes, and the sha precondition on writes."""

from __future__ import annotations

import base64

import httpx2

REPO = "/repos/octocat/hello"


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def test_file_has_base64_content_and_links(api):
    data = api.get(f"{REPO}/contents/src/app.py").json()
    assert data["type"] == "file" and data["encoding"] == "base64"
    assert base64.b64decode(data["content"]) == b"def greet(name):\n    return f'hello {name}'\n"
    assert data["path"] == "src/app.py" and data["name"] == "app.py"
    assert data["download_url"].endswith("/octocat/hello/raw/main/src/app.py")
    assert data["_links"]["self"] == data["url"]


def test_ref_selects_the_version(api):
    shout = api.get(f"{REPO}/contents/src/app.py", params={"ref": "feature/shout"}).json()
    assert b"HELLO" in base64.b64decode(shout["content"])
    missing = api.get(f"{REPO}/contents/src/app.py", params={"ref": "no-such-ref"})
    assert missing.status_code == 404


def test_directory_is_an_array(api):
    listing = api.get(f"{REPO}/contents/src").json()
    assert [(e["name"], e["type"]) for e in listing] == [("app.py", "file"), ("util", "dir")]
    assert listing[1]["download_url"] is None
    root = api.get(f"{REPO}/contents").json()
    assert {e["path"] for e in root} == {"README.md", "docs", "src"}


def test_object_media_type_wraps_directories(api):
    response = api.get(f"{REPO}/contents/src", headers={"Accept": "application/vnd.github.object"})
    assert response.headers["content-type"].startswith("application/vnd.github.object")
    data = response.json()
    assert data["type"] == "dir" and data["path"] == "src"
    assert [e["name"] for e in data["entries"]] == ["app.py", "util"]


def test_raw_media_type_returns_the_bytes(world, api):
    world.forge.seed_repo("octocat/bin", {"img.bin": b"\x89PNG\x00\xff" * 10})
    raw = api.get(
        "/repos/octocat/bin/contents/img.bin", headers={"Accept": "application/vnd.github.raw+json"}
    )
    assert raw.status_code == 200
    assert raw.content == b"\x89PNG\x00\xff" * 10
    revalidated = api.get(
        "/repos/octocat/bin/contents/img.bin",
        headers={"Accept": "application/vnd.github.raw", "If-None-Match": raw.headers["etag"]},
    )
    assert revalidated.status_code == 304


def test_download_url_serves_the_file(world, api):
    url = api.get(f"{REPO}/contents/src/util/helpers.py").json()["download_url"]
    response = httpx2.get(url)
    assert response.status_code == 200
    assert response.content == b"HELPER = 'needle in a haystack'\n"
    branch_url = api.get(f"{REPO}/contents/src/app.py", params={"ref": "feature/shout"}).json()[
        "download_url"
    ]
    assert b"HELLO" in httpx2.get(branch_url).content


def test_large_files_have_no_inline_content(world, api):
    world.forge.seed_repo("octocat/large", {"big.txt": "x" * (1024 * 1024 + 10)})
    data = api.get("/repos/octocat/large/contents/big.txt").json()
    assert data["encoding"] == "none" and data["content"] == ""
    assert data["size"] == 1024 * 1024 + 10
    raw = api.get(
        "/repos/octocat/large/contents/big.txt", headers={"Accept": "application/vnd.github.raw"}
    )
    assert len(raw.content) == 1024 * 1024 + 10


def test_symlink_to_a_file_serves_the_target_and_dangling_shows_the_link(world, api):
    world.forge.seed_repo(
        "octocat/links",
        {"real.txt": "real\n", "link.txt": ("120000", "real.txt"), "dangling": ("120000", "../x")},
    )
    followed = api.get("/repos/octocat/links/contents/link.txt").json()
    assert followed["type"] == "file" and followed["path"] == "real.txt"
    dangling = api.get("/repos/octocat/links/contents/dangling").json()
    assert dangling["type"] == "symlink" and dangling["target"] == "../x"


def test_missing_paths_and_empty_repos(world, api):
    assert api.get(f"{REPO}/contents/nope.txt").status_code == 404
    world.forge.seed_repo("octocat/empty", {})
    empty = api.get("/repos/octocat/empty/contents/x")
    assert empty.status_code == 404
    assert empty.json()["message"] == "This repository is empty."


def test_create_then_update_with_sha(api):
    created = api.put(
        f"{REPO}/contents/notes/new.md", json={"message": "Add notes", "content": b64("one\n")}
    )
    assert created.status_code == 201
    first = created.json()
    assert first["content"]["path"] == "notes/new.md"
    assert first["commit"]["message"] == "Add notes"
    updated = api.put(
        f"{REPO}/contents/notes/new.md",
        json={"message": "Edit notes", "content": b64("two\n"), "sha": first["content"]["sha"]},
    )
    assert updated.status_code == 200
    assert updated.json()["commit"]["parents"][0]["sha"] == first["commit"]["sha"]
    now = api.get(f"{REPO}/contents/notes/new.md").json()
    assert base64.b64decode(now["content"]) == b"two\n"


def test_update_without_sha_is_422_and_with_stale_sha_is_409(api):
    missing = api.put(f"{REPO}/contents/README.md", json={"message": "m", "content": b64("x")})
    assert missing.status_code == 422
    assert missing.json()["message"] == 'Invalid request.\n\n"sha" wasn\'t supplied.'
    stale = api.put(
        f"{REPO}/contents/README.md",
        json={"message": "m", "content": b64("x"), "sha": "0" * 40},
    )
    assert stale.status_code == 409
    assert stale.json()["message"] == f"README.md does not match {'0' * 40}"


def test_write_to_a_branch_and_to_a_missing_branch(api):
    shout = api.get(f"{REPO}/contents/src/app.py", params={"ref": "feature/shout"}).json()
    ok = api.put(
        f"{REPO}/contents/src/app.py",
        json={
            "message": "m",
            "content": b64("x\n"),
            "sha": shout["sha"],
            "branch": "feature/shout",
        },
    )
    assert ok.status_code == 200
    main = api.get(f"{REPO}/contents/src/app.py").json()
    assert base64.b64decode(main["content"]).startswith(b"def greet")
    missing = api.put(
        f"{REPO}/contents/x.txt", json={"message": "m", "content": b64("x"), "branch": "ghost"}
    )
    assert missing.status_code == 404


def test_put_validation(api):
    assert api.put(f"{REPO}/contents/a.txt", json={"content": b64("x")}).status_code == 422
    assert api.put(f"{REPO}/contents/a.txt", json={"message": "m"}).status_code == 422
    bad = api.put(f"{REPO}/contents/a.txt", json={"message": "m", "content": "!!notbase64"})
    assert bad.status_code == 422


def test_first_commit_into_an_empty_repository(world, api):
    world.forge.seed_repo("octocat/fresh", {})
    created = api.put(
        "/repos/octocat/fresh/contents/README.md", json={"message": "init", "content": b64("hi")}
    )
    assert created.status_code == 201
    assert created.json()["commit"]["parents"] == []


def test_delete_file_with_precondition(world, api):
    seen = []
    world.forge.on_ref_update(seen.append)
    sha = api.get(f"{REPO}/contents/docs/guide.md").json()["sha"]
    no_sha = api.request("DELETE", f"{REPO}/contents/docs/guide.md", json={"message": "rm"})
    assert no_sha.status_code == 422
    stale = api.request(
        "DELETE", f"{REPO}/contents/docs/guide.md", json={"message": "rm", "sha": "1" * 40}
    )
    assert stale.status_code == 409
    deleted = api.request(
        "DELETE", f"{REPO}/contents/docs/guide.md", json={"message": "rm", "sha": sha}
    )
    assert deleted.status_code == 200
    assert deleted.json()["content"] is None
    assert api.get(f"{REPO}/contents/docs/guide.md").status_code == 404
    gone = api.request(
        "DELETE", f"{REPO}/contents/docs/guide.md", json={"message": "rm", "sha": sha}
    )
    assert gone.status_code == 404
    assert [u.source for u in seen] == ["contents"]


def test_read_only_token_cannot_write_contents(world):
    with world.client(world.read_token) as client:
        response = client.put(f"{REPO}/contents/x.txt", json={"message": "m", "content": b64("x")})
    assert response.status_code == 403
