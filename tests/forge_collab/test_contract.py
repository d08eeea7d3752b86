"""One scenario calls every collaboration endpoint, on its happy path and main errors, and
checks which GitHub operations (and statuses) it exercised. The `forge` fixture then
validates every recorded response against GitHub's OpenAPI description."""

from __future__ import annotations

from tests.forge.contract import operations_covered

from .conftest import DEMO, NOT_REST

EXPECTED = {
    "issues/list-for-repo": {200},
    "issues/create": {201, 422},
    "issues/get": {200, 404},
    "issues/update": {200, 422},
    "issues/list-comments": {200},
    "issues/create-comment": {201},
    "issues/add-labels": {200},
    "issues/list-labels-for-repo": {200},
    "search/issues-and-pull-requests": {200, 422},
    "pulls/list": {200},
    "pulls/create": {201, 422},
    "pulls/get": {200, 404},
    "pulls/update": {200, 422},
    "pulls/list-files": {200},
    "pulls/list-commits": {200},
    "pulls/merge": {200, 405, 409},
    "pulls/check-if-merged": {204, 404},
    "pulls/list-reviews": {200},
    "pulls/create-review": {200, 422},
    "pulls/list-review-comments": {200},
    "pulls/create-review-comment": {201, 422},
    "pulls/create-reply-for-review-comment": {201},
    "checks/list-for-ref": {200},
    "checks/list-suites-for-ref": {200},
    "checks/get": {200, 404},
    "repos/get-combined-status-for-ref": {200},
    "repos/list-commit-statuses-for-ref": {200},
    "repos/create-commit-status": {201, 422},
    "actions/list-workflow-runs-for-repo": {200},
    "actions/get-workflow-run": {200, 404},
    "actions/list-jobs-for-workflow-run": {200},
    "actions/get-job-for-workflow-run": {200},
    "actions/download-job-logs-for-workflow-run": {302},
    "actions/re-run-workflow-failed-jobs": {201},
    "actions/create-workflow-dispatch": {204, 422},
    "actions/list-repo-workflows": {200},
    "actions/get-workflow-run-attempt": {200},
    "repos/get-branch-protection": {200, 404},
    "repos/list-branches": {200},
}


def test_every_collaboration_operation_is_exercised(forge, demo, demo_api):
    api, repo = demo_api, f"/repos/{DEMO}"
    pr1, pr2 = demo["pulls"]["conflicting"], demo["pulls"]["stacked"]
    run_id = demo["runs"]["pr1"]["id"]
    job_id = demo["runs"]["pr1"]["jobs"]["test-python"]

    api.get(f"{repo}/issues", params={"state": "all"})
    issue = api.post(f"{repo}/issues", json={"title": "Contract", "labels": ["bug"]}).json()
    api.post(f"{repo}/issues", json={})
    api.get(f"{repo}/issues/{issue['number']}")
    api.get(f"{repo}/issues/999")
    api.patch(f"{repo}/issues/{issue['number']}", json={"state": "closed"})
    api.patch(f"{repo}/issues/{issue['number']}", json={"state": "gone"})
    api.post(f"{repo}/issues/{issue['number']}/comments", json={"body": "note"})
    api.get(f"{repo}/issues/{issue['number']}/comments")
    api.post(f"{repo}/issues/{issue['number']}/labels", json={"labels": ["later"]})
    api.get(f"{repo}/labels")
    api.get("/search/issues", params={"q": f"repo:{DEMO} is:pr is:open"})
    api.get("/search/issues", params={"q": ""})

    api.get(f"{repo}/pulls", params={"state": "all"})
    api.post(f"{repo}/pulls", json={"title": "dup", "head": pr1["head"], "base": "main"})
    fresh = api.post(
        f"{repo}/pulls", json={"title": "Mult", "head": "feature/multiply", "base": pr1["head"]}
    ).json()
    api.get(f"{repo}/pulls/{pr1['number']}")
    api.get(f"{repo}/pulls/{pr1['number']}")
    api.get(f"{repo}/pulls/999")
    api.patch(f"{repo}/pulls/{fresh['number']}", json={"title": "Multiply"})
    api.patch(f"{repo}/pulls/{fresh['number']}", json={"base": "nope"})
    api.get(f"{repo}/pulls/{pr1['number']}/files")
    api.get(f"{repo}/pulls/{pr1['number']}/commits")
    api.put(f"{repo}/pulls/{pr1['number']}/merge")
    api.put(f"{repo}/pulls/{pr2['number']}/merge", json={"sha": "0" * 40})
    api.get(f"{repo}/pulls/{pr2['number']}/merge")
    merged = api.put(f"{repo}/pulls/{pr2['number']}/merge", json={"merge_method": "squash"})
    assert merged.status_code == 200, merged.text
    api.get(f"{repo}/pulls/{pr2['number']}/merge")

    api.get(f"{repo}/pulls/{pr1['number']}/reviews")
    api.post(f"{repo}/pulls/{pr1['number']}/reviews", json={"event": "APPROVE"})
    api.post(f"{repo}/pulls/{fresh['number']}/reviews", json={"event": "APPROVE"})
    comments = api.get(f"{repo}/pulls/{pr1['number']}/comments").json()
    api.post(
        f"{repo}/pulls/{pr1['number']}/comments",
        json={"body": "x", "commit_id": pr1["head_sha"], "path": "web/src/cart.js", "line": 500},
    )
    api.post(
        f"{repo}/pulls/{pr1['number']}/comments",
        json={
            "body": "and here",
            "commit_id": pr1["head_sha"],
            "path": "web/src/cart.js",
            "line": 1,
        },
    )
    api.post(
        f"{repo}/pulls/{pr1['number']}/comments/{comments[0]['id']}/replies", json={"body": "ok"}
    )

    head = pr1["head_sha"]
    api.get(f"{repo}/commits/{head}/check-runs")
    api.get(f"{repo}/commits/{head}/check-suites")
    api.get(f"{repo}/check-runs/{job_id}")
    api.get(f"{repo}/check-runs/1")
    api.get(f"{repo}/commits/{head}/status")
    api.get(f"{repo}/commits/{head}/statuses")
    api.post(f"{repo}/statuses/{head}", json={"state": "pending", "context": "contract"})
    api.post(f"{repo}/statuses/{head}", json={"state": "meh"})

    api.get(f"{repo}/actions/runs", params={"status": "failure"})
    api.get(f"{repo}/actions/runs/{run_id}")
    api.get(f"{repo}/actions/runs/1")
    api.get(f"{repo}/actions/runs/{run_id}/jobs")
    api.get(f"{repo}/actions/jobs/{job_id}")
    api.get(f"{repo}/actions/jobs/{job_id}/logs")
    api.post(f"{repo}/actions/runs/{run_id}/rerun-failed-jobs")
    api.get(f"{repo}/actions/runs/{run_id}/attempts/1")
    api.get(f"{repo}/actions/workflows")
    api.post(f"{repo}/actions/workflows/release.yml/dispatches", json={"ref": "main"})
    api.post(f"{repo}/actions/workflows/ci.yml/dispatches", json={"ref": "main"})

    api.get(f"{repo}/branches/main/protection")
    api.get(f"{repo}/branches/{pr1['head']}/protection")
    api.get(f"{repo}/branches")

    records = [r for r in forge.responses() if r["path"] not in NOT_REST]
    covered = operations_covered(records)
    missing = {
        op: sorted(statuses - covered.get(op, set()))
        for op, statuses in EXPECTED.items()
        if not statuses <= covered.get(op, set())
    }
    assert not missing, f"operations or statuses not exercised: {missing}"
