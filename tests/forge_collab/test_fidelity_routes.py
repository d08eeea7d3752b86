"""Routes the forge lacked or answered unlike GitHub: listing an organisation's teams and
repositories and a user's repositories, reading one global advisory, forking an empty
repository, filtering secret scanning alerts by resolution, and an issue's sub-issue
summary and parent. Each answer is also checked against GitHub's OpenAPI description (the
fixture's own check and the test run's)."""

from __future__ import annotations

from sandbox_forge.stores import security as security_store
from sandbox_forge.stores.collab import collab

DEMO = "octo-org/demo-app"


def test_an_organisations_teams(forge, demo, demo_api):
    teams = demo_api.get("/orgs/octo-org/teams")
    assert teams.status_code == 200
    assert [t["slug"] for t in teams.json()] == ["maintainers", "web"]
    assert "organization" not in teams.json()[0]  # GitHub's `team`, not team-full
    assert demo_api.get("/orgs/octocat/teams").status_code == 404  # a user, not an org
    assert demo_api.get("/orgs/nobody-here/teams").status_code == 404


def test_an_organisations_and_a_users_repositories(forge, demo, demo_api):
    every = [r["full_name"] for r in demo_api.get("/orgs/octo-org/repos").json()]
    assert {DEMO, "octo-org/private-notes"} <= set(every)
    public = demo_api.get("/orgs/octo-org/repos", params={"type": "public"}).json()
    assert DEMO in [r["full_name"] for r in public] and not any(r["private"] for r in public)
    by_name = demo_api.get("/orgs/octo-org/repos", params={"sort": "full_name"}).json()
    assert [r["full_name"] for r in by_name] == sorted(every, key=str.lower)
    bad = demo_api.get("/orgs/octo-org/repos", params={"type": "owner"})
    assert bad.status_code == 422  # a user listing's type, not an organisation's
    forge.seed_repo("octocat/spoon-knife", {"README.md": "# spoon\n"})
    forge.seed_repo("octocat/diary", {"README.md": "# private\n"}, private=True)
    mine = [r["full_name"] for r in demo_api.get("/users/octocat/repos").json()]
    assert "octocat/spoon-knife" in mine and "octocat/diary" not in mine  # public ones only
    assert demo_api.get("/users/octo-org/repos").status_code == 404  # an org, not a user


def test_one_global_advisory(forge, demo, demo_api):
    found = demo_api.get("/advisories/GHSA-x84v-xcm2-53pg")
    assert found.status_code == 200 and found.json()["cve_id"] == "CVE-2018-18074"
    assert demo_api.get("/advisories/GHSA-xxxx-xxxx-xxxx").status_code == 404
    # a repository advisory is not a global one
    assert demo_api.get("/advisories/GHSA-2c4m-9xvw-r7qh").status_code == 404


def test_forking_an_empty_repository_is_refused_and_makes_nothing(forge, demo, demo_api):
    before = {r.full_name for r in forge.state.all_repos()}
    refused = demo_api.post(
        "/repos/octo-org/sandbox-scratch/forks", json={"default_branch_only": True}
    )
    assert refused.status_code == 403
    assert refused.json()["message"].startswith("The repository exists, but it contains no Git")
    assert {r.full_name for r in forge.state.all_repos()} == before
    made = demo_api.post(f"/repos/{DEMO}/forks", json={"default_branch_only": True})
    assert made.status_code == 202 and made.json()["full_name"] == "octocat/demo-app"
    fork = forge.state.repo("octocat", "demo-app")
    assert [name for name, _sha, _kind in fork.git.list_refs("refs/")] == ["refs/heads/main"]


def test_secret_scanning_alerts_filter_by_resolution(forge, demo, demo_api):
    path = f"/repos/{DEMO}/secret-scanning/alerts"
    (alert,) = demo_api.get(path).json()
    resolved = demo_api.patch(
        f"{path}/{alert['number']}", json={"state": "resolved", "resolution": "revoked"}
    )
    assert resolved.status_code == 200
    assert [a["number"] for a in demo_api.get(path, params={"resolution": "revoked"}).json()] == [
        alert["number"]
    ]
    assert demo_api.get(path, params={"resolution": "false_positive,wont_fix"}).json() == []
    kept = security_store.alerts(forge.state.repo("octo-org", "demo-app"), "secret-scanning")
    assert kept[alert["number"]].dismissed_reason == "revoked"


def test_an_issue_shows_its_sub_issue_summary_and_its_parent(forge, demo, demo_api):
    planning = forge.state.extensions["planning_demo"]
    parent = demo_api.get(f"/repos/{DEMO}/issues/{planning['parent']}").json()
    issues = collab(forge.state.repo("octo-org", "demo-app")).issues
    closed = sum(1 for n in planning["sub_issues"] if issues[n].state == "closed")
    assert 0 < closed < 3  # the demo closes some, not all
    assert parent["sub_issues_summary"] == {
        "total": 3, "completed": closed, "percent_completed": round(100 * closed / 3),
    }  # fmt: skip
    assert parent["parent_issue_url"] is None
    child = demo_api.get(f"/repos/{DEMO}/issues/{planning['sub_issues'][0]}").json()
    assert child["parent_issue_url"] == parent["url"]
    assert child["sub_issues_summary"]["total"] == 0
