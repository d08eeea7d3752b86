"""Users really differ: tokens from the sign-in act within their user's repository role,
on REST, GraphQL and git. The evidence is the forge's own state (branch heads, files)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from sandbox_forge.stores.access import association

from .conftest import api, git, sign_in_token

DEMO = "octo-org/demo-app"
PRIVATE = "octo-org/private-notes"


@pytest.fixture(scope="module")
def tokens(browser, people) -> dict[str, str]:
    app = people.forge.register_oauth_app("Roles", ["http://127.0.0.1:48123/oauth/callback"])
    return {
        "alice": sign_in_token(browser, people, app, "alice"),
        "bob": sign_in_token(browser, people, app, "bob"),
        "alice_no_repo_scope": sign_in_token(browser, people, app, "alice", scope="read:org"),
    }


def _head(people, full_name: str, branch: str = "main") -> str:
    owner, name = full_name.split("/")
    repo = people.forge.state.repo(owner, name)
    return repo.git.read_ref(f"refs/heads/{branch}")


def _put_file(client, full_name: str, path: str, text: str):
    body = {"message": f"add {path}", "content": base64.b64encode(text.encode()).decode()}
    return client.put(f"/repos/{full_name}/contents/{path}", json=body)


def _push(people, token: str, tmp: Path, name: str) -> tuple[int, str]:
    """Clone demo-app, commit one file and push it; (exit code, git's stderr)."""
    work = tmp / name
    cloned = git(tmp, token, "clone", f"{people.url}/{DEMO}.git", str(work))
    assert cloned.returncode == 0, cloned.stderr
    (work / f"{name}.txt").write_text(name)
    assert git(tmp, token, "add", ".", cwd=work).returncode == 0
    assert git(tmp, token, "commit", "-m", name, cwd=work).returncode == 0
    pushed = git(tmp, token, "push", "origin", "HEAD:main", cwd=work)
    return pushed.returncode, pushed.stderr


def test_bob_cannot_write_the_repository_he_may_read(people, tokens, tmp_path):
    before = _head(people, DEMO)
    with api(people.url, tokens["bob"]) as bob:
        repo = bob.get(f"/repos/{DEMO}")
        assert repo.status_code == 200
        assert repo.json()["permissions"] == {
            "admin": False, "maintain": False, "push": False, "triage": False, "pull": True,
        }  # fmt: skip
        refused = _put_file(bob, DEMO, "bob.txt", "bob was here")
        assert refused.status_code == 403
        assert refused.json()["message"] == "Resource not accessible by integration"
        ref = bob.post(f"/repos/{DEMO}/git/refs", json={"ref": "refs/heads/bob", "sha": before})
        assert ref.status_code == 403
    code, stderr = _push(people, tokens["bob"], tmp_path, "bob")
    assert code != 0 and "403" in stderr
    assert _head(people, DEMO) == before  # the forge's branch did not move
    assert people.forge.state.repo("octo-org", "demo-app").git.read_ref("refs/heads/bob") is None


def test_bob_cannot_see_the_private_repository(people, tokens, tmp_path):
    with api(people.url, tokens["bob"]) as bob:
        assert bob.get(f"/repos/{PRIVATE}").status_code == 404
        assert bob.get(f"/repos/{PRIVATE}/contents/README.md").status_code == 404
        listed = {r["full_name"] for r in bob.get("/user/repos").json()}
        assert PRIVATE not in listed
        query = '{ repository(owner: "octo-org", name: "private-notes") { name } }'
        answer = bob.post("/graphql", json={"query": query}).json()
        assert answer["data"]["repository"] is None
        assert answer["errors"][0]["type"] == "NOT_FOUND"
    fetched = git(tmp_path, tokens["bob"], "ls-remote", f"{people.url}/{PRIVATE}.git")
    assert fetched.returncode != 0 and "not found" in fetched.stderr.lower()


def test_alice_administers_the_organisations_repositories(people, tokens, tmp_path):
    with api(people.url, tokens["alice"]) as alice:
        assert alice.get(f"/repos/{PRIVATE}").json()["permissions"]["admin"] is True
        before = _head(people, PRIVATE)
        assert _put_file(alice, PRIVATE, "alice.txt", "hi").status_code == 201
        assert _head(people, PRIVATE) != before
    code, stderr = _push(people, tokens["alice"], tmp_path, "alice")
    assert code == 0, stderr
    demo = people.forge.state.repo("octo-org", "demo-app").git
    entry = demo.entry_at(_head(people, DEMO), "alice.txt")
    assert entry is not None and demo.read_blob(entry.sha) == b"alice"


def test_collaborators_api_grants_and_takes_away_write(people, tokens, tmp_path):
    with api(people.url, tokens["alice"]) as alice, api(people.url, tokens["bob"]) as bob:
        seeded = alice.get(f"/repos/{DEMO}/collaborators/bob/permission").json()
        assert seeded["role_name"] == "read"
        refused = bob.put(f"/repos/{DEMO}/collaborators/bob", json={"permission": "admin"})
        assert refused.status_code == 403
        granted = alice.put(f"/repos/{DEMO}/collaborators/bob", json={"permission": "push"})
        assert granted.status_code == 204  # bob was already a (read) collaborator
        permission = alice.get(f"/repos/{DEMO}/collaborators/bob/permission").json()
        assert (permission["permission"], permission["role_name"]) == ("write", "write")
        assert permission["user"]["login"] == "bob"
        assert alice.get(f"/repos/{DEMO}/collaborators/bob").status_code == 204

        code, stderr = _push(people, tokens["bob"], tmp_path, "bob-writer")
        assert code == 0, stderr
        not_admin = bob.put(f"/repos/{DEMO}/collaborators/alice", json={"permission": "pull"})
        assert not_admin.status_code == 403
        assert not_admin.json()["message"] == "Must have admin rights to Repository."

        assert alice.delete(f"/repos/{DEMO}/collaborators/bob").status_code == 204
        assert people.forge.state.access.collaborator_role(DEMO, "bob") is None
        before = _head(people, DEMO)
        assert _put_file(bob, DEMO, "again.txt", "no").status_code == 403
        assert _head(people, DEMO) == before
        people.forge.add_collaborator(DEMO, "bob", "read")  # as the demo seeded it


def test_oauth_scopes_narrow_the_token(people, tokens):
    with api(people.url, tokens["alice_no_repo_scope"]) as narrow:
        answer = narrow.get("/user")
        assert answer.headers["x-oauth-scopes"] == "read:org"
        assert narrow.get(f"/repos/{PRIVATE}").status_code == 404
        assert _put_file(narrow, DEMO, "scoped.txt", "x").status_code == 403
        assert narrow.get(f"/repos/{DEMO}").status_code == 200


def test_organisation_membership_is_visible_to_its_members(people, tokens):
    with api(people.url, tokens["alice"]) as alice, api(people.url, tokens["bob"]) as bob:
        assert [o["login"] for o in alice.get("/user/orgs").json()] == ["octo-org"]
        assert bob.get("/user/orgs").json() == []
        membership = alice.get("/user/memberships/orgs/octo-org").json()
        assert (membership["state"], membership["role"]) == ("active", "admin")
        assert bob.get("/user/memberships/orgs/octo-org").status_code == 404
        assert alice.get("/orgs/octo-org/members/alice").status_code == 204
        assert alice.get("/orgs/octo-org/members/bob").status_code == 404
        assert bob.get("/orgs/octo-org/members/alice").status_code == 404  # not a member


def test_association_follows_the_model(people):
    state = people.forge.state
    repo = state.repo("octo-org", "demo-app")
    assert association(state, repo, "alice") == "MEMBER"
    assert association(state, repo, "bob") == "COLLABORATOR"
    assert association(state, repo, "octocat") == "NONE"
    assert association(state, repo, "octo-org") == "OWNER"
    assert association(state, repo, None) == "NONE"


def test_sandbox_tokens_keep_their_old_reach_unless_bound_to_roles(people):
    everywhere = people.forge.create_token("bob")
    bound = people.forge.create_token("bob", user_roles=True)
    with api(people.url, everywhere) as legacy, api(people.url, bound) as bounded:
        assert legacy.get(f"/repos/{PRIVATE}").status_code == 200
        assert bounded.get(f"/repos/{PRIVATE}").status_code == 404
        assert bounded.get(f"/repos/{DEMO}").status_code == 200
        refused = _put_file(bounded, DEMO, "pat.txt", "x")
        assert refused.status_code == 403
        assert refused.json()["message"] == "Resource not accessible by personal access token"


def test_branch_protection_changes_need_admin(people):
    writer = people.forge.create_token("bob", user_roles=True)
    people.forge.add_collaborator(DEMO, "bob", "write")
    rules = {
        "required_status_checks": None,
        "enforce_admins": False,
        "required_pull_request_reviews": None,
        "restrictions": None,
    }
    path = f"/repos/{DEMO}/branches/main/protection"
    try:
        with api(people.url, writer) as bob:
            refused = bob.put(path, json=rules)
            assert refused.status_code == 403
            assert refused.json()["message"] == "Must have admin rights to Repository."
            assert (
                people.forge.state.branch_protection(
                    people.forge.state.repo("octo-org", "demo-app"), "main"
                )
                is None
            )
    finally:
        people.forge.add_collaborator(DEMO, "bob", "read")
