"""Branch protection: the REST endpoints, branches' `protected`, and what it does to merges."""

from __future__ import annotations

from .conftest import LAB

PROTECTION = {
    "required_status_checks": {"strict": False, "contexts": ["ci"]},
    "enforce_admins": True,
    "required_pull_request_reviews": {"required_approving_review_count": 1},
    "restrictions": None,
}


def test_get_put_and_delete_protection(api):
    missing = api.get(f"/repos/{LAB}/branches/main/protection")
    assert missing.status_code == 404 and missing.json()["message"] == "Branch not protected"
    assert api.get(f"/repos/{LAB}/branches/nope/protection").status_code == 404
    put = api.put(f"/repos/{LAB}/branches/main/protection", json=PROTECTION)
    assert put.status_code == 200, put.text
    got = api.get(f"/repos/{LAB}/branches/main/protection").json()
    assert got["required_pull_request_reviews"]["required_approving_review_count"] == 1
    assert got["required_status_checks"]["contexts"] == ["ci"]
    assert got["required_status_checks"]["checks"] == [{"context": "ci", "app_id": None}]
    assert got["required_status_checks"]["strict"] is False
    assert got["enforce_admins"]["enabled"] is True
    branches = {b["name"]: b for b in api.get(f"/repos/{LAB}/branches").json()}
    assert branches["main"]["protected"] is True
    assert branches["main"]["protection"]["required_status_checks"]["contexts"] == ["ci"]
    assert branches["feature/two"]["protected"] is False
    assert api.get(f"/repos/{LAB}/branches/main").json()["protected"] is True
    incomplete = api.put(f"/repos/{LAB}/branches/main/protection", json={"enforce_admins": True})
    assert incomplete.status_code == 422
    assert api.delete(f"/repos/{LAB}/branches/main/protection").status_code == 204
    assert api.get(f"/repos/{LAB}/branches/main/protection").status_code == 404
    assert api.get(f"/repos/{LAB}/branches/main").json()["protected"] is False


def test_protection_blocks_merges_until_its_requirements_are_met(api, lab):
    lab.admin.put(
        f"/_sandbox/repos/{LAB}/branches/main/protection", json=PROTECTION
    ).raise_for_status()
    lab.admin.patch("/_sandbox/collab/settings", json={"mergeability_delay": 0})
    pr = api.post(
        f"/repos/{LAB}/pulls", json={"title": "Two", "head": "feature/two", "base": "main"}
    ).json()
    number = pr["number"]
    url = f"/repos/{LAB}/pulls/{number}"
    got = api.get(url).json()
    assert got["mergeable"] is True and got["mergeable_state"] == "blocked"

    refused = api.put(f"{url}/merge")
    assert refused.status_code == 405
    assert refused.json()["message"] == (
        "At least 1 approving review is required by reviewers with write access."
    )
    with lab.client(lab.forge.create_token("alice")) as alice:
        approved = alice.post(f"{url}/reviews", json={"event": "APPROVE"})
    assert approved.status_code == 200
    expected = api.put(f"{url}/merge")
    assert expected.status_code == 405
    assert expected.json()["message"] == 'Required status check "ci" is expected.'

    head = lab.head(LAB, "feature/two")
    lab.admin.post(
        f"/_sandbox/repos/{LAB}/check-runs",
        json={"head_sha": head, "name": "ci", "conclusion": "failure"},
    ).raise_for_status()
    failing = api.put(f"{url}/merge")
    assert failing.json()["message"] == 'Required status check "ci" is failing.'
    assert api.get(url).json()["mergeable_state"] == "blocked"

    lab.admin.post(
        f"/_sandbox/repos/{LAB}/check-runs",
        json={"head_sha": head, "name": "ci", "conclusion": "success"},
    ).raise_for_status()
    lab.admin.post(
        f"/_sandbox/repos/{LAB}/statuses/{head}",
        json={"state": "failure", "context": "optional/coverage"},
    ).raise_for_status()
    assert api.get(url).json()["mergeable_state"] == "unstable"
    merged = api.put(f"{url}/merge", json={"sha": head})
    assert merged.status_code == 200, merged.text
    assert lab.head(LAB, "main") == merged.json()["sha"]


def test_strict_protection_reports_behind(api, lab):
    body = {
        **PROTECTION,
        "required_status_checks": {"strict": True, "contexts": []},
        "required_pull_request_reviews": None,
    }
    api.put(f"/repos/{LAB}/branches/main/protection", json=body).raise_for_status()
    lab.admin.patch("/_sandbox/collab/settings", json={"mergeability_delay": 0})
    number = api.post(
        f"/repos/{LAB}/pulls", json={"title": "Notes", "head": "feature/notes", "base": "main"}
    ).json()["number"]
    assert api.get(f"/repos/{LAB}/pulls/{number}").json()["mergeable_state"] == "clean"
    lab.commit(api, LAB, "main", "README.md", "# lab\n\nmoved on\n")
    assert api.get(f"/repos/{LAB}/pulls/{number}").json()["mergeable_state"] == "behind"
    refused = api.put(f"/repos/{LAB}/pulls/{number}/merge")
    assert refused.status_code == 405
