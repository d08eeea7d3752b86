"""The forge's sub-issue, dependency and milestone endpoints on their error paths: bodies
checked as GitHub's OpenAPI description has them, and links never reveal an issue in a
repository the caller cannot read (every response is also contract-checked by the fixture)."""

from __future__ import annotations

from .conftest import LAB

SECRET = "octocat/secret-plans"


def _issue(api, title, repo=LAB):
    response = api.post(f"/repos/{repo}/issues", json={"title": title})
    assert response.status_code == 201, response.text
    return response.json()


def test_bad_bodies_get_422_and_change_nothing(api):
    parent, child = _issue(api, "Epic"), _issue(api, "Part")
    url = f"/repos/{LAB}/issues/{parent['number']}"
    for body in ({}, {"sub_issue_id": str(child["id"])}, {"sub_issue_id": True}):
        assert api.post(f"{url}/sub_issues", json=body).status_code == 422, body
    bad_flag = {"sub_issue_id": child["id"], "replace_parent": "yes"}
    assert api.post(f"{url}/sub_issues", json=bad_flag).status_code == 422
    assert api.get(f"{url}/sub_issues").json() == []
    assert api.post(f"{url}/sub_issues", json={"sub_issue_id": child["id"]}).status_code == 201
    both = {"sub_issue_id": child["id"], "after_id": child["id"], "before_id": child["id"]}
    assert api.patch(f"{url}/sub_issues/priority", json=both).status_code == 422
    assert api.post(f"{url}/dependencies/blocked_by", json={"issue_id": "1"}).status_code == 422
    assert api.post(f"{url}/dependencies/blocked_by", json={"issue_id": 10**9}).status_code == 404
    assert api.patch(url, json={"milestone": 7}).status_code == 422
    assert [i["number"] for i in api.get(f"{url}/sub_issues").json()] == [child["number"]]
    assert api.get(f"/repos/{LAB}/issues/{child['number']}/parent").json()["id"] == parent["id"]


def test_links_never_reveal_an_unreadable_issue(lab, api):
    lab.forge.seed_repo(SECRET, {"README.md": "# secret\n"}, private=True)
    hidden = _issue(api, "Acquire a competitor", repo=SECRET)
    mine = _issue(api, "Public epic")
    url = f"/repos/{LAB}/issues/{mine['number']}"
    assert api.post(f"{url}/sub_issues", json={"sub_issue_id": hidden["id"]}).status_code == 201
    with lab.client(lab.forge.create_token("bob", repos=[LAB])) as bob:  # cannot see SECRET
        listed = bob.get(f"{url}/sub_issues")
        linked = bob.post(f"{url}/dependencies/blocked_by", json={"issue_id": hidden["id"]})
    assert listed.status_code == 200 and listed.json() == []
    assert linked.status_code in (403, 404) and "Acquire" not in linked.text
