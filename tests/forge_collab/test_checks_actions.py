"""Check runs and suites, commit statuses, and GitHub Actions runs, jobs, logs, re-runs and
workflow dispatch."""

from __future__ import annotations

import io
import zipfile

import httpx2

from .conftest import DEMO, LAB


def test_check_runs_and_suites_for_a_ref(demo_api, demo):
    head = demo["pulls"]["conflicting"]["head_sha"]
    runs = demo_api.get(f"/repos/{DEMO}/commits/{head}/check-runs").json()
    by_name = {r["name"]: r for r in runs["check_runs"]}
    assert runs["total_count"] == 3
    assert {n: r["conclusion"] for n, r in by_name.items()} == {
        "test-python": "failure",
        "test-js": "failure",
        "lint": "success",
    }
    assert by_name["lint"]["app"]["slug"] == "github-actions"
    assert by_name["test-js"]["pull_requests"][0]["number"] == 1
    # A branch name works as the ref too (it may contain slashes).
    by_branch = demo_api.get(f"/repos/{DEMO}/commits/feature/cart-and-inventory/check-runs")
    assert by_branch.json()["total_count"] == 3
    failing = demo_api.get(
        f"/repos/{DEMO}/commits/{head}/check-runs", params={"check_name": "test-js"}
    ).json()
    assert [r["name"] for r in failing["check_runs"]] == ["test-js"]
    one = demo_api.get(f"/repos/{DEMO}/check-runs/{by_name['lint']['id']}")
    assert one.json()["head_sha"] == head
    assert demo_api.get(f"/repos/{DEMO}/check-runs/999999").status_code == 404
    suites = demo_api.get(f"/repos/{DEMO}/commits/{head}/check-suites").json()
    assert suites["total_count"] == 1
    assert suites["check_suites"][0]["conclusion"] == "failure"
    assert suites["check_suites"][0]["latest_check_runs_count"] == 3
    assert demo_api.get(f"/repos/{DEMO}/commits/nope/check-runs").status_code == 422


def test_statuses_and_the_combined_status(demo_api, demo):
    head = demo["pulls"]["conflicting"]["head_sha"]
    combined = demo_api.get(f"/repos/{DEMO}/commits/{head}/status").json()
    assert combined["state"] == "failure" and combined["total_count"] == 2
    assert {s["context"]: s["state"] for s in combined["statuses"]} == {
        "codecov/patch": "failure",
        "deploy/preview": "success",
    }
    created = demo_api.post(
        f"/repos/{DEMO}/statuses/{head}",
        json={"state": "success", "context": "codecov/patch", "description": "fixed"},
    )
    assert created.status_code == 201
    assert created.json()["creator"]["login"] == "octocat"
    assert demo_api.get(f"/repos/{DEMO}/commits/{head}/status").json()["state"] == "success"
    listed = demo_api.get(f"/repos/{DEMO}/commits/{head}/statuses").json()
    assert [s["context"] for s in listed][:1] == ["codecov/patch"] and len(listed) == 3
    bad = demo_api.post(f"/repos/{DEMO}/statuses/{head}", json={"state": "great"})
    assert bad.status_code == 422
    unknown = demo_api.post(f"/repos/{DEMO}/statuses/{'0' * 40}", json={"state": "success"})
    assert unknown.status_code == 422
    main = demo["main_sha"]
    empty = demo_api.get(f"/repos/{DEMO}/commits/{main}/status").json()
    assert empty["state"] == "pending" and empty["statuses"] == []
    assert demo_api.get(f"/repos/{DEMO}/commits/nope/status").status_code == 404


def test_workflow_runs_list_filters_and_jobs(demo_api, demo):
    runs = demo_api.get(f"/repos/{DEMO}/actions/runs").json()
    assert runs["total_count"] == 3
    assert [r["id"] for r in runs["workflow_runs"]] == sorted(
        (r["id"] for r in runs["workflow_runs"]), reverse=True
    )
    failed = demo_api.get(f"/repos/{DEMO}/actions/runs", params={"status": "failure"}).json()
    assert [r["id"] for r in failed["workflow_runs"]] == [demo["runs"]["pr1"]["id"]]
    on_branch = demo_api.get(
        f"/repos/{DEMO}/actions/runs", params={"branch": "main", "event": "push"}
    ).json()
    assert [r["conclusion"] for r in on_branch["workflow_runs"]] == ["success"]
    by_sha = demo_api.get(
        f"/repos/{DEMO}/actions/runs", params={"head_sha": demo["pulls"]["stacked"]["head_sha"]}
    ).json()
    assert [r["status"] for r in by_sha["workflow_runs"]] == ["in_progress"]

    run = demo_api.get(f"/repos/{DEMO}/actions/runs/{demo['runs']['pr1']['id']}").json()
    assert run["event"] == "pull_request" and run["path"] == ".github/workflows/ci.yml"
    assert run["pull_requests"][0]["number"] == 1
    jobs = demo_api.get(f"/repos/{DEMO}/actions/runs/{run['id']}/jobs").json()
    assert jobs["total_count"] == 3
    python = next(j for j in jobs["jobs"] if j["name"] == "test-python")
    failed_steps = [s["name"] for s in python["steps"] if s["conclusion"] == "failure"]
    assert failed_steps == ["Run pytest"]
    assert [s["number"] for s in python["steps"]] == list(range(1, len(python["steps"]) + 1))
    job = demo_api.get(f"/repos/{DEMO}/actions/jobs/{python['id']}").json()
    assert job["conclusion"] == "failure" and job["run_id"] == run["id"]
    # A job is also a check run with the same id.
    assert demo_api.get(f"/repos/{DEMO}/check-runs/{python['id']}").json()["name"] == "test-python"
    assert demo_api.get(f"/repos/{DEMO}/actions/runs/99999").status_code == 404
    workflows = demo_api.get(f"/repos/{DEMO}/actions/workflows").json()
    assert sorted(w["path"] for w in workflows["workflows"]) == [
        ".github/workflows/ci.yml",
        ".github/workflows/release.yml",
    ]


def test_job_logs_redirect_to_plain_text(demo_api, demo):
    job_id = demo["runs"]["pr1"]["jobs"]["test-js"]
    response = demo_api.get(f"/repos/{DEMO}/actions/jobs/{job_id}/logs")
    assert response.status_code == 302
    location = response.headers["location"]
    text = httpx2.get(location).text  # a signed URL: no credentials needed
    assert "##[group]Run npx jest --ci" in text
    assert "##[endgroup]" in text
    assert "##[error]Process completed with exit code 1." in text
    assert "Tests:" in text and "failed" in text
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    assert first[:4].isdigit() and first[10] == "T" and first.split(" ", 1)[0].endswith("Z")
    followed = demo_api.get(f"/repos/{DEMO}/actions/jobs/{job_id}/logs", follow_redirects=True)
    assert followed.status_code == 200 and "jest" in followed.text
    tampered = httpx2.get(location.replace("sig=", "sig=0"))
    assert tampered.status_code == 403
    zipped = demo_api.get(
        f"/repos/{DEMO}/actions/runs/{demo['runs']['pr1']['id']}/logs", follow_redirects=True
    )
    names = zipfile.ZipFile(io.BytesIO(zipped.content)).namelist()
    assert sorted(names) == ["1_test-python.txt", "2_test-js.txt", "3_lint.txt"]


def test_rerun_failed_jobs_makes_a_new_attempt(demo_api, demo, forge):
    run_id = demo["runs"]["pr1"]["id"]
    old_jobs = demo["runs"]["pr1"]["jobs"]
    response = demo_api.post(f"/repos/{DEMO}/actions/runs/{run_id}/rerun-failed-jobs")
    assert response.status_code == 201
    run = demo_api.get(f"/repos/{DEMO}/actions/runs/{run_id}").json()
    assert run["run_attempt"] == 2 and run["status"] == "queued" and run["conclusion"] is None
    assert run["previous_attempt_url"].endswith(f"/runs/{run_id}/attempts/1")
    jobs = {
        j["name"]: j
        for j in demo_api.get(f"/repos/{DEMO}/actions/runs/{run_id}/jobs").json()["jobs"]
    }
    assert jobs["lint"]["id"] == old_jobs["lint"] and jobs["lint"]["run_attempt"] == 1
    assert jobs["test-js"]["id"] != old_jobs["test-js"] and jobs["test-js"]["status"] == "queued"
    every = demo_api.get(f"/repos/{DEMO}/actions/runs/{run_id}/jobs", params={"filter": "all"})
    assert every.json()["total_count"] == 5
    busy = demo_api.post(f"/repos/{DEMO}/actions/runs/{run_id}/rerun-failed-jobs")
    assert busy.status_code == 403

    admin = httpx2.Client(base_url=forge.base_url, headers={"X-Sandbox-Admin": forge.admin_token})
    finished = admin.patch(
        f"/_sandbox/repos/{DEMO}/actions/runs/{run_id}", json={"conclusion": "success"}
    )
    assert finished.status_code == 200 and finished.json()["conclusion"] == "success"
    assert demo_api.get(f"/repos/{DEMO}/actions/runs/{run_id}").json()["conclusion"] == "success"
    first = demo_api.get(f"/repos/{DEMO}/actions/runs/{run_id}/attempts/1").json()
    assert first["conclusion"] == "failure" and first["run_attempt"] == 1
    attempt_jobs = demo_api.get(f"/repos/{DEMO}/actions/runs/{run_id}/attempts/2/jobs").json()
    assert sorted(j["name"] for j in attempt_jobs["jobs"]) == ["test-js", "test-python"]
    head = demo["pulls"]["conflicting"]["head_sha"]
    checks = demo_api.get(f"/repos/{DEMO}/commits/{head}/check-runs").json()["check_runs"]
    assert {c["name"]: c["conclusion"] for c in checks} == {
        "test-python": "success",
        "test-js": "success",
        "lint": "success",
    }


def test_workflow_dispatch_creates_a_queued_run(demo_api, demo):
    response = demo_api.post(
        f"/repos/{DEMO}/actions/workflows/release.yml/dispatches",
        json={"ref": "main", "inputs": {"version": "1.2.3"}},
    )
    assert response.status_code == 204
    runs = demo_api.get(
        f"/repos/{DEMO}/actions/runs", params={"event": "workflow_dispatch"}
    ).json()["workflow_runs"]
    assert len(runs) == 1
    run = runs[0]
    assert (run["status"], run["head_branch"], run["name"]) == ("queued", "main", "Release")
    jobs = demo_api.get(f"/repos/{DEMO}/actions/runs/{run['id']}/jobs").json()["jobs"]
    assert [(j["name"], j["status"]) for j in jobs] == [("publish", "queued")]
    by_id = demo_api.post(
        f"/repos/{DEMO}/actions/workflows/{run['workflow_id']}/dispatches", json={"ref": "main"}
    )
    assert by_id.status_code == 204
    no_trigger = demo_api.post(
        f"/repos/{DEMO}/actions/workflows/ci.yml/dispatches", json={"ref": "main"}
    )
    assert no_trigger.status_code == 422
    assert no_trigger.json()["message"] == "Workflow does not have 'workflow_dispatch' trigger"
    bad_ref = demo_api.post(
        f"/repos/{DEMO}/actions/workflows/release.yml/dispatches", json={"ref": "nope"}
    )
    assert bad_ref.status_code == 422
    missing = demo_api.post(
        f"/repos/{DEMO}/actions/workflows/nope.yml/dispatches", json={"ref": "main"}
    )
    assert missing.status_code == 404
    no_ref = demo_api.post(f"/repos/{DEMO}/actions/workflows/release.yml/dispatches", json={})
    assert no_ref.status_code == 422


def test_admin_api_adds_runs_and_check_runs(api, lab):
    made = lab.admin.post(
        f"/_sandbox/repos/{LAB}/actions/runs",
        json={
            "workflow": "build.yml",
            "ref": "feature/two",
            "event": "pull_request",
            "jobs": [
                {
                    "name": "unit",
                    "conclusion": "failure",
                    "steps": ["Set up job", "Run make test", "Complete job"],
                    "log": "2024-01-01T00:00:00.0000000Z ##[error]boom\n",
                },
                {"name": "docs"},
            ],
        },
    )
    assert made.status_code == 201, made.text
    summary = made.json()
    assert summary["conclusion"] == "failure" and set(summary["jobs"]) == {"unit", "docs"}
    jobs = api.get(f"/repos/{LAB}/actions/runs/{summary['id']}/jobs").json()["jobs"]
    unit = next(j for j in jobs if j["name"] == "unit")
    assert [s["conclusion"] for s in unit["steps"]] == ["success", "failure", "success"]
    log = api.get(f"/repos/{LAB}/actions/jobs/{unit['id']}/logs", follow_redirects=True)
    assert log.text == "2024-01-01T00:00:00.0000000Z ##[error]boom\n"
    check = lab.admin.post(
        f"/_sandbox/repos/{LAB}/check-runs",
        json={
            "ref": "main",
            "name": "external",
            "conclusion": "neutral",
            "app": "circleci",
            "title": "Nothing to do",
        },
    )
    assert check.status_code == 201
    runs = api.get(f"/repos/{LAB}/commits/main/check-runs").json()["check_runs"]
    assert [(r["name"], r["conclusion"], r["app"]["slug"]) for r in runs] == [
        ("external", "neutral", "circleci")
    ]
    unauthorised = httpx2.post(
        f"{lab.forge.base_url}/_sandbox/repos/{LAB}/check-runs", json={"ref": "main", "name": "x"}
    )
    assert unauthorised.status_code == 401
    bad = lab.admin.post(
        f"/_sandbox/repos/{LAB}/check-runs",
        json={"ref": "main", "name": "x", "conclusion": "great"},
    )
    assert bad.status_code == 422
