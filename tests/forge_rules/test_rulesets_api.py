"""The REST rulesets API and "get rules for a branch", by GitHub's OpenAPI description."""

from __future__ import annotations

from .conftest import LAB, RULESETS, add_ruleset

SIGNED = {"type": "required_signatures"}


def test_create_get_update_list_and_delete_a_ruleset(api):
    created = add_ruleset(
        api,
        "release rules",
        ["refs/heads/release/*"],
        SIGNED,
        {"type": "deletion"},
        bypass_actors=[{"actor_id": 5, "actor_type": "RepositoryRole", "bypass_mode": "always"}],
    )
    assert created["source"] == LAB and created["source_type"] == "Repository"
    assert created["conditions"]["ref_name"]["include"] == ["refs/heads/release/*"]
    assert [r["type"] for r in created["rules"]] == ["required_signatures", "deletion"]
    assert created["current_user_can_bypass"] == "always"  # octocat is lab's admin
    url = f"{RULESETS}/{created['id']}"
    assert api.get(url).json() == created
    updated = api.put(url, json={"enforcement": "disabled", "rules": [{"type": "creation"}]})
    assert updated.status_code == 200, updated.text
    assert updated.json()["enforcement"] == "disabled"
    assert [r["type"] for r in updated.json()["rules"]] == ["creation"]
    listed = api.get(RULESETS).json()
    assert [(r["id"], r["name"]) for r in listed] == [(created["id"], "release rules")]
    assert "rules" not in listed[0]
    assert api.delete(url).status_code == 204
    assert api.get(url).status_code == 404
    assert api.get(RULESETS).json() == []


def test_bad_ruleset_bodies_are_refused_and_nothing_is_stored(api):
    assert api.post(RULESETS, json={"name": "x"}).status_code == 422  # no enforcement
    bad_rule = {"name": "x", "enforcement": "active", "rules": [{"type": "teleport"}]}
    assert api.post(RULESETS, json=bad_rule).status_code == 422
    bad_enforcement = {"name": "x", "enforcement": "sometimes"}
    assert api.post(RULESETS, json=bad_enforcement).status_code == 422
    add_ruleset(api, "one", ["~ALL"])
    duplicate = api.post(RULESETS, json={"name": "one", "enforcement": "active"})
    assert duplicate.status_code == 422
    assert [r["name"] for r in api.get(RULESETS).json()] == ["one"]
    assert api.get(f"{RULESETS}/999999").status_code == 404
    assert api.get(f"{RULESETS}/abc").status_code == 404


def test_rules_for_a_branch_lists_active_rules_that_match_it(api):
    release = add_ruleset(api, "release", ["refs/heads/release/*"], SIGNED)
    add_ruleset(api, "default", ["~DEFAULT_BRANCH"], {"type": "non_fast_forward"})
    add_ruleset(api, "off", ["~ALL"], {"type": "deletion"}, enforcement="disabled")
    deep_set = add_ruleset(api, "deep", ["refs/heads/release/**"], {"type": "creation"})
    rules = api.get(f"/repos/{LAB}/rules/branches/release/1.0").json()
    assert [(r["type"], r["ruleset_id"]) for r in rules] == [
        ("required_signatures", release["id"]),
        ("creation", deep_set["id"]),
    ]
    assert all(r["ruleset_source"] == LAB for r in rules)
    assert all(r["ruleset_source_type"] == "Repository" for r in rules)
    deep = api.get(f"/repos/{LAB}/rules/branches/release/1.0/hotfix").json()
    assert [r["type"] for r in deep] == ["creation"]  # `*` stays in one segment, `**` not
    main = api.get(f"/repos/{LAB}/rules/branches/main").json()
    assert [r["type"] for r in main] == ["non_fast_forward"]
    assert api.get(f"/repos/{LAB}/rules/branches/feature/two").json() == []


def test_only_admins_manage_rulesets(api, lab):
    with lab.client(lab.forge.create_token("octocat", access="read")) as alice:
        refused = alice.post(RULESETS, json={"name": "x", "enforcement": "active"})
    assert refused.status_code == 403
    assert api.get(RULESETS).json() == []
