"""Collaborators, teams and stars through a real MCP client against the forge. Reads show
the seeded demo; star and unstar are unscoped writes that need a human's approval, with
evidence from the forge's star records; the allow-list applies, to listed stars too. Every
request and response is checked against GitHub's OpenAPI description."""

from __future__ import annotations

from sandbox_forge.stores import social
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, settled_requests
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import new_repo, write_requests

PATHS = ("/collaborators", "/teams", "/user/starred")


def check_contract(forge) -> None:
    records = [r for r in forge.responses() if any(p in r["path"] for p in PATHS)]
    assert records, "no requests recorded"
    assert validate_records(records) == []
    assert validate_request_bodies(records) == []


def starred_by(forge, login: str) -> set[str]:
    return set(social.stars(forge.state, login))


async def test_collaborators_and_teams(make_runtime, forge):
    forge.clear_responses()
    alice = make_runtime(github_token=forge.create_token("alice", user_roles=True))
    async with mcp_client(alice) as client:
        _, people = await call_tool(
            client, "list_repository_collaborators", {"full_name": DEMO_REPO}
        )
        _, admins = await call_tool(
            client,
            "list_repository_collaborators",
            {"full_name": DEMO_REPO, "permission": "admin"},
        )
        _, teams = await call_tool(client, "list_my_teams")
        _, members = await call_tool(
            client, "list_team_members", {"org": "octo-org", "team": "maintainers"}
        )
        _, maintainers = await call_tool(
            client,
            "list_team_members",
            {"org": "octo-org", "team": "web", "role": "maintainer"},
        )
        _, missing = await call_tool(
            client, "list_team_members", {"org": "octo-org", "team": "nope"}
        )
    roles = {p["login"]: p["role"] for p in people["collaborators"]}
    assert roles["alice"] == "admin" and roles["bob"] == "read"
    # other tests add org admins to the shared forge: the filter must give exactly the
    # admins of the whole list, alice among them
    assert [p["login"] for p in admins["collaborators"]] == [
        p["login"] for p in people["collaborators"] if p["role"] == "admin"
    ]
    assert "alice" in {p["login"] for p in admins["collaborators"]}
    assert {(t["org"], t["slug"]) for t in teams["teams"]} == {
        ("octo-org", "maintainers"),
        ("octo-org", "web"),
    }
    assert members["members"] == ["alice"]
    assert maintainers["members"] == []  # alice is only a member of web
    assert error_code(missing) == "not_found"
    check_contract(forge)


async def test_a_reader_cannot_list_collaborators_or_see_teams(make_runtime, forge):
    bob = make_runtime(github_token=forge.create_token("bob", user_roles=True))
    async with mcp_client(bob) as client:
        _, people = await call_tool(
            client, "list_repository_collaborators", {"full_name": DEMO_REPO}
        )
        _, teams = await call_tool(client, "list_my_teams")
        _, members = await call_tool(
            client, "list_team_members", {"org": "octo-org", "team": "maintainers"}
        )
    assert error_code(people) in ("forbidden", "permission_denied")
    assert teams["teams"] == []
    assert error_code(members) == "not_found"  # bob is not in octo-org


async def test_star_and_unstar_need_approval_and_change_the_forge(make_runtime, forge):
    repo = new_repo(forge, prefix="stars-org")
    login = "octocat"
    refused_rt = make_runtime()
    async with mcp_client(refused_rt) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "star_repository", {"full_name": repo})
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed"
    assert writes == []
    assert repo.lower() not in starred_by(forge, login)

    forge.clear_responses()
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        _, starred = await call_tool(client, "star_repository", {"full_name": repo})
        after_star = repo.lower() in starred_by(forge, login)
        _, listed = await call_tool(client, "list_starred_repositories")
        _, unstarred = await call_tool(client, "unstar_repository", {"full_name": repo})
    assert starred == {"full_name": repo, "starred": True} and after_star
    assert repo in [r["full_name"] for r in listed["repositories"]]
    assert unstarred == {"full_name": repo, "starred": False}
    assert repo.lower() not in starred_by(forge, login)
    check_contract(forge)


async def test_the_allow_list_applies_to_stars(make_runtime, forge):
    repo = new_repo(forge, prefix="stars-org")
    social.stars(forge.state, "octocat")[repo.lower()] = 0.0
    rt = make_runtime(auto_approve=True, repo_allowlist=DEMO_REPO)
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, write = await call_tool(client, "unstar_repository", {"full_name": repo})
        touched = [r for r in settled_requests(forge) if repo in r["path"]]
        _, listed = await call_tool(client, "list_starred_repositories")
    assert error_code(write) == "repo_not_allowed"
    assert touched == []
    assert repo.lower() in starred_by(forge, "octocat")
    names = [r["full_name"] for r in listed["repositories"]]
    assert repo not in names and DEMO_REPO in names


def _accounts(forge, fragment: str, kind: str) -> list[str]:
    users = forge.state.users.values()
    return sorted(u.login for u in users if u.type == kind and fragment in u.login.lower())


async def test_search_users_and_organisations(make_runtime, forge):
    forge.clear_responses()
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, users = await call_tool(client, "search_users", {"query": "ali"})
        _, orgs = await call_tool(client, "search_users", {"query": "octo", "orgs": True})
        _, by_name = await call_tool(client, "search_users", {"query": "in:name Octocat"})
        _, none = await call_tool(client, "search_users", {"query": "zz-nobody-zz"})
    # the shared forge also holds accounts other tests made: expect what it holds
    assert sorted(a["login"] for a in users["accounts"]) == _accounts(forge, "ali", "User")
    assert sorted(a["login"] for a in orgs["accounts"]) == _accounts(forge, "octo", "Organization")
    assert {a["type"] for a in orgs["accounts"]} == {"Organization"}
    assert [a["login"] for a in by_name["accounts"]] == ["octocat"]
    assert none["accounts"] == [] and none["total"] == 0
    records = [r for r in forge.responses() if r["path"].endswith("/search/users")]
    assert records and validate_records(records) == []
