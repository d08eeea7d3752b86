"""The contents API, merges, update-branch and GraphQL createCommitOnBranch obey rulesets:
GitHub's status and "Repository rule violations found" message, and no branch moves."""

from __future__ import annotations

import base64

from tests.forge_collab.conftest import graphql

from .conftest import LAB, add_ruleset, heads

PULL_REQUEST = {
    "type": "pull_request",
    "parameters": {
        "required_approving_review_count": 1,
        "dismiss_stale_reviews_on_push": False,
        "require_code_owner_review": False,
        "require_last_push_approval": False,
        "required_review_thread_resolution": False,
    },
}
CHECKS = {
    "type": "required_status_checks",
    "parameters": {
        "required_status_checks": [{"context": "ci"}],
        "strict_required_status_checks_policy": False,
    },
}
SIGNED = {"type": "required_signatures"}


def _rules(*messages: str) -> str:
    return "Repository rule violations found\n\n" + "".join(f"{m}\n\n" for m in messages)


def _put_file(api, branch: str, text: str = "new\n"):
    body = {
        "message": "Add a file",
        "content": base64.b64encode(text.encode()).decode(),
        "branch": branch,
    }
    return api.put(f"/repos/{LAB}/contents/added.txt", json=body)


def test_contents_api_gets_409_from_rules_and_classic_signatures(api, lab):
    add_ruleset(api, "main", ["~DEFAULT_BRANCH"], PULL_REQUEST)
    before = heads(lab)
    refused = _put_file(api, "main")
    assert refused.status_code == 409
    assert refused.json()["message"] == _rules("Changes must be made through a pull request.")
    assert refused.json()["documentation_url"].endswith("#create-or-update-file-contents")
    readme = api.get(f"/repos/{LAB}/contents/README.md").json()["sha"]
    deleted = api.request(
        "DELETE", f"/repos/{LAB}/contents/README.md", json={"message": "Remove", "sha": readme}
    )
    assert deleted.status_code == 409
    assert deleted.json()["message"] == _rules("Changes must be made through a pull request.")
    api.put(
        f"/repos/{LAB}/branches/feature/notes/protection",
        json={
            "required_status_checks": None,
            "enforce_admins": True,
            "required_pull_request_reviews": None,
            "restrictions": None,
            "required_signatures": True,
        },
    ).raise_for_status()
    unsigned = _put_file(api, "feature/notes")  # a user's contents commit is not signed
    assert unsigned.status_code == 409
    assert unsigned.json()["message"].endswith("Commits must have verified signatures.")
    assert heads(lab) == before
    assert api.get(f"/repos/{LAB}/contents/added.txt", params={"ref": "main"}).status_code == 404
    assert _put_file(api, "feature/two").status_code == 201  # unruled branches still take it


def test_merge_waits_for_ruleset_reviews_and_checks(api, lab):
    add_ruleset(api, "main", ["~DEFAULT_BRANCH"], PULL_REQUEST, CHECKS)
    lab.admin.patch("/_sandbox/collab/settings", json={"mergeability_delay": 0})
    number = api.post(
        f"/repos/{LAB}/pulls", json={"title": "Two", "head": "feature/two", "base": "main"}
    ).json()["number"]
    url = f"/repos/{LAB}/pulls/{number}"
    before = heads(lab)
    refused = api.put(f"{url}/merge")
    assert refused.status_code == 405
    assert refused.json()["message"] == _rules(
        "At least 1 approving review is required by reviewers with write access.",
        'Required status check "ci" is expected.',
    )
    with lab.client(lab.forge.create_token("alice")) as alice:
        assert alice.post(f"{url}/reviews", json={"event": "APPROVE"}).status_code == 200
    still = api.put(f"{url}/merge")
    assert still.json()["message"] == _rules('Required status check "ci" is expected.')
    assert heads(lab) == before
    lab.admin.post(
        f"/_sandbox/repos/{LAB}/check-runs",
        json={"head_sha": before["feature/two"], "name": "ci", "conclusion": "success"},
    ).raise_for_status()
    merged = api.put(f"{url}/merge", json={"merge_method": "squash"})
    assert merged.status_code == 200, merged.text
    assert heads(lab)["main"] == merged.json()["sha"]


def test_required_signatures_refuses_merging_unsigned_commits_but_not_a_squash(api, lab):
    add_ruleset(api, "signed", ["~DEFAULT_BRANCH"], SIGNED)
    lab.admin.patch("/_sandbox/collab/settings", json={"mergeability_delay": 0})
    number = api.post(
        f"/repos/{LAB}/pulls", json={"title": "Two", "head": "feature/two", "base": "main"}
    ).json()["number"]
    url = f"/repos/{LAB}/pulls/{number}"
    before = heads(lab)
    refused = api.put(f"{url}/merge", json={"merge_method": "merge"})
    assert refused.status_code == 405
    assert refused.json()["message"] == _rules("Commits must have verified signatures.")
    assert heads(lab) == before
    squashed = api.put(f"{url}/merge", json={"merge_method": "squash"})  # web-flow signed
    assert squashed.status_code == 200, squashed.text
    commit = api.get(f"/repos/{LAB}/git/commits/{squashed.json()['sha']}").json()
    assert commit["verification"]["verified"] is True


def test_update_branch_obeys_the_head_branch_rules(api, lab):
    lab.admin.patch("/_sandbox/collab/settings", json={"mergeability_delay": 0})
    number = api.post(
        f"/repos/{LAB}/pulls", json={"title": "Two", "head": "feature/two", "base": "main"}
    ).json()["number"]
    lab.commit(api, LAB, "main", "README.md", "# lab\n\nmoved on\n")
    add_ruleset(api, "frozen", ["refs/heads/feature/*"], {"type": "update"})
    before = heads(lab)
    refused = api.put(f"/repos/{LAB}/pulls/{number}/update-branch")
    assert refused.status_code == 422
    assert refused.json()["message"] == _rules("Cannot update this protected ref.")
    assert heads(lab) == before


CREATE = """
mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}
"""


def _create_commit(api, branch: str, head: str) -> dict:
    return graphql(
        api,
        CREATE,
        input={
            "branch": {"repositoryNameWithOwner": LAB, "branchName": branch},
            "expectedHeadOid": head,
            "message": {"headline": "Signed edit"},
            "fileChanges": {
                "additions": [{"path": "added.txt", "contents": base64.b64encode(b"x\n").decode()}]
            },
        },
    )


def test_create_commit_on_branch_meets_signatures_but_not_a_pull_request_rule(api, lab):
    add_ruleset(api, "signed", ["refs/heads/feature/*"], SIGNED)
    add_ruleset(api, "main", ["~DEFAULT_BRANCH"], SIGNED, PULL_REQUEST)
    before = heads(lab)
    refused = _create_commit(api, "main", before["main"])
    assert refused["data"] is None or refused["data"]["createCommitOnBranch"] is None
    error = refused["errors"][0]
    assert error["type"] == "UNPROCESSABLE"
    assert error["message"] == _rules("Changes must be made through a pull request.")
    assert heads(lab) == before
    signed = _create_commit(api, "feature/two", before["feature/two"])
    assert "errors" not in signed, signed
    assert heads(lab)["feature/two"] == signed["data"]["createCommitOnBranch"]["commit"]["oid"]


def test_a_tag_ruleset_refuses_a_release_that_would_create_its_tag(api, lab):
    created = api.post(
        f"/repos/{LAB}/rulesets",
        json={
            "name": "tags",
            "target": "tag",
            "enforcement": "active",
            "conditions": {"ref_name": {"include": ["refs/tags/v*"], "exclude": []}},
            "rules": [{"type": "creation"}],
        },
    )
    assert created.status_code == 201, created.text
    refused = api.post(f"/repos/{LAB}/releases", json={"tag_name": "v1.0"})
    assert refused.status_code == 422
    error = refused.json()["errors"][0]
    assert error["field"] == "pre_receive"
    assert error["message"] == "pre_receive " + _rules(
        "Cannot create ref due to creations being restricted."
    )
    record = lab.forge.state.repo("octocat", "lab")
    assert record.git.read_ref("refs/tags/v1.0") is None
    assert api.get(f"/repos/{LAB}/releases").json() == []
    assert api.post(f"/repos/{LAB}/releases", json={"tag_name": "other-1"}).status_code == 201
