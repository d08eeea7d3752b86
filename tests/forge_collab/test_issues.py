"""Issues, comments, labels and /search/issues."""

from __future__ import annotations

from .conftest import LAB


def _issue(api, title, **body):
    response = api.post(f"/repos/{LAB}/issues", json={"title": title, **body})
    assert response.status_code == 201, response.text
    return response.json()


def test_create_get_and_update_an_issue(api):
    created = _issue(api, "Crash on start", body="Stack trace below", labels=["bug"])
    assert created["number"] == 1
    assert created["state"] == "open"
    assert created["user"]["login"] == "octocat"
    assert [label["name"] for label in created["labels"]] == ["bug"]
    assert "pull_request" not in created

    got = api.get(f"/repos/{LAB}/issues/1").json()
    assert got["title"] == "Crash on start" and got["body"] == "Stack trace below"

    closed = api.patch(
        f"/repos/{LAB}/issues/1",
        json={"state": "closed", "state_reason": "not_planned", "assignees": ["alice"]},
    ).json()
    assert closed["state"] == "closed"
    assert closed["state_reason"] == "not_planned"
    assert closed["closed_by"]["login"] == "octocat"
    assert [a["login"] for a in closed["assignees"]] == ["alice"]
    reopened = api.patch(f"/repos/{LAB}/issues/1", json={"state": "open"}).json()
    assert reopened["state"] == "open" and reopened["closed_at"] is None
    assert reopened["state_reason"] == "reopened"


def test_issue_errors(api, lab):
    assert api.get(f"/repos/{LAB}/issues/99").status_code == 404
    missing = api.post(f"/repos/{LAB}/issues", json={"body": "no title"})
    assert missing.status_code == 422
    bad_state = api.patch(f"/repos/{LAB}/issues/1", json={"state": "done"})
    assert bad_state.status_code == 404  # no issue 1 yet
    _issue(api, "One")
    assert api.patch(f"/repos/{LAB}/issues/1", json={"state": "done"}).status_code == 422
    unknown = api.post(f"/repos/{LAB}/issues", json={"title": "x", "assignees": ["nobody"]})
    assert unknown.status_code == 422
    read_only = lab.forge.create_token("octocat", access="read")
    with lab.client(read_only) as reader:
        assert reader.post(f"/repos/{LAB}/issues", json={"title": "x"}).status_code == 403
        assert reader.get(f"/repos/{LAB}/issues/1").status_code == 200


def test_list_filters_and_pull_requests_in_the_list(api):
    _issue(api, "First", labels=["bug", "ui"])
    _issue(api, "Second", labels=["bug"])
    third = _issue(api, "Third")
    api.patch(f"/repos/{LAB}/issues/{third['number']}", json={"state": "closed"})
    pr = api.post(
        f"/repos/{LAB}/pulls", json={"title": "PR", "head": "feature/two", "base": "main"}
    ).json()

    open_items = api.get(f"/repos/{LAB}/issues").json()
    assert [i["number"] for i in open_items] == [pr["number"], 2, 1]  # newest first
    assert "pull_request" in open_items[0]
    assert open_items[0]["pull_request"]["url"].endswith(f"/pulls/{pr['number']}")
    both = api.get(f"/repos/{LAB}/issues", params={"labels": "bug,ui"}).json()
    assert [i["title"] for i in both] == ["First"]
    closed = api.get(f"/repos/{LAB}/issues", params={"state": "closed"}).json()
    assert [i["title"] for i in closed] == ["Third"]
    everything = api.get(
        f"/repos/{LAB}/issues", params={"state": "all", "direction": "asc", "per_page": 2}
    )
    assert [i["number"] for i in everything.json()] == [1, 2]
    assert 'rel="next"' in everything.headers["link"]
    by_creator = api.get(f"/repos/{LAB}/issues", params={"creator": "alice"}).json()
    assert by_creator == []


def test_comments_and_labels(api):
    _issue(api, "Needs triage")
    created = api.post(f"/repos/{LAB}/issues/1/comments", json={"body": "Looking into it"})
    assert created.status_code == 201
    assert created.json()["body"] == "Looking into it"
    assert api.post(f"/repos/{LAB}/issues/1/comments", json={}).status_code == 422
    listed = api.get(f"/repos/{LAB}/issues/1/comments").json()
    assert [c["body"] for c in listed] == ["Looking into it"]
    assert api.get(f"/repos/{LAB}/issues/1").json()["comments"] == 1

    labels = api.post(f"/repos/{LAB}/issues/1/labels", json={"labels": ["triage", "p1"]})
    assert labels.status_code == 200
    assert [label["name"] for label in labels.json()] == ["triage", "p1"]
    again = api.post(f"/repos/{LAB}/issues/1/labels", json=["p1", "backend"]).json()
    assert [label["name"] for label in again] == ["triage", "p1", "backend"]
    repo_labels = api.get(f"/repos/{LAB}/labels").json()
    assert sorted(label["name"] for label in repo_labels) == ["backend", "p1", "triage"]
    assert api.delete(f"/repos/{LAB}/issues/1/labels/nope").status_code == 404


def test_search_issues_with_qualifiers(api):
    _issue(api, "Login button broken", body="Safari only", labels=["bug"])
    _issue(api, "Add dark mode", body="the login page too", labels=["enhancement"])
    closed = _issue(api, "Old login crash", labels=["bug"])
    api.patch(f"/repos/{LAB}/issues/{closed['number']}", json={"state": "closed"})
    api.post(
        f"/repos/{LAB}/pulls",
        json={"title": "Fix login button", "head": "feature/two", "base": "main"},
    )

    def titles(q: str) -> list[str]:
        response = api.get("/search/issues", params={"q": q})
        assert response.status_code == 200, response.text
        data = response.json()
        assert data["incomplete_results"] is False
        assert data["total_count"] == len(data["items"])
        return sorted(item["title"] for item in data["items"])

    scope = f"repo:{LAB}"
    assert titles(f"{scope} login") == [
        "Add dark mode",
        "Fix login button",
        "Login button broken",
        "Old login crash",
    ]
    assert titles(f"{scope} login in:title") == [
        "Fix login button",
        "Login button broken",
        "Old login crash",
    ]
    assert titles(f"{scope} is:issue label:bug") == ["Login button broken", "Old login crash"]
    assert titles(f"{scope} is:issue is:open label:bug") == ["Login button broken"]
    assert titles(f"{scope} is:closed") == ["Old login crash"]
    assert titles(f"{scope} is:pr") == ["Fix login button"]
    assert titles(f"{scope} is:pr author:octocat") == ["Fix login button"]
    assert titles(f"{scope} author:alice") == []
    assert titles(f"{scope} safari") == ["Login button broken"]
    pr_item = api.get("/search/issues", params={"q": f"{scope} is:pr"}).json()["items"][0]
    assert "pull_request" in pr_item and pr_item["score"] == 1.0
    assert api.get("/search/issues", params={"q": ""}).status_code == 422
