"""The forge's single-label endpoints as GitHub has them: get, update (a rename reaches the
issues carrying the label), delete (removed from them too), and the error shapes. The
`forge` fixture validates every recorded response against GitHub's OpenAPI description;
request bodies are validated here."""

from __future__ import annotations

from tests.forge.contract import validate_request_bodies

from .conftest import DEMO

REPO = f"/repos/{DEMO}"


def test_rename_and_delete_reach_the_issues(forge, demo, demo_api):
    bug = demo["issues"]["bug"]
    assert demo_api.get(f"{REPO}/labels/bug").json()["description"] == "Something isn't working"
    renamed = demo_api.patch(f"{REPO}/labels/bug", json={"new_name": "defect", "color": "#00FF00"})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["name"] == "defect" and renamed.json()["color"] == "00ff00"
    issue_labels = [lb["name"] for lb in demo_api.get(f"{REPO}/issues/{bug}").json()["labels"]]
    assert issue_labels == ["defect"]
    assert demo_api.get(f"{REPO}/labels/bug").status_code == 404
    assert demo_api.get(f"{REPO}/labels/area%2Fweb").json()["name"] == "area/web"
    assert demo_api.delete(f"{REPO}/labels/defect").status_code == 204
    assert demo_api.get(f"{REPO}/issues/{bug}").json()["labels"] == []
    assert validate_request_bodies(forge.responses()) == []


def test_bad_label_updates_get_githubs_errors(forge, demo, demo_api):
    taken = demo_api.patch(f"{REPO}/labels/bug", json={"new_name": "Enhancement"})
    colour = demo_api.patch(f"{REPO}/labels/bug", json={"color": "red"})
    wrong_type = demo_api.patch(f"{REPO}/labels/bug", json={"description": 5})
    too_long = demo_api.patch(f"{REPO}/labels/bug", json={"description": "x" * 101})
    assert [r.status_code for r in (taken, colour, wrong_type, too_long)] == [422] * 4
    assert taken.json()["errors"][0]["code"] == "already_exists"
    assert demo_api.delete(f"{REPO}/labels/missing").status_code == 404
    assert demo_api.get(f"{REPO}/labels/bug").json()["color"] == "d73a4a"  # unchanged
    reader = forge.create_token("bob", user_roles=True)
    denied = demo_api.delete(f"{REPO}/labels/bug", headers={"Authorization": f"token {reader}"})
    assert denied.status_code == 403
    assert demo_api.get(f"{REPO}/labels/bug").status_code == 200
