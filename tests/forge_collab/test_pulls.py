"""Pull requests: creation rules, lazy mergeability, files/commits/diff, updates, ref moves."""

from __future__ import annotations

from .conftest import LAB


def _open(api, head="feature/two", base="main", title="Two becomes 22", **extra):
    response = api.post(
        f"/repos/{LAB}/pulls", json={"title": title, "head": head, "base": base, **extra}
    )
    assert response.status_code == 201, response.text
    return response.json()


def test_create_and_get_a_pull_request(api, lab):
    created = _open(api, body="Please review")
    assert created["number"] == 1
    assert created["state"] == "open" and created["merged"] is False
    assert created["mergeable"] is None and created["mergeable_state"] == "unknown"
    assert created["head"]["ref"] == "feature/two"
    assert created["head"]["sha"] == lab.head(LAB, "feature/two")
    assert created["base"]["sha"] == lab.head(LAB, "main")
    assert created["head"]["label"] == "octocat:feature/two"
    assert (created["commits"], created["additions"], created["deletions"]) == (1, 1, 1)
    assert created["changed_files"] == 1
    listed = api.get(f"/repos/{LAB}/pulls").json()
    assert [p["number"] for p in listed] == [1]
    assert "mergeable" not in listed[0]  # the list has the simple shape
    # The PR's head is published as refs/pull/1/head, as on GitHub.
    repo = lab.forge.state.repo("octocat", "lab")
    assert repo is not None
    assert repo.git.read_ref("refs/pull/1/head") == created["head"]["sha"]


def test_creation_errors_use_githubs_messages(api):
    _open(api)
    duplicate = api.post(
        f"/repos/{LAB}/pulls",
        json={"title": "again", "head": "octocat:feature/two", "base": "main"},
    )
    assert duplicate.status_code == 422
    assert duplicate.json()["errors"][0]["message"] == (
        "A pull request already exists for octocat:feature/two."
    )
    same = api.post(f"/repos/{LAB}/pulls", json={"title": "x", "head": "main", "base": "main"})
    assert same.status_code == 422
    assert same.json()["errors"][0]["message"] == "No commits between main and main"
    api.post(f"/repos/{LAB}/git/refs", json={"ref": "refs/heads/empty", "sha": _main(api)})
    empty = api.post(f"/repos/{LAB}/pulls", json={"title": "x", "head": "empty", "base": "main"})
    assert empty.status_code == 422
    assert empty.json()["errors"][0]["message"] == "No commits between main and empty"
    missing = api.post(f"/repos/{LAB}/pulls", json={"title": "x", "head": "nope", "base": "main"})
    assert missing.status_code == 422
    assert missing.json()["errors"][0]["field"] == "head"
    no_title = api.post(f"/repos/{LAB}/pulls", json={"head": "feature/notes", "base": "main"})
    assert no_title.status_code == 422
    assert api.get(f"/repos/{LAB}/pulls/42").status_code == 404


def _main(api) -> str:
    return api.get(f"/repos/{LAB}/git/ref/heads/main").json()["object"]["sha"]


def test_mergeability_is_computed_lazily(api, lab):
    number = _open(api)["number"]
    first = api.get(f"/repos/{LAB}/pulls/{number}").json()
    assert first["mergeable"] is None and first["mergeable_state"] == "unknown"
    second = api.get(f"/repos/{LAB}/pulls/{number}").json()
    assert second["mergeable"] is True and second["mergeable_state"] == "clean"
    assert second["merge_commit_sha"]  # the test merge commit, as GitHub reports it

    # A change to the base starts over: null once, then the new answer (now a conflict).
    lab.commit(api, LAB, "main", "app.py", LAB_APP_CONFLICT)
    again = api.get(f"/repos/{LAB}/pulls/{number}").json()
    assert again["mergeable"] is None
    after = api.get(f"/repos/{LAB}/pulls/{number}").json()
    assert after["mergeable"] is False and after["mergeable_state"] == "dirty"
    assert after["merge_commit_sha"] is None
    conflicts = lab.admin.get(f"/_sandbox/repos/{LAB}/pulls/{number}/conflicts").json()
    assert conflicts["conflicts"] == ["app.py"] and conflicts["mergeable"] is False


LAB_APP_CONFLICT = "def one():\n    return 1\n\n\ndef two():\n    return 'two'\n"


def test_mergeability_delay_can_be_set(api, lab):
    number = _open(api)["number"]
    response = lab.admin.put(
        f"/_sandbox/repos/{LAB}/pulls/{number}/mergeability", json={"delay": 3}
    )
    assert response.status_code == 200
    answers = [api.get(f"/repos/{LAB}/pulls/{number}").json()["mergeable"] for _ in range(4)]
    assert answers == [None, None, None, True]
    settings = lab.admin.patch("/_sandbox/collab/settings", json={"mergeability_delay": 0})
    assert settings.json()["mergeability_delay"] == 0
    other = _open(api, head="feature/notes", title="Notes")["number"]
    assert api.get(f"/repos/{LAB}/pulls/{other}").json()["mergeable"] is True


def test_files_commits_and_diff(api):
    number = _open(api, head="feature/notes", title="Notes")["number"]
    files = api.get(f"/repos/{LAB}/pulls/{number}/files").json()
    assert [f["filename"] for f in files] == ["notes.txt"]
    entry = files[0]
    assert entry["status"] == "modified"
    assert (entry["additions"], entry["deletions"]) == (2, 1)
    assert "+BETA" in entry["patch"] and "-beta" in entry["patch"]
    commits = api.get(f"/repos/{LAB}/pulls/{number}/commits").json()
    assert [c["commit"]["message"] for c in commits] == ["Changes on feature/notes"]
    diff = api.get(
        f"/repos/{LAB}/pulls/{number}", headers={"Accept": "application/vnd.github.diff"}
    )
    assert diff.status_code == 200
    assert diff.headers["content-type"].startswith("application/vnd.github.diff")
    assert diff.text.startswith("diff --git a/notes.txt b/notes.txt")
    assert "+delta" in diff.text


def test_list_filters(api):
    _open(api)
    second = _open(api, head="feature/notes", title="Notes")
    api.patch(f"/repos/{LAB}/pulls/{second['number']}", json={"state": "closed"})
    by_head = api.get(f"/repos/{LAB}/pulls", params={"head": "octocat:feature/two"}).json()
    assert [p["head"]["ref"] for p in by_head] == ["feature/two"]
    assert api.get(f"/repos/{LAB}/pulls", params={"head": "someone:feature/two"}).json() == []
    closed = api.get(f"/repos/{LAB}/pulls", params={"state": "closed"}).json()
    assert [p["number"] for p in closed] == [second["number"]]
    every = api.get(
        f"/repos/{LAB}/pulls", params={"state": "all", "sort": "created", "direction": "asc"}
    ).json()
    assert [p["number"] for p in every] == [1, 2]
    assert api.get(f"/repos/{LAB}/pulls", params={"base": "other"}).json() == []


def test_update_title_state_and_base(api):
    number = _open(api)["number"]
    renamed = api.patch(f"/repos/{LAB}/pulls/{number}", json={"title": "Better title"}).json()
    assert renamed["title"] == "Better title"
    closed = api.patch(f"/repos/{LAB}/pulls/{number}", json={"state": "closed"}).json()
    assert closed["state"] == "closed" and closed["merged"] is False
    assert closed["mergeable_state"] == "unknown"
    reopened = api.patch(f"/repos/{LAB}/pulls/{number}", json={"state": "open"}).json()
    assert reopened["state"] == "open"
    rebased = api.patch(f"/repos/{LAB}/pulls/{number}", json={"base": "feature/notes"}).json()
    assert rebased["base"]["ref"] == "feature/notes"
    bad = api.patch(f"/repos/{LAB}/pulls/{number}", json={"base": "nope"})
    assert bad.status_code == 422


def test_pushes_to_the_head_move_the_pull_request(api, lab):
    created = _open(api)
    new_head = lab.commit(api, LAB, "feature/two", "extra.txt", "more\n")
    got = api.get(f"/repos/{LAB}/pulls/{created['number']}").json()
    assert got["head"]["sha"] == new_head
    assert got["commits"] == 2
    repo = lab.forge.state.repo("octocat", "lab")
    assert repo is not None and repo.git.read_ref("refs/pull/1/head") == new_head


def test_a_base_that_gains_the_head_marks_the_pr_merged(api, lab):
    number = _open(api)["number"]
    head = lab.head(LAB, "feature/two")
    moved = api.patch(f"/repos/{LAB}/git/refs/heads/main", json={"sha": head})
    assert moved.status_code == 200
    got = api.get(f"/repos/{LAB}/pulls/{number}").json()
    assert got["merged"] is True and got["state"] == "closed"
    assert api.get(f"/repos/{LAB}/pulls/{number}/merge").status_code == 204


def test_issue_endpoints_see_pull_requests(api):
    number = _open(api)["number"]
    issue = api.get(f"/repos/{LAB}/issues/{number}").json()
    assert issue["pull_request"]["html_url"].endswith(f"/pull/{number}")
    api.post(f"/repos/{LAB}/issues/{number}/comments", json={"body": "LGTM"})
    labelled = api.post(f"/repos/{LAB}/issues/{number}/labels", json={"labels": ["ready"]})
    assert labelled.status_code == 200
    pr = api.get(f"/repos/{LAB}/pulls/{number}").json()
    assert pr["comments"] == 1 and [label["name"] for label in pr["labels"]] == ["ready"]
