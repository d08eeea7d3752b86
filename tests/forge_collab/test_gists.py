"""The forge's gists as GitHub has them: secret by default yet readable by id, listed for
their owner only, updated (changed, renamed, deleted files) only by the owner. The `forge`
fixture validates every recorded response against GitHub's OpenAPI description."""

from __future__ import annotations


def test_gist_lifecycle_and_errors(forge, demo, demo_api):
    created = demo_api.post("/gists", json={"files": {"a.py": {"content": "x = 1\n"}}})
    assert created.status_code == 201, created.text
    gist = created.json()
    assert gist["public"] is False and gist["files"]["a.py"]["content"] == "x = 1\n"
    bob = forge.create_token("bob", user_roles=True)
    as_bob = {"Authorization": f"token {bob}"}
    assert demo_api.get(f"/gists/{gist['id']}", headers=as_bob).status_code == 200  # unlisted
    assert gist["id"] not in [g["id"] for g in demo_api.get("/gists", headers=as_bob).json()]
    assert gist["id"] in [g["id"] for g in demo_api.get("/gists").json()]
    denied = demo_api.patch(f"/gists/{gist['id']}", json={"description": "x"}, headers=as_bob)
    assert denied.status_code == 404
    renamed = demo_api.patch(
        f"/gists/{gist['id']}",
        json={"files": {"a.py": {"filename": "b.py"}, "c.md": {"content": "# c\n"}}},
    )
    assert sorted(renamed.json()["files"]) == ["b.py", "c.md"]
    emptied = demo_api.patch(f"/gists/{gist['id']}", json={"files": {"b.py": None, "c.md": None}})
    assert emptied.status_code == 422  # a gist keeps at least one file
    assert demo_api.post("/gists", json={"files": {}}).status_code == 422
    assert (
        demo_api.post("/gists", json={"files": {"a": {"content": "x"}}, "public": "x"}).status_code
        == 422
    )
    assert demo_api.get(f"/gists/{'f' * 32}").status_code == 404
