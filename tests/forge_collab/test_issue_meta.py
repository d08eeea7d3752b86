"""The forge's issue types, issue fields, assignees (with Copilot's bot) and code quality
endpoints, by GitHub's OpenAPI description: every operation exercised on its happy path and
main errors (the `forge` fixture validates each recorded response), bad bodies answered 422
with nothing changed, and what a role-bound token may not see kept hidden. The Copilot
review request's 422, which GitHub documents without a body, is in test_tools_copilot.py."""

from __future__ import annotations

from sandbox_forge.stores import copilot
from sandbox_forge.stores import issue_meta as meta
from tests.forge.contract import operations_covered, validate_request_bodies

from .conftest import DEMO, NOT_REST

EXPECTED = {
    "orgs/list-issue-types": {200, 404},
    "repos/list-issue-types": {200},
    "orgs/list-issue-fields": {200, 404},
    "issues/list-issue-field-values-for-issue": {200},
    "issues/add-issue-field-values": {200, 422},
    "issues/set-issue-field-values": {200, 422},
    "issues/delete-issue-field-value": {204, 404},
    "issues/add-assignees": {201},
    "issues/remove-assignees": {200},
    "issues/check-user-can-be-assigned": {204, 404},
    "code-quality/list-findings-for-repo": {200, 403},
    "code-quality/get-finding": {200, 404},
}


def _ids(forge) -> dict[str, int]:
    return {f.name: f.id for f in meta.org_fields(forge.state, "octo-org")}


def _issue(forge, number: int):
    repo = forge.state.repo("octo-org", "demo-app")
    return repo.extra["collab"].issues[number]


def test_every_operation_is_exercised(forge, demo, demo_api):
    repo, bug = f"/repos/{DEMO}", demo["issues"]["bug"]
    ids, values = _ids(forge), f"/repos/{DEMO}/issues/{bug}/issue-field-values"
    demo_api.get("/orgs/octo-org/issue-types")
    demo_api.get("/orgs/no-such-org/issue-types")
    demo_api.get(f"{repo}/issue-types")
    demo_api.get("/orgs/octo-org/issue-fields")
    demo_api.get("/orgs/octocat/issue-fields")  # a user, not an organisation
    demo_api.get(values)
    demo_api.post(values, json={"issue_field_values": [{"field_id": ids["Estimate"], "value": 5}]})
    demo_api.post(values, json={"issue_field_values": [{"field_id": 1, "value": "x"}]})
    target = {"field_id": ids["Target date"], "value": "2030-06-01"}
    demo_api.put(values, json={"issue_field_values": [target]})
    demo_api.put(values, json={"issue_field_values": [{"field_id": ids["Estimate"], "value": "x"}]})
    demo_api.delete(f"{values}/{ids['Target date']}")
    demo_api.delete(f"{values}/{ids['Target date']}")
    assignees = f"{repo}/issues/{bug}/assignees"
    demo_api.post(assignees, json={"assignees": ["copilot-swe-agent[bot]"]})
    demo_api.request("DELETE", assignees, json={"assignees": ["copilot-swe-agent[bot]"]})
    demo_api.get(f"{repo}/assignees/copilot-swe-agent[bot]")
    demo_api.get(f"{repo}/assignees/nobody-at-all")
    demo_api.get(f"{repo}/code-quality/findings")
    demo_api.get(f"{repo}/code-quality/findings/1")
    demo_api.get(f"{repo}/code-quality/findings/99")
    demo_api.get("/repos/octo-org/private-notes/code-quality/findings")

    records = [r for r in forge.responses() if r["path"] not in NOT_REST]
    covered = operations_covered(records)
    missing = {
        op: sorted(statuses - covered.get(op, set()))
        for op, statuses in EXPECTED.items()
        if not statuses <= covered.get(op, set())
    }
    assert not missing, f"operations or statuses not exercised: {missing}"
    assert validate_request_bodies([r for r in records if r["status"] < 400]) == []
    assert meta.values_of(forge.state, _issue(forge, bug).id) == {}  # PUT replaced, then deleted


def test_bad_bodies_get_422_and_change_nothing(forge, demo, demo_api):
    bug = demo["issues"]["bug"]
    ids, issue = _ids(forge), _issue(forge, bug)
    before = dict(meta.values_of(forge.state, issue.id))
    values = f"/repos/{DEMO}/issues/{bug}/issue-field-values"
    priority, estimate = ids["Priority"], ids["Estimate"]
    bodies = [
        {},
        {"issue_field_values": "P0"},
        {"issue_field_values": [{"field_id": str(priority), "value": "P0"}]},
        {"issue_field_values": [{"field_id": priority, "value": "P9"}]},
        {"issue_field_values": [{"field_id": priority, "value": "P0", "extra": 1}]},
        {"issue_field_values": [{"field_id": estimate, "value": True}]},
        {"issue_field_values": [{"field_id": estimate, "value": 1}] * 26},
        {"issue_field_values": [{"field_id": ids["Target date"], "value": "soon"}]},
    ]
    for body in bodies:
        assert demo_api.post(values, json=body).status_code == 422, body
        assert demo_api.put(values, json=body).status_code == 422, body
    assert meta.values_of(forge.state, issue.id) == before
    url = f"/repos/{DEMO}/issues/{bug}"
    for kind in ("Epic", 7, {"value": "Bug", "confidence": "sure"}):
        assert demo_api.patch(url, json={"type": kind}).status_code == 422, kind
    assert meta.type_of(forge.state, "octo-org", issue.id).name == "Bug"
    assignees = f"{url}/assignees"
    for body in (
        {"assignees": "Copilot"},
        {"assignees": [{"login": 7}]},
        {"assignees": ["copilot-swe-agent[bot]"], "agent_assignment": {"base_branch": "nope"}},
        {"assignees": ["copilot-swe-agent[bot]"], "agent_assignment": {"target_repo": "a/b"}},
    ):
        assert demo_api.post(assignees, json=body).status_code == 422, body
    assert copilot.AGENT not in issue.assignees


def test_copilot_only_where_enabled_and_types_only_for_members(lab, forge, demo, demo_api):
    copilot.enable(forge.state, DEMO, on=False)
    try:
        bug = f"/repos/{DEMO}/issues/{demo['issues']['bug']}"
        refused = demo_api.patch(bug, json={"assignees": ["copilot-swe-agent[bot]"]})
        check = demo_api.get(f"/repos/{DEMO}/assignees/copilot-swe-agent[bot]")
    finally:
        copilot.enable(forge.state, DEMO)
    assert refused.status_code == 422 and check.status_code == 404
    bob = forge.create_token("bob", user_roles=True)  # reads demo-app, not in octo-org
    with lab.client(bob) as client:
        assert client.get("/orgs/octo-org/issue-types").status_code == 404
        assert client.get("/orgs/octo-org/issue-fields").status_code == 404
        assert client.get(f"/repos/{DEMO}/issue-types").status_code == 200
        values = f"/repos/{DEMO}/issues/{demo['issues']['bug']}/issue-field-values"
        write = client.put(values, json={"issue_field_values": []})
    assert write.status_code == 403  # push access needed, as documented
    assert meta.values_of(forge.state, _issue(forge, demo["issues"]["bug"]).id)
