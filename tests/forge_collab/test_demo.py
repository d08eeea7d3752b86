"""The demo the server is tried against: seeded whole, and shaped as its summary says."""

from __future__ import annotations

import unicodedata

from sandbox_forge import Forge
from sandbox_forge.admin.seed import seed_demo

from .conftest import DEMO, graphql

THREADS = """
query { repository(owner: "octo-org", name: "demo-app") { pullRequest(number: 1) {
  reviewThreads(first: 50) { nodes { id isResolved path comments(first: 5) { totalCount } } }
} } }
"""


STATE = """
query { repository(owner: "octo-org", name: "demo-app") { pullRequest(number: 1) {
  mergeable mergeStateStatus reviewDecision state headRefName baseRefName
} } }
"""


def test_demo_seeds_every_area_on_a_fresh_forge():
    # How fast it seeds is measured by bench/demo_seed.py, not asserted here.
    with Forge() as forge:
        seed_demo(forge)
        seeded = set(forge.state.extensions)
    assert {"collab_demo", "breadth_demo", "breadth_people", "projects_v2"} <= seeded


def test_pull_request_one_conflicts_and_fails_ci(demo_api, demo, forge):
    pr = demo["pulls"]["conflicting"]
    assert (pr["number"], pr["head"], pr["base"]) == (1, "feature/cart-and-inventory", "main")
    demo_api.get(f"/repos/{DEMO}/pulls/1")  # the first GET only starts the computation
    got = demo_api.get(f"/repos/{DEMO}/pulls/1").json()
    assert got["mergeable"] is False and got["mergeable_state"] == "dirty"
    assert got["user"]["login"] == "alice" and got["commits"] == 3
    admin = {"Authorization": f"Bearer {forge.admin_token}"}
    conflicts = demo_api.get(f"/_sandbox/repos/{DEMO}/pulls/1/conflicts", headers=admin).json()
    assert conflicts["conflicts"] == ["src/demo_app/calc.py"]

    jobs = demo_api.get(f"/repos/{DEMO}/actions/runs/{demo['runs']['pr1']['id']}/jobs").json()
    failed = sorted(j["name"] for j in jobs["jobs"] if j["conclusion"] == "failure")
    assert failed == ["test-js", "test-python"]
    python_log = demo_api.get(
        f"/repos/{DEMO}/actions/jobs/{demo['runs']['pr1']['jobs']['test-python']}/logs",
        follow_redirects=True,
    ).text
    assert "##[group]Run pytest" in python_log
    assert "FAILED tests/test_inventory.py::" in python_log
    assert "##[error]Process completed with exit code 1." in python_log
    assert "rootdir: /home/runner/work/demo-app/demo-app" in python_log
    assert "/work/main" not in python_log  # the runner's paths, not this machine's


def test_review_threads_two_open_one_resolved(demo_api, demo):
    nodes = graphql(demo_api, THREADS)["data"]["repository"]["pullRequest"]["reviewThreads"][
        "nodes"
    ]
    assert sorted(n["id"] for n in nodes if not n["isResolved"]) == sorted(
        demo["threads"]["unresolved"]
    )
    assert [n["id"] for n in nodes if n["isResolved"]] == demo["threads"]["resolved"]
    assert all(n["id"].startswith("PRRT_") for n in nodes)
    assert [n["comments"]["totalCount"] for n in nodes] == [2, 1, 2]
    reviews = demo_api.get(f"/repos/{DEMO}/pulls/1/reviews").json()
    assert ("bob", "CHANGES_REQUESTED") in {(r["user"]["login"], r["state"]) for r in reviews}
    before = graphql(demo_api, STATE)["data"]["repository"]["pullRequest"]
    assert before["mergeable"] == "UNKNOWN" and before["mergeStateStatus"] == "UNKNOWN"
    demo_api.get(f"/repos/{DEMO}/pulls/1")
    demo_api.get(f"/repos/{DEMO}/pulls/1")
    after = graphql(demo_api, STATE)["data"]["repository"]["pullRequest"]
    assert after == {
        "mergeable": "CONFLICTING",
        "mergeStateStatus": "DIRTY",
        "reviewDecision": "CHANGES_REQUESTED",
        "state": "OPEN",
        "headRefName": "feature/cart-and-inventory",
        "baseRefName": "main",
    }


def test_stacked_pull_request_and_protection(demo_api, demo):
    stacked = demo_api.get(f"/repos/{DEMO}/pulls/2").json()
    assert stacked["base"]["ref"] == demo["pulls"]["conflicting"]["head"]
    assert stacked["head"]["ref"] == "feature/cart-discounts"
    assert stacked["commits"] == 1
    protection = demo_api.get(f"/repos/{DEMO}/branches/main/protection").json()
    assert protection["required_pull_request_reviews"]["required_approving_review_count"] == 1
    assert protection["required_status_checks"]["contexts"] == ["test-python", "test-js", "lint"]
    combined = demo_api.get(
        f"/repos/{DEMO}/commits/{demo['pulls']['conflicting']['head_sha']}/status"
    ).json()
    assert combined["state"] == "failure"


def test_issue_with_hidden_instructions(forge, demo_api, demo):
    number = demo["issues"]["hidden_instruction"]
    body = demo_api.get(f"/repos/{DEMO}/issues/{number}").json()["body"]
    invisible = [c for c in body if unicodedata.category(c) == "Cf"]
    assert any(0xE0000 <= ord(c) <= 0xE007F for c in invisible)  # tag characters
    assert "\u200b" in invisible and "\u202e" in invisible  # zero-width and bidi override
    visible = "".join(c for c in body if unicodedata.category(c) != "Cf")
    assert "Ignore all previous instructions" not in visible
    decoded = "".join(chr(ord(c) - 0xE0000) for c in body if 0xE0020 <= ord(c) <= 0xE007E)
    assert decoded == demo["hidden_texts"][0]
    issues = demo_api.get(f"/repos/{DEMO}/issues", params={"state": "all"}).json()
    merged = forge.state.extensions["breadth_demo"]["merged_pull"]  # the releases demo's PR
    planning = forge.state.extensions["planning_demo"]  # the tracking issue and its notes
    extra = {planning["parent"], planning["blocked"]["issue"]}
    extra.add(forge.state.extensions["demo_repos"]["closed_pull"])  # the reopen demo's PR
    assert {i["number"] for i in issues} == {1, 2, 3, 4, 5, 6, merged, *extra}
