"""The forge's stars and teams as GitHub has them: star, check, list and unstar for the
authenticated user (the repository's stargazers_count follows); the user's teams and a
team's members, hidden from people outside the organisation. The `forge` fixture validates
every recorded response against GitHub's OpenAPI description."""

from __future__ import annotations

from .conftest import DEMO


def test_star_check_list_unstar(forge, demo, demo_api):
    before = demo_api.get(f"/repos/{DEMO}").json()["stargazers_count"]
    assert demo_api.get(f"/user/starred/{DEMO}").status_code == 204  # the demo starred it
    assert demo_api.delete(f"/user/starred/{DEMO}").status_code == 204
    assert demo_api.get(f"/user/starred/{DEMO}").status_code == 404
    assert demo_api.get(f"/repos/{DEMO}").json()["stargazers_count"] == before - 1
    assert DEMO not in [r["full_name"] for r in demo_api.get("/user/starred").json()]
    assert demo_api.put(f"/user/starred/{DEMO}").status_code == 204
    assert demo_api.put(f"/user/starred/{DEMO}").status_code == 204  # idempotent
    assert [r["full_name"] for r in demo_api.get("/user/starred").json()] == [DEMO]
    assert demo_api.put("/user/starred/octo-org/missing").status_code == 404
    anonymous = demo_api.get("/user/starred", headers={"Authorization": ""})
    assert anonymous.status_code == 401


def test_teams_and_members(forge, demo, demo_api):
    alice = forge.create_token("alice", user_roles=True)
    bob = forge.create_token("bob", user_roles=True)
    as_alice = {"Authorization": f"token {alice}"}
    teams = demo_api.get("/user/teams", headers=as_alice).json()
    assert sorted(t["slug"] for t in teams) == ["maintainers", "web"]
    assert teams[0]["organization"]["login"] == "octo-org"
    members = demo_api.get("/orgs/octo-org/teams/maintainers/members", headers=as_alice)
    assert [m["login"] for m in members.json()] == ["alice"]
    only = demo_api.get(
        "/orgs/octo-org/teams/web/members", params={"role": "maintainer"}, headers=as_alice
    )
    assert only.json() == []
    hidden = demo_api.get(
        "/orgs/octo-org/teams/maintainers/members", headers={"Authorization": f"token {bob}"}
    )
    assert hidden.status_code == 404
    assert demo_api.get("/orgs/octo-org/teams/nope/members").status_code == 404
