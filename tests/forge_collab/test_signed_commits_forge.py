"""The forge's side of verified commits: the rules-for-a-branch endpoint (what a write reads
to learn that signatures are required), createCommitOnBranch signed as web-flow, and the
Contents API signing only a GitHub App's own commits, as GitHub does."""

from __future__ import annotations

import base64
import time

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from sandbox_forge.stores.rulesets import add_ruleset

from .conftest import LAB, graphql

SIGNED = [{"type": "required_signatures"}]


def _repo(lab):
    record = lab.forge.state.repo(*LAB.split("/"))
    assert record is not None
    return record


def test_rules_for_a_branch_lists_active_rules_that_match(api, lab):
    repo = _repo(lab)
    signed = add_ruleset(repo, "signed main", SIGNED)
    add_ruleset(repo, "trial", [{"type": "non_fast_forward"}], ["~ALL"], enforcement="evaluate")
    add_ruleset(repo, "features", [{"type": "deletion"}], ["refs/heads/feature/*"])

    main = api.get(f"/repos/{LAB}/rules/branches/main")
    assert main.status_code == 200
    assert main.json() == [
        {
            "type": "required_signatures",
            "ruleset_source_type": "Repository",
            "ruleset_source": LAB,
            "ruleset_id": signed.id,
        }
    ]
    # A branch name with a slash, and one that does not exist yet: the rules that would apply.
    assert [r["type"] for r in api.get(f"/repos/{LAB}/rules/branches/feature/two").json()] == [
        "deletion"
    ]
    assert api.get(f"/repos/{LAB}/rules/branches/feature/new").json()[0]["type"] == "deletion"
    assert api.get(f"/repos/{LAB}/rules/branches/other").json() == []
    assert api.get("/repos/octocat/missing/rules/branches/main").status_code == 404


CREATE = """
mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}
"""


def test_create_commit_on_branch_is_signed_by_web_flow_for_the_user(api, lab):
    head = lab.head(LAB, "main")
    result = graphql(
        api,
        CREATE,
        input={
            "branch": {"repositoryNameWithOwner": LAB, "branchName": "main"},
            "message": {"headline": "Signed"},
            "expectedHeadOid": head,
            "fileChanges": {"additions": [{"path": "s.txt", "contents": "c2lnbmVk"}]},
        },
    )
    oid = result["data"]["createCommitOnBranch"]["commit"]["oid"]
    commit = api.get(f"/repos/{LAB}/git/commits/{oid}").json()
    assert commit["verification"]["verified"] is True
    assert commit["verification"]["reason"] == "valid"
    assert commit["committer"]["email"] == "noreply@github.com"
    assert commit["author"]["name"] == "The Octocat"
    assert lab.head(LAB, "main") == oid


def _put(client, path: str, **extra):
    body = {"message": f"add {path}", "content": base64.b64encode(b"x\n").decode(), **extra}
    response = client.put(f"/repos/{LAB}/contents/{path}", json=body)
    assert response.status_code == 201, response.text
    return response.json()["commit"]


def _installation_token(lab) -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    lab.forge.register_app(5151, public, 88, repos=[LAB])
    now = int(time.time())
    signed = jwt.encode({"iat": now - 60, "exp": now + 540, "iss": "5151"}, private, "RS256")
    with lab.client("", Authorization=f"Bearer {signed}") as client:
        answer = client.post("/app/installations/88/access_tokens", json={})
    assert answer.status_code == 201, answer.text
    return answer.json()["token"]


def test_contents_api_signs_only_an_apps_own_commits(api, lab):
    # A user's token: GitHub does not sign the Contents API's commits.
    assert _put(api, "by-user.txt")["verification"]["reason"] == "unsigned"
    with lab.client(_installation_token(lab)) as bot:
        own = _put(bot, "by-app.txt")
        custom = _put(bot, "custom.txt", committer={"name": "Ann", "email": "ann@example.com"})
    assert own["verification"]["verified"] is True
    assert own["committer"]["email"] == "noreply@github.com"
    # A custom committer (or author) is not signed for the App.
    assert custom["verification"]["verified"] is False
    assert custom["verification"]["reason"] == "unsigned"
    info = _repo(lab).git.read_commit(own["sha"])
    assert lab.head(LAB, "main") == custom["sha"] and info.signature
