"""The actions tools through a real MCP client against the forge:
runs, run overviews, cleaned and bounded job logs, branch status, bounded waits with
progress, and the gated re-run and dispatch writes.

Reads use the demo (`octo-org/demo-app`); tests that change CI state seed their own
repository, so the session's demo stays as seeded."""

from __future__ import annotations

import asyncio
import re
import uuid
from typing import Any

import httpx2
from fastmcp import Client

from github_mcp.serving.server import build_mcp
from sandbox_forge import Forge
from sandbox_forge.admin.seed_collab import add_workflow_run, complete_workflow_run
from sandbox_forge.rest.routes.actions import job_log
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, requests_matching

CI_YML = "name: CI\non:\n  push:\n  pull_request:\njobs:\n  unit:\n    runs-on: ubuntu-latest\n"
RELEASE_YML = (
    "name: Release\non:\n  workflow_dispatch:\n    inputs:\n      version:\n"
    "        required: true\njobs:\n  publish:\n    runs-on: ubuntu-latest\n"
    "    steps:\n      - run: echo hi\n"
)
PYTEST_OUT = """\
============================= test session starts ==============================
collected 2 items

tests/test_app.py .F                                                     [100%]

=================================== FAILURES ===================================
_________________________________ test_answer __________________________________

    def test_answer():
>       assert answer() == 42
E       assert 41 == 42

tests/test_app.py:5: AssertionError
=========================== short test summary info ============================
FAILED tests/test_app.py::test_answer - assert 41 == 42
========================= 1 failed, 1 passed in 0.01s ==========================
"""
APP_FILES = {
    "README.md": "# app\n",
    "app.py": "def answer():\n    return 41\n",
    "tests/test_app.py": "from app import answer\n\n\ndef test_ok():\n    assert True\n\n\n"
    "def test_answer():\n    assert answer() == 42\n",
    ".github/workflows/ci.yml": CI_YML,
    ".github/workflows/release.yml": RELEASE_YML,
}


# --- helpers (also used by the automation tests) -------------------------------------------


def new_ci_repo(forge: Forge, branches: dict[str, dict[str, Any]] | None = None) -> str:
    full_name = f"ci-org/app-{uuid.uuid4().hex[:10]}"
    forge.seed_repo(
        full_name, APP_FILES, branches=branches if branches is not None else {"feature": {}}
    )
    return full_name


def failing_unit_log(output: str = PYTEST_OUT) -> str:
    return job_log(
        [
            ("Run actions/checkout@v4", "with:\n  fetch-depth: 1", "Syncing repository", 0),
            ("Run pytest", "pytest\nshell: /usr/bin/bash -e {0}", output, 1),
        ],
        job_name="unit",
    )


def failed_job(name: str = "unit", output: str = PYTEST_OUT) -> dict[str, Any]:
    return {
        "name": name,
        "status": "completed",
        "conclusion": "failure",
        "steps": ["Set up job", "Run actions/checkout@v4", "Run pytest", "Complete job"],
        "log": failing_unit_log(output),
    }


def api(forge: Forge, token: str) -> httpx2.Client:
    return httpx2.Client(
        base_url=forge.base_url,
        headers={"Authorization": f"token {token}", "Accept": "application/vnd.github+json"},
        timeout=10,
    )


async def until_requested(forge: Forge, method: str, fragment: str, count: int = 1) -> None:
    """Yield to the server until the forge has logged `count` matching requests."""
    for _ in range(2000):
        if len(requests_matching(forge, method, fragment)) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"no {method} {fragment} request reached the forge")


def demo(forge: Forge) -> dict[str, Any]:
    return forge.state.extensions["collab_demo"]


# --- reads on the demo -------------------------------------------------------------------------


async def test_list_workflow_runs_filters_by_branch_status_and_head_sha(make_runtime, forge):
    runs = demo(forge)["runs"]
    async with mcp_client(make_runtime()) as client:
        is_error, by_branch = await call_tool(
            client,
            "list_workflow_runs",
            {"full_name": DEMO_REPO, "branch": "feature/cart-and-inventory"},
        )
        assert not is_error, by_branch
        assert [r["id"] for r in by_branch["runs"]] == [runs["pr1"]["id"]]
        assert by_branch["runs"][0]["conclusion"] == "failure"

        _, failed = await call_tool(
            client, "list_workflow_runs", {"full_name": DEMO_REPO, "status": "failure"}
        )
        assert [r["id"] for r in failed["runs"]] == [runs["pr1"]["id"]]

        _, by_sha = await call_tool(
            client,
            "list_workflow_runs",
            {"full_name": DEMO_REPO, "head_sha": runs["pr2"]["head_sha"], "workflow": "ci.yml"},
        )
        assert [(r["id"], r["status"]) for r in by_sha["runs"]] == [
            (runs["pr2"]["id"], "in_progress")
        ]
        assert "conclusion" not in by_sha["runs"][0]  # nulls are dropped

        _, paged = await call_tool(
            client, "list_workflow_runs", {"full_name": DEMO_REPO, "limit": 1}
        )
        assert len(paged["runs"]) == 1 and paged["next_cursor"]

        is_error, bad = await call_tool(
            client, "list_workflow_runs", {"full_name": DEMO_REPO, "status": "exploded"}
        )
        assert is_error


async def test_run_overview_names_failed_jobs_and_step_numbers(make_runtime, forge):
    run = demo(forge)["runs"]["pr1"]
    async with mcp_client(make_runtime()) as client:
        is_error, overview = await call_tool(
            client, "get_workflow_run_overview", {"full_name": DEMO_REPO, "run_id": run["id"]}
        )
    assert not is_error, overview
    assert overview["run"]["conclusion"] == "failure"
    jobs = {j["name"]: j for j in overview["jobs"]}
    assert jobs["test-python"]["failed_steps"] == [
        {"number": 5, "name": "Run pytest", "conclusion": "failure"}
    ]
    assert jobs["test-js"]["failed_steps"][0]["name"] == "Run npx jest --ci"
    assert "failed_steps" not in jobs["lint"]
    assert jobs["test-python"]["id"] == run["jobs"]["test-python"]
    job_id = run["jobs"]["test-python"]
    assert any(f"job_id={job_id}" in step for step in overview["next"])
    assert any(step.startswith("rerun_failed_jobs(") for step in overview["next"])


async def test_run_overview_of_unknown_run_is_not_found(make_runtime, forge):
    async with mcp_client(make_runtime()) as client:
        is_error, payload = await call_tool(
            client, "get_workflow_run_overview", {"full_name": DEMO_REPO, "run_id": 999999}
        )
    assert is_error and error_code(payload) == "not_found"


async def test_job_logs_are_cleaned_bounded_and_say_what_was_cut(make_runtime, forge):
    job_id = demo(forge)["runs"]["pr1"]["jobs"]["test-python"]
    async with mcp_client(make_runtime()) as client:
        _, full = await call_tool(
            client, "get_job_logs", {"full_name": DEMO_REPO, "job_id": job_id}
        )
        _, failed = await call_tool(
            client,
            "get_job_logs",
            {
                "full_name": DEMO_REPO,
                "job_id": job_id,
                "failed_steps_only": True,
                "max_bytes": 1500,
            },
        )
        _, grepped = await call_tool(
            client, "get_job_logs", {"full_name": DEMO_REPO, "job_id": job_id, "grep": "KeyError"}
        )
        _, tail = await call_tool(
            client, "get_job_logs", {"full_name": DEMO_REPO, "job_id": job_id, "tail_lines": 3}
        )
        # Patterns run on RE2 (linear time): a classic backtracking bomb is harmless and
        # accepted, while what RE2 cannot run (a backreference) is refused up front.
        bomb_error, _ = await call_tool(
            client, "get_job_logs", {"full_name": DEMO_REPO, "job_id": job_id, "grep": "(a+)+$"}
        )
        is_error, refused = await call_tool(
            client, "get_job_logs", {"full_name": DEMO_REPO, "job_id": job_id, "grep": r"(a)\1"}
        )
    log = full["log"]
    assert not re.search(r"^\d{4}-\d\d-\d\dT", log, re.M), "timestamps must be stripped"
    assert "##[group]" not in log and "##[endgroup]" not in log
    assert "error: Process completed with exit code 1." in log  # ##[error] lines are kept
    assert "Current runner version" in log and "tests/test_inventory.py" in log

    assert failed["bytes"] <= 1500 and len(failed["log"].encode()) <= 1500
    assert failed["truncated"] is True
    assert "byte budget" in failed["cut"] and "failed steps" in failed["cut"]
    assert "Syncing repository" not in failed["log"]  # a passing step
    assert failed["log"].startswith("## Run pytest")
    assert failed["omitted_lines"] > 0 and failed["total_lines"] == full["total_lines"]

    assert grepped["log"] and all(
        "KeyError" in chunk for chunk in grepped["log"].split("\n--\n")
    ), grepped["log"]
    assert "KeyError" in grepped["cut"]
    assert tail["lines_shown"] == 3 and tail["log"].splitlines()[0].startswith("error:")
    assert not bomb_error
    assert is_error and error_code(refused) == "invalid_input"


async def test_job_logs_of_unknown_job_is_not_found(make_runtime, forge):
    async with mcp_client(make_runtime()) as client:
        is_error, payload = await call_tool(
            client, "get_job_logs", {"full_name": DEMO_REPO, "job_id": 987654}
        )
    assert is_error and error_code(payload) == "not_found"


async def test_latest_branch_status_combines_checks_statuses_and_the_open_pr(make_runtime, forge):
    summary = demo(forge)
    async with mcp_client(make_runtime()) as client:
        _, feature = await call_tool(
            client,
            "get_latest_branch_status",
            {"full_name": DEMO_REPO, "branch": "feature/cart-and-inventory"},
        )
        _, main = await call_tool(client, "get_latest_branch_status", {"full_name": DEMO_REPO})
        _, stacked = await call_tool(
            client,
            "get_latest_branch_status",
            {"full_name": DEMO_REPO, "branch": "feature/cart-discounts"},
        )
    assert feature["head_sha"] == summary["pulls"]["conflicting"]["head_sha"]
    assert feature["state"] == "failure"
    assert {c["name"] for c in feature["failing"]} == {"test-python", "test-js", "codecov/patch"}
    codecov = next(c for c in feature["failing"] if c["name"] == "codecov/patch")
    assert codecov["kind"] == "status" and "60.00%" in codecov["detail"]
    assert feature["pull_request"]["number"] == summary["pulls"]["conflicting"]["number"]
    assert feature["next"].startswith("get_failing_tests(")

    assert main["branch"] == "main" and main["state"] == "success"  # missing branch: default
    assert main["head_sha"] == summary["main_sha"] and "pull_request" not in main

    assert stacked["state"] == "pending"
    assert set(stacked["pending"]) == {"test-python", "test-js", "lint"}
    assert stacked["pull_request"]["number"] == summary["pulls"]["stacked"]["number"]


# --- waiting -----------------------------------------------------------------------------------


async def test_wait_returns_pending_at_the_deadline_with_progress(make_runtime, forge):
    run_id = demo(forge)["runs"]["pr2"]["id"]
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async with Client(build_mcp(make_runtime()), progress_handler=on_progress) as client:
        is_error, result = await call_tool(
            client,
            "wait_for_workflow_run",
            {
                "full_name": DEMO_REPO,
                "run_id": run_id,
                "timeout_seconds": 0.3,
                "poll_interval_seconds": 0.05,
            },
        )
    assert not is_error, result
    assert result["status"] == "pending" and "conclusion" not in result
    assert result["run"]["status"] == "in_progress"
    assert result["polls"] >= 2
    assert result["next"].startswith("wait_for_workflow_run(")
    assert len(progress) == result["polls"]
    assert all(total == 0.3 and f"run {run_id}" in (msg or "") for _, total, msg in progress)
    gets = requests_matching(forge, "GET", f"/actions/runs/{run_id}")
    assert len(gets) >= result["polls"]


async def test_wait_follows_a_run_to_completion(make_runtime, forge):
    full_name = new_ci_repo(forge)
    run = add_workflow_run(
        forge, full_name, "ci.yml", ref="feature", status="in_progress",
        jobs=[{"name": "unit", "status": "in_progress"}],
    )  # fmt: skip
    async with mcp_client(make_runtime()) as client:
        waiting = asyncio.create_task(
            call_tool(
                client,
                "wait_for_workflow_run",
                {
                    "full_name": full_name,
                    "run_id": run["id"],
                    "timeout_seconds": 60,
                    "poll_interval_seconds": 0.05,
                },
            )
        )
        await until_requested(forge, "GET", f"/actions/runs/{run['id']}")
        complete_workflow_run(forge, full_name, run["id"], "failure", {"unit": failed_job()})
        is_error, result = await waiting
    assert not is_error, result
    assert result["status"] == "completed" and result["conclusion"] == "failure"
    assert [j["name"] for j in result["failed_jobs"]] == ["unit"]
    assert result["failed_jobs"][0]["failed_steps"][0]["name"] == "Run pytest"
    assert result["next"].startswith("get_job_logs(")


# --- gated writes --------------------------------------------------------------------------------


async def test_rerun_failed_jobs_on_a_feature_branch_starts_a_new_attempt(make_runtime, forge):
    full_name = new_ci_repo(forge)
    run = add_workflow_run(
        forge, full_name, "ci.yml", ref="feature",
        jobs=[failed_job(), {"name": "lint", "conclusion": "success"}],
    )  # fmt: skip
    forge.clear_requests()
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client, "rerun_failed_jobs", {"full_name": full_name, "run_id": run["id"]}
        )
        assert not is_error, result
        _, overview = await call_tool(
            client, "get_workflow_run_overview", {"full_name": full_name, "run_id": run["id"]}
        )
    assert result["attempt"] == 2 and result["status"] == "queued"
    assert result["next"].startswith("wait_for_workflow_run(")
    assert len(requests_matching(forge, "POST", f"/runs/{run['id']}/rerun-failed-jobs")) == 1
    jobs = {j["name"]: j for j in overview["jobs"]}
    assert jobs["unit"]["status"] == "queued"  # re-run
    assert jobs["lint"]["conclusion"] == "success"  # carried over


async def test_rerun_on_the_default_branch_needs_approval(make_runtime, forge):
    full_name = new_ci_repo(forge)
    run = add_workflow_run(forge, full_name, "ci.yml", ref="main", jobs=[failed_job()])
    forge.clear_requests()
    async with mcp_client(make_runtime()) as client:
        is_error, denied = await call_tool(
            client, "rerun_failed_jobs", {"full_name": full_name, "run_id": run["id"]}
        )
    assert is_error and error_code(denied) == "write_not_allowed"
    assert requests_matching(forge, "POST", "/rerun") == []

    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, result = await call_tool(
            client, "rerun_failed_jobs", {"full_name": full_name, "run_id": run["id"]}
        )
    assert not is_error and result["attempt"] == 2


async def test_rerun_of_a_running_run_is_refused(make_runtime, forge):
    run = demo(forge)["runs"]["pr2"]  # in progress, on a feature branch
    async with mcp_client(make_runtime()) as client:
        is_error, payload = await call_tool(
            client, "rerun_failed_jobs", {"full_name": DEMO_REPO, "run_id": run["id"]}
        )
    assert is_error and error_code(payload) == "unprocessable"
    assert "wait_for_workflow_run" in payload["error"]["hint"]


async def test_trigger_workflow_dispatch_finds_the_new_run(make_runtime, forge):
    full_name = new_ci_repo(forge)
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client,
            "trigger_workflow_dispatch",
            {
                "full_name": full_name,
                "workflow": "release.yml",
                "ref": "feature",
                "inputs": {"version": "1.2.3"},
            },
        )
        assert not is_error, result
        _, runs = await call_tool(
            client,
            "list_workflow_runs",
            {"full_name": full_name, "event": "workflow_dispatch", "branch": "feature"},
        )
        is_error, refused = await call_tool(
            client,
            "trigger_workflow_dispatch",
            {"full_name": full_name, "workflow": "ci.yml", "ref": "feature"},
        )
    assert [r["id"] for r in runs["runs"]] == [result["run_id"]]
    assert result["run_id_source"] in ("github", "newest_dispatch_run")
    assert result["next"] == (
        f"wait_for_workflow_run(full_name='{full_name}', run_id={result['run_id']})"
    )
    posted = requests_matching(forge, "POST", f"/repos/{full_name}/actions/workflows/")
    assert len(posted) == 2
    assert is_error and error_code(refused) == "unprocessable"  # no workflow_dispatch trigger


async def test_dispatch_on_the_default_branch_needs_approval(make_runtime, forge):
    full_name = new_ci_repo(forge)
    forge.clear_requests()
    async with mcp_client(make_runtime()) as client:
        is_error, denied = await call_tool(
            client, "trigger_workflow_dispatch", {"full_name": full_name, "workflow": "release.yml"}
        )
    assert is_error and error_code(denied) == "write_not_allowed"
    assert denied["error"]["reason"] == "default_branch"
    assert requests_matching(forge, "POST", "/dispatches") == []
