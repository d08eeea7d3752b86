"""The forge's releases and tags as GitHub has them: drafts hidden from readers and from the
by-tag and latest lookups, the tag made on publishing, duplicate tags refused, and the
error shapes. The `forge` fixture validates every recorded response against GitHub's
OpenAPI description; request bodies are validated here."""

from __future__ import annotations

from sandbox_forge.stores import releases as store
from tests.forge.contract import validate_request_bodies

from .conftest import DEMO

REPO = f"/repos/{DEMO}"


def test_drafts_are_for_pushers_and_publishing_makes_the_tag(forge, demo, demo_api):
    created = demo_api.post(f"{REPO}/releases", json={"tag_name": "v5", "draft": True})
    assert created.status_code == 201, created.text
    draft = created.json()
    assert draft["draft"] is True and draft["tarball_url"] is None
    reader = forge.create_token("bob", user_roles=True)  # bob may only read
    listed_by_reader = demo_api.get(
        f"{REPO}/releases", headers={"Authorization": f"token {reader}"}
    ).json()
    assert draft["id"] not in [r["id"] for r in listed_by_reader]
    assert draft["id"] in [r["id"] for r in demo_api.get(f"{REPO}/releases").json()]
    assert demo_api.get(f"{REPO}/releases/tags/v5").status_code == 404
    repo = forge.state.repo("octo-org", "demo-app")
    assert repo is not None and repo.git.read_ref("refs/tags/v5") is None

    published = demo_api.patch(f"{REPO}/releases/{draft['id']}", json={"draft": False})
    assert published.status_code == 200 and published.json()["draft"] is False
    assert repo.git.read_ref("refs/tags/v5") == repo.git.read_ref("refs/heads/main")
    assert demo_api.get(f"{REPO}/releases/latest").json()["tag_name"] == "v5"
    assert demo_api.get(f"{REPO}/releases/tags/v5").json()["id"] == draft["id"]

    again = demo_api.post(f"{REPO}/releases", json={"tag_name": "v5"})
    assert again.status_code == 422
    assert again.json()["errors"][0]["code"] == "already_exists"
    assert validate_request_bodies(forge.responses()) == []


def test_generated_notes_list_merged_pulls_since_the_previous_release(forge, demo, demo_api):
    merged = forge.state.extensions["breadth_demo"]["merged_pull"]
    notes = demo_api.post(
        f"{REPO}/releases/generate-notes",
        json={"tag_name": "v0.3.0", "target_commitish": "main", "previous_tag_name": "v0.1.0"},
    )
    assert notes.status_code == 200, notes.text
    assert f"/pull/{merged}" in notes.json()["body"]
    since_rc = demo_api.post(
        f"{REPO}/releases/generate-notes",
        json={"tag_name": "v0.3.0", "previous_tag_name": "v0.2.0-rc.1"},
    )
    assert f"/pull/{merged}" not in since_rc.json()["body"]
    missing = demo_api.post(
        f"{REPO}/releases/generate-notes",
        json={"tag_name": "v0.3.0", "target_commitish": "no-such-branch"},
    )
    assert missing.status_code == 404


def test_bad_input_gets_githubs_errors(forge, demo, demo_api):
    no_tag = demo_api.post(f"{REPO}/releases", json={"name": "x"})
    wrong = demo_api.post(f"{REPO}/releases", json={"tag_name": "v6", "draft": "yes"})
    latest_kind = demo_api.patch(
        f"{REPO}/releases/{forge.state.extensions['breadth_demo']['draft']['id']}",
        json={"make_latest": "maybe"},
    )
    assert no_tag.status_code == wrong.status_code == latest_kind.status_code == 422
    assert demo_api.get(f"{REPO}/releases/999999").status_code == 404
    assert demo_api.get(f"{REPO}/git/tags/{'0' * 40}").status_code == 404
    repo = forge.state.repo("octo-org", "demo-app")
    assert repo is not None
    assert [r.tag_name for r in store.releases(repo).values()].count("v6") == 0


def test_tags_and_tag_objects(forge, demo, demo_api):
    tags = {t["name"]: t for t in demo_api.get(f"{REPO}/tags").json()}
    assert {"v0.1.0", "v0.2.0-rc.1"} <= set(tags)
    ref = demo_api.get(f"{REPO}/git/ref/tags/v0.1.0").json()
    assert ref["object"]["type"] == "tag"
    obj = demo_api.get(f"{REPO}/git/tags/{ref['object']['sha']}").json()
    assert obj["object"]["sha"] == tags["v0.1.0"]["commit"]["sha"]
    assert obj["tag"] == "v0.1.0" and obj["message"].startswith("First calculator")
