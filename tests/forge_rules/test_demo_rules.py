"""The demo repository's release ruleset: listed by the API and enforced by the forge."""

from __future__ import annotations

DEMO = "octo-org/demo-app"


def test_demo_release_branches_carry_an_enforced_ruleset(demo, demo_api, forge):
    listed = demo_api.get(f"/repos/{DEMO}/rulesets").json()
    assert [r["name"] for r in listed] == ["release branches"]
    rules = demo_api.get(f"/repos/{DEMO}/rules/branches/release/1.0").json()
    assert {r["type"] for r in rules} == {
        "deletion",
        "non_fast_forward",
        "required_signatures",
        "pull_request",
    }
    assert demo_api.get(f"/repos/{DEMO}/rules/branches/main").json() == []
    main = demo_api.get(f"/repos/{DEMO}/git/ref/heads/main").json()["object"]["sha"]
    created = demo_api.post(
        f"/repos/{DEMO}/git/refs", json={"ref": "refs/heads/release/1.0", "sha": main}
    )
    assert created.status_code == 201, created.text  # creation is not restricted
    deleted = demo_api.delete(f"/repos/{DEMO}/git/refs/heads/release/1.0")
    assert deleted.status_code == 409
    assert "Cannot delete this branch" in deleted.json()["message"]
    record = forge.state.repo("octo-org", "demo-app")
    assert record.git.read_ref("refs/heads/release/1.0") == main
