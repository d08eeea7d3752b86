"""REST ref updates obey rulesets and classic protection: GitHub's 422 with its messages,
and the branch heads (read from the forge's git state) do not move."""

from __future__ import annotations

from .conftest import LAB, add_ruleset, heads

REFS = f"/repos/{LAB}/git/refs"


def _unsigned_commit(api, parent: str, message: str = "unsigned") -> str:
    tree = api.get(f"/repos/{LAB}/git/commits/{parent}").json()["tree"]["sha"]
    made = api.post(
        f"/repos/{LAB}/git/commits", json={"message": message, "tree": tree, "parents": [parent]}
    )
    assert made.status_code == 201, made.text
    return made.json()["sha"]


def _violation(response, *messages: str, status: int = 422) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    expected = "Repository rule violations found\n\n" + "".join(f"{m}\n\n" for m in messages)
    assert body["message"] == expected
    assert body["documentation_url"].startswith("https://docs.github.com/rest/git/refs")


def test_ruleset_refuses_deletion_force_push_and_creation(api, lab):
    add_ruleset(
        api, "keep", ["refs/heads/feature/*"], {"type": "deletion"}, {"type": "non_fast_forward"}
    )
    add_ruleset(api, "no new releases", ["refs/heads/release/**"], {"type": "creation"})
    before = heads(lab)
    _violation(api.delete(f"{REFS}/heads/feature/two"), "Cannot delete this branch", status=409)
    rewound = api.patch(f"{REFS}/heads/feature/two", json={"sha": before["main"], "force": True})
    _violation(rewound, "Cannot force-push to this branch")
    created = api.post(REFS, json={"ref": "refs/heads/release/1.0", "sha": before["main"]})
    _violation(created, "Cannot create ref due to creations being restricted.")
    assert heads(lab) == before
    # Paths the rules do not cover still work.
    assert (
        api.post(REFS, json={"ref": "refs/heads/other", "sha": before["main"]}).status_code == 201
    )
    ahead = _unsigned_commit(api, before["feature/two"])
    moved = api.patch(f"{REFS}/heads/feature/two", json={"sha": ahead})
    assert moved.status_code == 200, moved.text
    assert heads(lab)["feature/two"] == ahead


def test_required_signatures_and_pull_request_rules_on_main(api, lab):
    add_ruleset(
        api,
        "main",
        ["~DEFAULT_BRANCH"],
        {"type": "required_signatures"},
        {
            "type": "pull_request",
            "parameters": {
                "required_approving_review_count": 1,
                "dismiss_stale_reviews_on_push": False,
                "require_code_owner_review": False,
                "require_last_push_approval": False,
                "required_review_thread_resolution": False,
            },
        },
    )
    before = heads(lab)
    commit = _unsigned_commit(api, before["main"])
    _violation(
        api.patch(f"{REFS}/heads/main", json={"sha": commit}),
        "Commits must have verified signatures.",
        "Changes must be made through a pull request.",
    )
    assert heads(lab) == before


def test_disabled_rulesets_and_admin_bypass_let_updates_through(api, lab):
    add_ruleset(api, "off", ["~ALL"], {"type": "deletion"}, enforcement="disabled")
    add_ruleset(
        api,
        "admins may",
        ["refs/heads/feature/notes"],
        {"type": "deletion"},
        bypass_actors=[{"actor_id": 5, "actor_type": "RepositoryRole", "bypass_mode": "always"}],
    )
    assert api.delete(f"{REFS}/heads/feature/notes").status_code == 204
    assert api.delete(f"{REFS}/heads/feature/two").status_code == 204
    assert set(heads(lab)) == {"main"}


def test_classic_protection_refuses_deletion_force_push_and_unsigned_commits(api, lab):
    body = {
        "required_status_checks": None,
        "enforce_admins": True,
        "required_pull_request_reviews": None,
        "restrictions": None,
    }
    assert api.put(f"/repos/{LAB}/branches/feature/two/protection", json=body).status_code == 200
    signatures = f"/repos/{LAB}/branches/feature/two/protection/required_signatures"
    assert api.get(signatures).json()["enabled"] is False
    turned_on = api.post(signatures)
    assert turned_on.status_code == 200 and turned_on.json()["enabled"] is True
    before = heads(lab)
    deleted = api.delete(f"{REFS}/heads/feature/two")
    assert deleted.status_code == 409
    assert deleted.json()["message"] == (
        "Protected branch update failed for refs/heads/feature/two.\n\n"
        "Cannot delete a protected branch"
    )
    forced = api.patch(f"{REFS}/heads/feature/two", json={"sha": before["main"], "force": True})
    assert forced.status_code == 422
    assert "Cannot force-push to this protected branch" in forced.json()["message"]
    unsigned = api.patch(
        f"{REFS}/heads/feature/two", json={"sha": _unsigned_commit(api, before["feature/two"])}
    )
    assert unsigned.status_code == 422
    assert unsigned.json()["message"].endswith("Commits must have verified signatures.")
    assert heads(lab) == before
    assert api.delete(signatures).status_code == 204
    assert api.get(signatures).json()["enabled"] is False
    ahead = _unsigned_commit(api, before["feature/two"])
    assert api.patch(f"{REFS}/heads/feature/two", json={"sha": ahead}).status_code == 200
    assert api.get(f"/repos/{LAB}/branches/main/protection/required_signatures").status_code == 404


def test_admins_pass_classic_protection_unless_it_is_enforced_for_them(api, lab):
    body = {
        "required_status_checks": None,
        "enforce_admins": False,
        "required_pull_request_reviews": None,
        "restrictions": None,
    }
    assert api.put(f"/repos/{LAB}/branches/feature/two/protection", json=body).status_code == 200
    assert api.delete(f"{REFS}/heads/feature/two").status_code == 204
