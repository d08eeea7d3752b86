"""The admin API and in-process helpers for collaboration data."""

from __future__ import annotations

import json

import httpx2

from sandbox_forge.admin import seed_collab

from .conftest import DEMO, LAB, graphql


def test_admin_creates_issues_pulls_and_threads_as_any_user(api, lab):
    admin = lab.admin
    issue = admin.post(
        f"/_sandbox/repos/{LAB}/issues",
        json={"title": "From bob", "user": "bob", "labels": ["question"], "state": "closed"},
    )
    assert issue.status_code == 201, issue.text
    got = api.get(f"/repos/{LAB}/issues/{issue.json()['number']}").json()
    assert got["user"]["login"] == "bob" and got["state"] == "closed"
    admin.post(
        f"/_sandbox/repos/{LAB}/issues/{got['number']}/comments",
        json={"body": "hi", "user": "alice"},
    ).raise_for_status()
    assert (
        api.get(f"/repos/{LAB}/issues/{got['number']}/comments").json()[0]["user"]["login"]
        == "alice"
    )

    pr = admin.post(
        f"/_sandbox/repos/{LAB}/pulls",
        json={"title": "Alice's", "head": "feature/two", "base": "main", "user": "alice"},
    ).json()
    assert pr["node_id"].startswith("PR_")
    review = admin.post(
        f"/_sandbox/repos/{LAB}/pulls/{pr['number']}/reviews",
        json={
            "user": "bob",
            "event": "APPROVE",
            "comments": [{"path": "app.py", "line": 6, "body": "nice"}],
        },
    )
    assert review.status_code == 201 and review.json()["state"] == "APPROVED"
    assert len(review.json()["thread_ids"]) == 1
    thread = review.json()["thread_ids"][0]
    resolved = admin.patch(
        f"/_sandbox/repos/{LAB}/threads/{thread}", json={"resolved": True, "user": "alice"}
    )
    assert resolved.json() == {"thread_id": thread, "resolved": True}
    query = """query($n: Int!) { repository(owner: "octocat", name: "lab") {
        pullRequest(number: $n) { reviewThreads(first: 5) {
        nodes { isResolved resolvedBy { login } } } } } }"""
    nodes = graphql(api, query, n=pr["number"])["data"]["repository"]["pullRequest"][
        "reviewThreads"
    ]["nodes"]
    assert nodes == [{"isResolved": True, "resolvedBy": {"login": "alice"}}]
    bad_line = admin.post(
        f"/_sandbox/repos/{LAB}/pulls/{pr['number']}/threads",
        json={"path": "app.py", "line": 99, "body": "?", "user": "bob"},
    )
    assert bad_line.status_code == 422
    missing = admin.post(f"/_sandbox/repos/{LAB}/pulls", json={"title": "x"})
    assert missing.status_code == 422
    assert admin.post("/_sandbox/repos/octocat/none/issues", json={"title": "x"}).status_code == 404


def test_admin_routes_need_the_admin_token(lab):
    response = httpx2.post(f"{lab.forge.base_url}/_sandbox/repos/{LAB}/issues", json={"title": "x"})
    assert response.status_code == 401
    with lab.client() as user:
        assert user.post(f"/_sandbox/repos/{LAB}/issues", json={"title": "x"}).status_code == 401


def test_in_process_helpers_and_snapshot(lab, tmp_path):
    forge = lab.forge
    pr = seed_collab.create_pull(forge, LAB, "feature/notes", "main", "Notes", user="alice")
    thread = seed_collab.add_review_thread(
        forge,
        LAB,
        pr["number"],
        "notes.txt",
        2,
        "Shouting?",
        user="bob",
        replies=[{"user": "alice", "body": "Yes"}],
    )
    assert thread["thread_id"].startswith("PRRT_") and len(thread["comment_ids"]) == 2
    run = seed_collab.add_workflow_run(
        forge,
        LAB,
        "ci.yml",
        ref="feature/notes",
        event="pull_request",
        jobs=[{"name": "test", "conclusion": "failure"}],
    )
    assert run["conclusion"] == "failure" and set(run["jobs"]) == {"test"}
    done = seed_collab.complete_workflow_run(forge, LAB, run["id"], "success")
    assert done["conclusion"] == "failure"  # already finished jobs keep their result
    seed_collab.set_branch_protection(
        forge, LAB, "main", required_approvals=2, required_checks=["test"]
    )
    assert seed_collab.pull_conflicts(forge, LAB, pr["number"])["mergeable"] is True
    seed_collab.set_mergeability_delay(forge, 0)
    with lab.client() as api:
        state = api.get(f"/repos/{LAB}/pulls/{pr['number']}").json()["mergeable_state"]
        assert state == "blocked"
        refused = api.put(f"/repos/{LAB}/pulls/{pr['number']}/merge")
        assert refused.json()["message"] == (
            "At least 2 approving reviews are required by reviewers with write access."
        )
    saved = json.loads(forge.snapshot(tmp_path / "snap").read_text())
    lab_state = next(r for r in saved["repos"] if r["name"] == "lab")
    assert lab_state["extra"]["collab"]["issues"]["1"]["title"] == "Notes"


def test_demo_summary_is_served(forge, demo):
    admin = httpx2.Client(base_url=forge.base_url, headers={"X-Sandbox-Admin": forge.admin_token})
    served = admin.get("/_sandbox/collab/demo").json()
    assert served["pulls"]["conflicting"]["number"] == 1
    assert served["repo"] == DEMO and served == json.loads(json.dumps(demo))
