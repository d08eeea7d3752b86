"""One scenario calls every rules endpoint and every ref-moving path a rule refuses, on
the happy path and the refusals; the test checks which GitHub operations and statuses it
exercised, and the fixtures validate each response (and accepted request body) against
GitHub's OpenAPI description."""

from __future__ import annotations

import base64

from tests.forge.contract import operations_covered

from .conftest import LAB, NOT_REST, RULESETS, add_ruleset, heads

EXPECTED = {
    "repos/get-repo-rulesets": {200},
    "repos/create-repo-ruleset": {201, 422},
    "repos/get-repo-ruleset": {200, 404},
    "repos/update-repo-ruleset": {200},
    "repos/delete-repo-ruleset": {204},
    "repos/get-branch-rules": {200},
    "repos/get-commit-signature-protection": {200, 404},
    "repos/create-commit-signature-protection": {200},
    "repos/delete-commit-signature-protection": {204},
    "git/create-ref": {201, 422},
    "git/update-ref": {200, 422},
    "git/delete-ref": {204, 409},
    "repos/create-or-update-file-contents": {201, 409},
    "pulls/merge": {405},
}


def test_rules_endpoints_and_refusals_follow_the_description(api, lab, forge):
    main = heads(lab)["main"]
    ruleset = add_ruleset(
        api,
        "guard",
        ["refs/heads/guarded/**"],
        {"type": "deletion"},
        {"type": "non_fast_forward"},
        {"type": "creation"},
    )
    url = f"{RULESETS}/{ruleset['id']}"
    api.get(RULESETS)
    api.get(url)
    api.get(f"{RULESETS}/1")
    api.post(RULESETS, json={"name": "no enforcement"})
    api.get(f"/repos/{LAB}/rules/branches/guarded/x")
    refs = f"/repos/{LAB}/git/refs"
    api.post(refs, json={"ref": "refs/heads/guarded/x", "sha": main})  # 422: creation
    api.put(url, json={"rules": [{"type": "deletion"}, {"type": "non_fast_forward"}]})
    notes = heads(lab)["feature/notes"]
    api.post(refs, json={"ref": "refs/heads/guarded/x", "sha": notes})  # 201
    api.patch(f"{refs}/heads/feature/two", json={"sha": main, "force": True})  # 200
    api.patch(f"{refs}/heads/guarded/x", json={"sha": main, "force": True})  # 422: rewinds
    api.delete(f"{refs}/heads/guarded/x")  # 409
    api.post(refs, json={"ref": "refs/heads/scratch", "sha": main})
    api.delete(f"{refs}/heads/scratch")  # 204

    signatures = f"/repos/{LAB}/branches/feature/notes/protection/required_signatures"
    api.get(signatures)  # 404: not protected
    protection = {
        "required_status_checks": None,
        "enforce_admins": True,
        "required_pull_request_reviews": None,
        "restrictions": None,
    }
    api.put(f"/repos/{LAB}/branches/feature/notes/protection", json=protection)
    api.post(signatures)
    api.get(signatures)
    content = {"message": "m", "content": base64.b64encode(b"x\n").decode()}
    api.put(f"/repos/{LAB}/contents/x.txt", json={**content, "branch": "feature/notes"})  # 409
    api.delete(signatures)
    api.put(f"/repos/{LAB}/contents/x.txt", json={**content, "branch": "feature/notes"})  # 201

    add_ruleset(api, "signed main", ["~DEFAULT_BRANCH"], {"type": "required_signatures"})
    lab.admin.patch("/_sandbox/collab/settings", json={"mergeability_delay": 0})
    number = api.post(
        f"/repos/{LAB}/pulls", json={"title": "Notes", "head": "feature/notes", "base": "main"}
    ).json()["number"]
    api.put(f"/repos/{LAB}/pulls/{number}/merge", json={"merge_method": "merge"})  # 405
    api.delete(url)

    records = [r for r in forge.responses() if r["path"] not in NOT_REST]
    covered = operations_covered(records)
    missing = {
        op: sorted(statuses - covered.get(op, set()))
        for op, statuses in EXPECTED.items()
        if not statuses <= covered.get(op, set())
    }
    assert not missing, f"operations or statuses not exercised: {missing}"
