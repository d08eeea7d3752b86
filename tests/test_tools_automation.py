"""The automation tools through a real MCP client, against the forge's demo PR (failing
pytest and jest CI, two unresolved review threads and one resolved, a conflict with main, a
PR stacked on it) and against repositories seeded per test for everything that changes
state: waits, thread resolution, readiness variants, and stacked-PR rebases that push.

The trial merges and rebases use real git against the forge's git smart HTTP."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from github_mcp.serving.server import build_mcp
from sandbox_forge import Forge
from sandbox_forge.admin.seed_collab import (
    add_check_run,
    add_review,
    add_review_thread,
    add_workflow_run,
    complete_workflow_run,
    create_pull,
    set_branch_protection,
    set_mergeability_delay,
)
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, requests_matching
from tests.test_tools_actions import api, demo, failed_job, new_ci_repo, until_requested

PR1 = f"{DEMO_REPO}#1"


def git(forge: Forge, full_name: str, *args: str) -> str:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    out = subprocess.run(
        ["git", f"--git-dir={repo.git.path}", *args], capture_output=True, text=True, check=False
    )
    return out.stdout.strip() if out.returncode == 0 else f"<rc {out.returncode}>"


def head(forge: Forge, full_name: str, branch: str) -> str:
    return git(forge, full_name, "rev-parse", f"refs/heads/{branch}")


def is_ancestor(forge: Forge, full_name: str, old: str, new: str) -> bool:
    return git(forge, full_name, "merge-base", "--is-ancestor", old, new) == ""


def commit(forge: Forge, token: str, full_name: str, branch: str, path: str, text: str) -> str:
    """A commit through the Contents API (the forge moves PR heads with it)."""
    import base64

    with api(forge, token) as client:
        current = client.get(f"/repos/{full_name}/contents/{path}", params={"ref": branch})
        body: dict[str, Any] = {
            "message": f"Edit {path}",
            "content": base64.b64encode(text.encode()).decode(),
            "branch": branch,
        }
        if current.status_code == 200:
            body["sha"] = current.json()["sha"]
        answer = client.put(f"/repos/{full_name}/contents/{path}", json=body)
        assert answer.status_code in (200, 201), answer.text
        return answer.json()["commit"]["sha"]


def branch_from(forge: Forge, token: str, full_name: str, name: str, sha: str) -> None:
    with api(forge, token) as client:
        answer = client.post(
            f"/repos/{full_name}/git/refs", json={"ref": f"refs/heads/{name}", "sha": sha}
        )
        assert answer.status_code == 201, answer.text


def user_clones(workspace_dir: Path) -> list[Path]:
    """Workspace clones a user could see (the server's own .server directory aside)."""
    if not workspace_dir.exists():
        return []
    return [p for p in workspace_dir.iterdir() if p.name != ".server"]


def conflicting_pr(forge: Forge, token: str) -> tuple[str, int]:
    """feature changes app.py's return line; then main changes the same line."""
    full_name = new_ci_repo(forge, {"feature": {"app.py": "def answer():\n    return 42\n"}})
    commit(forge, token, full_name, "main", "app.py", "def answer():\n    return 40 + 1\n")
    pr = create_pull(forge, full_name, "feature", "main", "Fix the answer", user="alice")
    return full_name, pr["number"]


# --- get_failing_tests -----


async def test_failing_tests_of_the_demo_pr_name_pytest_and_jest_tests(make_runtime, forge):
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(client, "get_failing_tests", {"pr": PR1})
        _, by_url = await call_tool(
            client,
            "get_failing_tests",
            {"pr": f"https://github.com/{DEMO_REPO}/pull/1", "limit": 50},
        )
        _, by_number = await call_tool(
            client, "get_failing_tests", {"full_name": DEMO_REPO, "number": 1, "limit": 50}
        )
    assert not is_error, result
    assert result["status"] == "failed"
    assert result["head_sha"] == demo(forge)["pulls"]["conflicting"]["head_sha"]
    assert result["checks"] == {"total": 5, "passed": 2, "failed": 3, "pending": 0}
    tests = {t["test"]: t for t in result["failures"]}
    assert result["total_failures"] == len(tests) == 9
    python = tests["tests/test_inventory.py::test_restock_keeps_other_items"]
    assert python["runner"] == "pytest" and python["job"] == "test-python"
    assert python["rerun"] == "pytest tests/test_inventory.py::test_restock_keeps_other_items"
    assert python["line"] == 16 and python["message"].startswith("AssertionError")
    jest = tests["cart › adds an item"]
    assert jest["runner"] == "jest" and jest["job"] == "test-js"
    assert jest["file"] == "web/src/__tests__/cart.test.js"  # the job ran jest in web/
    assert jest["rerun"] == "cd web && npx jest src/__tests__/cart.test.js -t '^cart adds an item$'"
    assert all(t["rerun"] for t in result["failures"])
    assert all(len(t["message"]) <= 160 for t in result["failures"])
    jobs = {j["job"]: j for j in result["failed_jobs"]}
    assert jobs["test-python"]["tests"] == 5 and jobs["test-js"]["tests"] == 4
    assert jobs["test-python"]["step"] == "5. Run pytest"
    assert [o["check"] for o in result["other_failures"]] == ["codecov/patch"]
    assert "workdir='web'" in result["next"][0] and result["next"][0].startswith("Reproduce:")
    assert by_url["failures"] == by_number["failures"] == result["failures"]


async def test_failing_tests_pages_and_stays_small(make_runtime, forge):
    async with mcp_client(make_runtime()) as client:
        first = await client.call_tool("get_failing_tests", {"pr": PR1, "limit": 3})
        page1 = first.structured_content
        _, page2 = await call_tool(
            client,
            "get_failing_tests",
            {"pr": PR1, "limit": 3, "cursor": page1["next_cursor"]},
        )
        is_error, bad = await call_tool(
            client, "get_failing_tests", {"pr": PR1, "cursor": "not-a-cursor"}
        )
    assert len(first.content[0].text.encode()) <= 2048
    assert len(page1["failures"]) == len(page2["failures"]) == 3
    assert not {t["test"] for t in page1["failures"]} & {t["test"] for t in page2["failures"]}
    assert is_error and error_code(bad) == "invalid_input"


async def test_failing_tests_bail_on_first_failure_while_ci_runs(make_runtime, forge, forge_token):
    full_name = new_ci_repo(forge)
    pr = create_pull(forge, full_name, "feature", "main", "Feature", user="alice")
    add_workflow_run(
        forge, full_name, "ci.yml", ref="feature", event="pull_request", status="in_progress",
        jobs=[failed_job("unit"), {"name": "e2e", "status": "in_progress"}],
    )  # fmt: skip
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    args = {
        "pr": f"{full_name}#{pr['number']}",
        "wait": True,
        "timeout_seconds": 30,
        "poll_interval_seconds": 0.05,
    }
    async with Client(build_mcp(make_runtime()), progress_handler=on_progress) as client:
        is_error, bailed = await call_tool(client, "get_failing_tests", args)
        _, waited = await call_tool(
            client,
            "get_failing_tests",
            {**args, "bail_on_first": False, "timeout_seconds": 0.2},
        )
    assert not is_error, bailed
    assert bailed["status"] == "failed" and bailed["pending"] == ["e2e"]
    assert [t["test"] for t in bailed["failures"]] == ["tests/test_app.py::test_answer"]
    assert bailed["failures"][0]["rerun"] == "pytest tests/test_app.py::test_answer"
    assert bailed["failures"][0]["message"] == "assert 41 == 42"
    assert progress and "1 failed" in progress[0]
    # Without bail_on_first the wait runs to its deadline: pending, with what failed so far.
    assert waited["status"] == "pending"
    assert [t["test"] for t in waited["failures"]] == ["tests/test_app.py::test_answer"]
    assert any(step.startswith("get_failing_tests(") for step in waited["next"])


async def test_failing_tests_wait_until_ci_completes(make_runtime, forge):
    full_name = new_ci_repo(forge)
    pr = create_pull(forge, full_name, "feature", "main", "Feature", user="alice")
    run = add_workflow_run(
        forge, full_name, "ci.yml", ref="feature", event="pull_request", status="in_progress",
        jobs=[{"name": "unit", "status": "in_progress"}],
    )  # fmt: skip
    sha = run["head_sha"]
    async with mcp_client(make_runtime()) as client:
        task = asyncio.create_task(
            call_tool(
                client,
                "get_failing_tests",
                {
                    "pr": f"{full_name}#{pr['number']}",
                    "wait": True,
                    "bail_on_first": False,
                    "timeout_seconds": 60,
                    "poll_interval_seconds": 0.05,
                },
            )
        )
        await until_requested(forge, "GET", f"/commits/{sha}/check-runs")
        complete_workflow_run(forge, full_name, run["id"], "success")
        is_error, result = await task
    assert not is_error, result
    assert result["status"] == "passed" and result["failures"] == []
    assert result["checks"]["pending"] == 0 and result["waited_s"] >= 0


async def test_timed_out_cancelled_and_action_required_count_as_failed(make_runtime, forge):
    full_name = new_ci_repo(forge)
    pr = create_pull(forge, full_name, "feature", "main", "Feature", user="alice")
    add_workflow_run(
        forge, full_name, "ci.yml", ref="feature", event="pull_request",
        jobs=[
            {**failed_job("slow"), "conclusion": "timed_out"},
            {"name": "flaky", "status": "completed", "conclusion": "cancelled"},
            {"name": "lint", "status": "completed", "conclusion": "success"},
        ],
    )  # fmt: skip
    add_check_run(
        forge, full_name, "feature", "deploy-gate", conclusion="action_required",
        title="Approve the deployment", app="vercel",
    )  # fmt: skip
    async with mcp_client(make_runtime()) as client:
        _, result = await call_tool(
            client, "get_failing_tests", {"pr": f"{full_name}#{pr['number']}"}
        )
    assert result["status"] == "failed"
    assert result["checks"] == {"total": 4, "passed": 1, "failed": 3, "pending": 0}
    jobs = {j["job"]: j for j in result["failed_jobs"]}
    assert jobs["slow"]["conclusion"] == "timed_out" and jobs["slow"]["tests"] == 1
    assert jobs["flaky"]["conclusion"] == "cancelled"
    assert result["other_failures"] == [
        {"check": "deploy-gate", "kind": "check", "detail": "Approve the deployment"}
    ]
    assert [t["job"] for t in result["failures"]] == ["slow"]


async def test_failed_job_without_test_output_points_at_its_log(make_runtime, forge):
    full_name = new_ci_repo(forge)
    pr = create_pull(forge, full_name, "feature", "main", "Feature", user="alice")
    build_output = "gcc -c main.c\nmain.c:3:1: error: expected ';'\nmake: *** [build] Error 2\n"
    add_workflow_run(
        forge, full_name, "ci.yml", ref="feature", event="pull_request",
        jobs=[failed_job("build", build_output)],
    )  # fmt: skip
    async with mcp_client(make_runtime()) as client:
        _, result = await call_tool(
            client, "get_failing_tests", {"pr": f"{full_name}#{pr['number']}"}
        )
    assert result["status"] == "failed" and result["failures"] == []
    job = result["failed_jobs"][0]
    assert job["tests"] == 0 and "Error 2" in job["error"]
    assert any(f"job_id={job['job_id']}" in step for step in result["next"])


# --- find_unresolved_comments, resolve and reply -----------------------------------------------


async def test_unresolved_comments_of_the_demo_pr(make_runtime, forge):
    threads = demo(forge)["threads"]
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(client, "find_unresolved_comments", {"pr": PR1})
        _, first = await call_tool(
            client, "find_unresolved_comments", {"pr": PR1, "limit": 1, "sort": "newest"}
        )
        _, second = await call_tool(
            client,
            "find_unresolved_comments",
            {"pr": PR1, "limit": 1, "sort": "newest", "cursor": first["next_cursor"]},
        )
    assert not is_error, result
    assert {t["thread_id"] for t in result["threads"]} == set(threads["unresolved"])
    # where the fix is pushed, as the forge has it
    repo, number = PR1.split("#")
    with api(forge, forge.create_token("octocat")) as http:
        pull = http.get(f"/repos/{repo}/pulls/{number}").json()
    assert (result["head"], result["head_sha"]) == (pull["head"]["ref"], pull["head"]["sha"])
    assert threads["resolved"][0] not in json.dumps(result)
    assert result["counts"] == {
        "threads": 3, "unresolved": 2, "resolved": 1, "issue_comments": 1
    }  # fmt: skip
    for thread in result["threads"]:
        assert (
            thread["reply"].startswith("reply_to_review_thread(")
            and thread["thread_id"] in (thread["reply"])
        )
        assert thread["resolve"] == (
            f"resolve_review_thread(pr='{PR1}', thread_id='{thread['thread_id']}')"
        )
    by_path = {t["path"]: t for t in result["threads"]}
    answered = by_path["tests/test_inventory.py"]
    assert answered["replies"] == 1 and answered["last_reply"]["author"] == "alice"
    assert answered["awaiting"] == "reviewer"  # the PR's author answered last
    assert by_path["web/src/cart.js"]["awaiting"] == "author"
    assert [c["author"] for c in result["issue_comments"]] == ["octocat"]
    assert result["review_decision"] == "CHANGES_REQUESTED"
    assert len(first["threads"]) == len(second["threads"]) == 1
    assert first["threads"][0]["thread_id"] != second["threads"][0]["thread_id"]
    assert "next_cursor" not in second


async def test_bot_threads_are_hidden_unless_asked_for(make_runtime, forge, forge_token):
    full_name = new_ci_repo(forge, {"feature": {"app.py": "def answer():\n    return 42\n"}})
    forge.add_user("lint-bot[bot]", type="Bot")
    pr = create_pull(forge, full_name, "feature", "main", "Fix", user="alice")
    add_review_thread(forge, full_name, pr["number"], "app.py", 2, "Why 42?", user="bob")
    add_review_thread(
        forge, full_name, pr["number"], "app.py", 1, "Style: add a docstring.", user="lint-bot[bot]"
    )
    ref = f"{full_name}#{pr['number']}"
    async with mcp_client(make_runtime()) as client:
        _, humans = await call_tool(client, "find_unresolved_comments", {"pr": ref})
        _, everyone = await call_tool(
            client, "find_unresolved_comments", {"pr": ref, "include_bots": True}
        )
    assert [t["author"] for t in humans["threads"]] == ["bob"]
    assert humans["counts"]["bots_hidden"] == 1
    assert sorted(t["author"] for t in everyone["threads"]) == ["bob", "lint-bot[bot]"]
    assert [t["line"] for t in everyone["threads"]] == [1, 2]  # sorted by file and line
    assert all("outdated" not in t for t in everyone["threads"])

    commit(forge, forge_token, full_name, "feature", "app.py", "def answer():\n    return 43\n")
    async with mcp_client(make_runtime()) as client:
        _, moved = await call_tool(client, "find_unresolved_comments", {"pr": ref})
    assert moved["threads"][0]["outdated"] is True  # its diff hunk changed
    assert moved["counts"]["outdated"] == moved["counts"]["unresolved"] == 2


async def test_resolve_and_reply_to_review_threads_are_gated_writes(make_runtime, forge):
    full_name = new_ci_repo(forge, {"feature": {"app.py": "def answer():\n    return 42\n"}})
    pr = create_pull(forge, full_name, "feature", "main", "Fix", user="octocat")
    thread = add_review_thread(forge, full_name, pr["number"], "app.py", 2, "Why?", user="bob")
    ref = f"{full_name}#{pr['number']}"
    args = {"pr": ref, "thread_id": thread["thread_id"]}
    forge.clear_requests()
    async with mcp_client(make_runtime()) as client:
        is_error, denied = await call_tool(client, "resolve_review_thread", args)
    assert is_error and error_code(denied) == "write_not_allowed"
    assert requests_matching(forge, "POST", "/graphql") == []

    async with mcp_client(make_runtime(auto_approve=True)) as client:
        is_error, replied = await call_tool(
            client, "reply_to_review_thread", {**args, "body": "Because the tests say so."}
        )
        assert not is_error, replied
        _, listed = await call_tool(client, "find_unresolved_comments", {"pr": ref})
        assert listed["threads"][0]["replies"] == 1
        assert listed["threads"][0]["awaiting"] == "reviewer"
        is_error, resolved = await call_tool(client, "resolve_review_thread", args)
        _, again = await call_tool(client, "resolve_review_thread", args)
        _, after = await call_tool(client, "find_unresolved_comments", {"pr": ref})
        _, reopened = await call_tool(client, "resolve_review_thread", {**args, "unresolve": True})
        is_error_other, foreign = await call_tool(
            client,
            "resolve_review_thread",
            {"pr": ref, "thread_id": demo(forge)["threads"]["unresolved"][0]},
        )
    assert replied["comment_id"] and replied["thread_id"] == thread["thread_id"]
    assert not is_error and resolved == {
        "thread_id": thread["thread_id"], "resolved": True, "changed": True
    }  # fmt: skip
    assert again["changed"] is False and again["resolved"] is True
    # the retry says it was this principal's own earlier call that resolved it
    assert again["by_this_principal"] is True and again["earlier_call_id"]
    assert after["threads"] == [] and after["counts"]["resolved"] == 1
    assert reopened["resolved"] is False and reopened["changed"] is True
    assert is_error_other and error_code(foreign) == "invalid_input"


# --- detect_merge_conflicts -----


async def test_demo_pr_conflicts_are_named_by_a_trial_merge(make_runtime, forge, tmp_path):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client, "detect_merge_conflicts", {"pr": PR1, "poll_interval_seconds": 0.05}
        )
    assert not is_error, result
    assert result["verdict"] == "conflicting" and result["mergeable"] is False
    expected = demo(forge)["pulls"]["conflicting"]["conflicts"]
    assert [c["path"] for c in result["conflicts"]] == expected
    conflict = result["conflicts"][0]
    assert conflict["kinds"] == ["contents"]
    assert conflict["preview"].startswith("<<<<<<<") and "round(a / b, 2)" in conflict["preview"]
    assert "git merge origin/main" in result["resolve"]
    assert any("src/demo_app/calc.py" in line for line in result["resolve"])
    assert user_clones(rt.settings.workspace_dir) == []  # only the server's scratch repo


async def test_conflicts_wait_for_github_to_compute_mergeability(make_runtime, forge, forge_token):
    full_name, number = conflicting_pr(forge, forge_token)
    set_mergeability_delay(forge, 3, full_name, number)
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with Client(build_mcp(make_runtime()), progress_handler=on_progress) as client:
        _, result = await call_tool(
            client,
            "detect_merge_conflicts",
            {"pr": f"{full_name}#{number}", "poll_interval_seconds": 0.05},
        )
    assert result["computed_by_github"] is True and result["mergeable"] is False
    assert [c["path"] for c in result["conflicts"]] == ["app.py"]
    assert len(requests_matching(forge, "GET", f"/repos/{full_name}/pulls/{number}")) >= 4
    assert len(progress) >= 3 and "mergeability" in progress[0]


async def test_readiness_asks_again_until_github_has_computed_mergeability(
    make_runtime, forge, forge_token
):
    """Not computed on the first reads: readiness asks again (short backoff) while it reads
    the rest, and reports the conflict, not "unknown"."""
    full_name, number = conflicting_pr(forge, forge_token)
    set_mergeability_delay(forge, 2, full_name, number)
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client, "check_merge_readiness", {"pr": f"{full_name}#{number}"}
        )
    assert not is_error, result
    assert result["mergeable"] is False
    assert "conflicts" in [b["kind"] for b in result["blocking"]]
    assert "mergeability_unknown" not in [w["kind"] for w in result.get("warnings") or []]
    pull = f"/repos/{full_name}/pulls/{number}"
    reads = [r for r in requests_matching(forge, "GET", pull) if r["path"] == pull]
    assert len(reads) == 3  # null, null, computed: asked until it was there, no more


async def test_conflicts_are_named_even_when_github_has_not_answered(
    make_runtime, forge, forge_token
):
    full_name, number = conflicting_pr(forge, forge_token)
    set_mergeability_delay(forge, 1000, full_name, number)
    async with mcp_client(make_runtime()) as client:
        _, result = await call_tool(
            client, "detect_merge_conflicts", {"pr": f"{full_name}#{number}", "timeout_seconds": 0}
        )
    assert result["computed_by_github"] is False and "mergeable" not in result
    assert result["verdict"] == "conflicting"
    assert [c["path"] for c in result["conflicts"]] == ["app.py"]


async def test_clean_pr_needs_no_trial_merge(make_runtime, forge):
    full_name = new_ci_repo(forge, {"feature": {"new.py": "x = 1\n"}})
    pr = create_pull(forge, full_name, "feature", "main", "Add new.py", user="alice")
    forge.clear_requests()
    async with mcp_client(make_runtime()) as client:
        _, result = await call_tool(
            client,
            "detect_merge_conflicts",
            {"pr": f"{full_name}#{pr['number']}", "poll_interval_seconds": 0.05},
        )
    assert result["verdict"] == "clean" and result["conflicts"] == [] and result["mergeable"]
    assert requests_matching(forge, "POST", "git-upload-pack") == []


async def test_conflicts_of_a_closed_pr_are_refused(make_runtime, forge, forge_token):
    full_name = new_ci_repo(forge, {"feature": {"new.py": "x = 1\n"}})
    pr = create_pull(forge, full_name, "feature", "main", "Add new.py", user="alice")
    with api(forge, forge_token) as client:
        client.patch(f"/repos/{full_name}/pulls/{pr['number']}", json={"state": "closed"})
    async with mcp_client(make_runtime()) as client:
        is_error, payload = await call_tool(
            client, "detect_merge_conflicts", {"pr": f"{full_name}#{pr['number']}"}
        )
    assert is_error and error_code(payload) == "unprocessable"


# --- check_merge_readiness -----


async def test_demo_pr_readiness_lists_every_blocker_with_its_action(make_runtime, forge):
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client, "check_merge_readiness", {"pr": PR1, "poll_interval_seconds": 0.05}
        )
    assert not is_error, result
    assert result["verdict"] == "blocked"
    kinds = [b["kind"] for b in result["blocking"]]
    assert kinds == [
        "conflicts", "changes_requested", "approvals", "checks_failing", "unresolved_threads"
    ]  # fmt: skip
    actions = {b["kind"]: b["action"] for b in result["blocking"]}
    assert actions["conflicts"].startswith(f"detect_merge_conflicts(pr='{PR1}')")
    assert actions["checks_failing"].startswith(f"get_failing_tests(pr='{PR1}')")
    assert actions["unresolved_threads"] == f"find_unresolved_comments(pr='{PR1}')"
    assert result["approvals"] == {
        "required": 1,
        "approved_by": [],
        "changes_requested_by": ["bob"],
    }
    assert result["required_checks"] == {
        "test-python": "failed", "test-js": "failed", "lint": "passed"
    }  # fmt: skip
    assert result["behind_by"] == 1 and result["unresolved_threads"] == 2
    assert result["protection"] == "branch protection rules"
    warnings = {w["kind"]: w for w in result["warnings"]}
    assert "codecov/patch" in warnings["check_failing"]["detail"]
    assert set(warnings) == {"check_failing", "behind"}  # not strict: behind only warns


async def test_readiness_counts_each_reviewers_latest_review(make_runtime, forge):
    full_name = new_ci_repo(forge, {"feature": {"new.py": "x = 1\n"}})
    set_branch_protection(forge, full_name, "main", required_approvals=1, required_checks=["unit"])
    pr = create_pull(forge, full_name, "feature", "main", "Add new.py", user="alice")
    number = pr["number"]
    add_check_run(forge, full_name, "feature", "unit")
    add_review(forge, full_name, number, user="bob", event="APPROVE")
    add_review(forge, full_name, number, user="carol", event="COMMENT", body="Nice.")
    args = {"pr": f"{full_name}#{number}", "poll_interval_seconds": 0.05}
    async with mcp_client(make_runtime()) as client:
        _, ready = await call_tool(client, "check_merge_readiness", args)
        add_review(forge, full_name, number, user="bob", event="COMMENT", body="One more thing")
        _, still = await call_tool(client, "check_merge_readiness", args)
        add_review(forge, full_name, number, user="bob", event="REQUEST_CHANGES", body="No.")
        _, blocked = await call_tool(client, "check_merge_readiness", args)
    assert ready["verdict"] == "ready" and ready["blocking"] == []
    assert ready["approvals"] == {"required": 1, "approved_by": ["bob"]}
    assert ready["required_checks"] == {"unit": "passed"}
    assert still["verdict"] == "ready"  # a later COMMENTED review does not undo an approval
    assert blocked["verdict"] == "blocked"
    assert [b["kind"] for b in blocked["blocking"]] == ["changes_requested", "approvals"]
    assert blocked["approvals"]["approved_by"] == []


async def test_readiness_waits_on_running_required_checks(make_runtime, forge):
    full_name = new_ci_repo(forge, {"feature": {"new.py": "x = 1\n"}})
    set_branch_protection(
        forge, full_name, "main", required_approvals=0, required_checks=["unit", "e2e"]
    )
    pr = create_pull(forge, full_name, "feature", "main", "Add new.py", user="alice")
    add_check_run(forge, full_name, "feature", "unit", status="in_progress", conclusion=None)
    async with mcp_client(make_runtime()) as client:
        _, result = await call_tool(
            client,
            "check_merge_readiness",
            {"pr": f"{full_name}#{pr['number']}", "poll_interval_seconds": 0.05},
        )
    assert result["verdict"] == "pending"
    assert [b["kind"] for b in result["blocking"]] == ["checks_pending"]
    assert result["required_checks"] == {"unit": "pending", "e2e": "expected"}
    assert "wait=True" in result["blocking"][0]["action"]


async def test_readiness_blocks_a_stale_branch_under_strict_protection(
    make_runtime, forge, forge_token
):
    full_name = new_ci_repo(forge, {"feature": {"new.py": "x = 1\n"}})
    set_branch_protection(
        forge, full_name, "main", required_approvals=0, required_checks=["unit"], strict=True
    )
    pr = create_pull(forge, full_name, "feature", "main", "Add new.py", user="alice", draft=True)
    add_check_run(forge, full_name, "feature", "unit")
    commit(forge, forge_token, full_name, "main", "README.md", "# app, updated\n")
    async with mcp_client(make_runtime()) as client:
        _, result = await call_tool(
            client,
            "check_merge_readiness",
            {"pr": f"{full_name}#{pr['number']}", "poll_interval_seconds": 0.05},
        )
    assert result["verdict"] == "blocked"
    assert [b["kind"] for b in result["blocking"]] == ["draft", "behind"]
    assert result["behind_by"] == 1 and result["draft"] is True
    assert "git merge origin/main" in result["blocking"][1]["action"]


async def test_readiness_without_protection_still_blocks_on_failing_checks(make_runtime, forge):
    full_name = new_ci_repo(forge, {"feature": {"new.py": "x = 1\n"}})
    pr = create_pull(forge, full_name, "feature", "main", "Add new.py", user="alice")
    add_workflow_run(forge, full_name, "ci.yml", ref="feature", jobs=[failed_job()])
    async with mcp_client(make_runtime()) as client:
        _, result = await call_tool(
            client,
            "check_merge_readiness",
            {"pr": f"{full_name}#{pr['number']}", "poll_interval_seconds": 0.05},
        )
    assert result["protection"] == "base branch unprotected" and "approvals" in result
    assert [b["kind"] for b in result["blocking"]] == ["checks_failing"]
    assert result["checks"] == {"passed": 0, "failed": 1, "pending": 0}


# --- manage_stacked_prs -----


async def test_demo_stack_is_verified_and_up_to_date(make_runtime, forge):
    pulls = demo(forge)["pulls"]
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client,
            "manage_stacked_prs",
            {"full_name": DEMO_REPO, "base_pr": PR1, "dependent_pr": f"{DEMO_REPO}#2"},
        )
        _, by_numbers = await call_tool(
            client,
            "manage_stacked_prs",
            {"full_name": DEMO_REPO, "base_pr": "1", "dependent_pr": "#2"},
        )
        is_error_bare, bare = await call_tool(
            client, "manage_stacked_prs", {"base_pr": "1", "dependent_pr": "2"}
        )
    assert not is_error, result
    assert result["stacked"] is True and result["status"] == "up_to_date"
    assert result["strategy"] == "none" and "commands" not in result
    assert result["commits_to_carry"] == 1 and result["base_commits_missing"] == 0
    assert result["base_pr"]["head"] == result["dependent_pr"]["base"] == pulls["stacked"]["base"]
    assert result["dependent_pr"]["head_sha"] == pulls["stacked"]["head_sha"]
    assert by_numbers == result
    assert is_error_bare and error_code(bare) == "invalid_input"  # which repository?


@pytest.fixture
def stack(forge: Forge, forge_token: str) -> dict[str, Any]:
    """main <- feature (PR base) <- stacked (PR dependent), in a fresh repository."""
    full_name = new_ci_repo(forge, {"feature": {"lib.py": "VALUE = 1\n", "base.py": "BASE = 1\n"}})
    branch_from(forge, forge_token, full_name, "stacked", head(forge, full_name, "feature"))
    commit(forge, forge_token, full_name, "stacked", "dep.py", "DEP = 1\n")
    base = create_pull(forge, full_name, "feature", "main", "Base", user="alice")
    dependent = create_pull(forge, full_name, "stacked", "feature", "Dependent", user="alice")
    return {
        "full_name": full_name,
        "args": {
            "full_name": full_name,
            "base_pr": f"{full_name}#{base['number']}",
            "dependent_pr": f"{full_name}#{dependent['number']}",
        },
        "base": base["number"],
        "dependent": dependent["number"],
    }


async def test_stack_behind_its_base_is_rebased_and_pushed(make_runtime, forge, forge_token, stack):
    full_name = stack["full_name"]
    new_base = commit(forge, forge_token, full_name, "feature", "base2.py", "BASE2 = 1\n")
    old = head(forge, full_name, "stacked")
    async with mcp_client(make_runtime()) as client:
        _, plan = await call_tool(client, "manage_stacked_prs", stack["args"])
        is_error, done = await call_tool(
            client, "manage_stacked_prs", {**stack["args"], "execute": True}
        )
        _, after = await call_tool(client, "manage_stacked_prs", stack["args"])
    assert plan["status"] == "needs_rebase" and plan["strategy"] == "rebase"
    assert plan["commits_to_carry"] == 1 and plan["base_commits_missing"] == 1
    assert plan["commands"] == [
        "git fetch origin feature stacked",
        "git switch -C stacked origin/stacked",
        "git rebase origin/feature",
        f"git push --force-with-lease=stacked:{old} origin stacked",
    ]
    assert plan["next"] == (
        f"manage_stacked_prs(full_name='{full_name}', base_pr='{stack['base']}', "
        f"dependent_pr='{stack['dependent']}', execute=True)"
    )
    assert not is_error, done
    executed = done["executed"]
    assert executed["status"] == "rebased" and executed["pushed"] is True
    assert executed["old_head_sha"] == old and executed["replayed"] == 1
    new = head(forge, full_name, "stacked")
    assert executed["new_head_sha"] == new != old
    assert is_ancestor(forge, full_name, new_base, new)
    assert git(forge, full_name, "show", f"{new}:dep.py") == "DEP = 1"
    assert git(forge, full_name, "rev-list", "--count", f"{new_base}..{new}") == "1"
    assert after["status"] == "up_to_date"
    assert len(requests_matching(forge, "POST", f"/{full_name}.git/git-receive-pack")) == 1


async def test_squash_merged_base_uses_rebase_onto(make_runtime, forge, forge_token, stack):
    full_name = stack["full_name"]
    base_head = head(forge, full_name, "feature")
    with api(forge, forge_token) as client:
        merged = client.put(
            f"/repos/{full_name}/pulls/{stack['base']}/merge", json={"merge_method": "squash"}
        )
        assert merged.status_code == 200, merged.text
    old = head(forge, full_name, "stacked")
    async with mcp_client(make_runtime()) as client:
        _, plan = await call_tool(client, "manage_stacked_prs", stack["args"])
        is_error, done = await call_tool(
            client, "manage_stacked_prs", {**stack["args"], "execute": True}
        )
        _, dependent = await call_tool(
            client, "get_latest_branch_status", {"full_name": full_name, "branch": "stacked"}
        )
    assert plan["status"] == "base_merged" and plan["strategy"] == "rebase_onto"
    assert plan["base_pr"]["state"] == "merged" and plan["commits_to_carry"] == 1
    assert f"git rebase --onto origin/main {base_head} stacked" in plan["commands"]
    assert plan["commands"][-1] == (
        f"update_pull_request(pr='{full_name}#{stack['dependent']}', base='main')"
    )
    assert not is_error, done
    executed = done["executed"]
    assert executed["status"] == "rebased" and executed["retargeted_to"] == "main"
    new = head(forge, full_name, "stacked")
    main = head(forge, full_name, "main")
    assert executed["new_head_sha"] == new != old
    assert is_ancestor(forge, full_name, main, new)
    assert not is_ancestor(forge, full_name, base_head, new)  # the squashed commits are gone
    assert git(forge, full_name, "rev-list", "--count", f"{main}..{new}") == "1"
    assert dependent["pull_request"]["number"] == stack["dependent"]
    with api(forge, forge_token) as client:
        pull = client.get(f"/repos/{full_name}/pulls/{stack['dependent']}").json()
    assert pull["base"]["ref"] == "main" and pull["head"]["sha"] == new


async def test_rebase_conflict_names_files_and_leaves_the_branch(
    make_runtime, forge, forge_token, stack
):
    full_name = stack["full_name"]
    commit(forge, forge_token, full_name, "stacked", "lib.py", "VALUE = 2\n")
    commit(forge, forge_token, full_name, "feature", "lib.py", "VALUE = 3\n")
    old = head(forge, full_name, "stacked")
    forge.clear_requests()
    async with mcp_client(make_runtime()) as client:
        is_error, done = await call_tool(
            client, "manage_stacked_prs", {**stack["args"], "execute": True}
        )
    assert not is_error, done
    executed = done["executed"]
    assert executed["status"] == "conflict" and executed["pushed"] is False
    assert executed["conflicts"] == ["lib.py"] and executed["failed_commit"]
    assert "new_head_sha" not in executed
    assert head(forge, full_name, "stacked") == old
    assert requests_matching(forge, "POST", "git-receive-pack") == []
    assert "lib.py" in done["next"]


async def test_unstacked_prs_are_reported_and_not_executed(make_runtime, forge, stack):
    full_name = stack["full_name"]
    args = {**stack["args"], "base_pr": stack["args"]["dependent_pr"]}
    args["dependent_pr"] = f"{full_name}#{stack['base']}"  # reversed: not a stack
    async with mcp_client(make_runtime()) as client:
        _, plan = await call_tool(client, "manage_stacked_prs", args)
        is_error, refused = await call_tool(client, "manage_stacked_prs", {**args, "execute": True})
        is_error_same, same = await call_tool(
            client,
            "manage_stacked_prs",
            {**stack["args"], "dependent_pr": stack["args"]["base_pr"]},
        )
    assert plan["stacked"] is False and plan["status"] == "not_stacked"
    assert plan["commands"] == [
        f"update_pull_request(pr='{full_name}#{stack['base']}', base='stacked')"
    ]
    assert is_error and error_code(refused) == "unprocessable"
    assert is_error_same and error_code(same) == "invalid_input"


async def test_stack_execute_is_gated_by_the_dependent_branch(make_runtime, forge, stack):
    forge.clear_requests()
    async with mcp_client(make_runtime(protected_branches="stack*")) as client:
        is_error, denied = await call_tool(
            client, "manage_stacked_prs", {**stack["args"], "execute": True}
        )
    assert is_error and error_code(denied) == "write_not_allowed"
    assert denied["error"]["reason"] == "protected_glob"
    assert requests_matching(forge, "POST", "git-receive-pack") == []


async def test_stack_refs_outside_the_allowlist_are_refused(make_runtime, forge, stack):
    args = {k: v for k, v in stack["args"].items() if k != "full_name"}
    forge.clear_requests()
    async with mcp_client(make_runtime(repo_allowlist="someone/else")) as client:
        is_error, payload = await call_tool(client, "manage_stacked_prs", args)
        is_error_mixed, mixed = await call_tool(
            client,
            "manage_stacked_prs",
            {**args, "dependent_pr": "someone/else#2"},
        )
    assert is_error and error_code(payload) == "repo_not_allowed"
    assert is_error_mixed and error_code(mixed) == "invalid_input"
    assert forge.requests() == []


# --- sizes -----


async def test_automation_outputs_on_the_demo_pr_stay_compact(make_runtime, forge):
    calls = {
        "get_failing_tests": {"pr": PR1, "limit": 3},
        "find_unresolved_comments": {"pr": PR1},
        "detect_merge_conflicts": {"pr": PR1, "poll_interval_seconds": 0.05},
        "check_merge_readiness": {"pr": PR1, "poll_interval_seconds": 0.05},
        "manage_stacked_prs": {
            "full_name": DEMO_REPO, "base_pr": PR1, "dependent_pr": f"{DEMO_REPO}#2"
        },
    }  # fmt: skip
    sizes = {}
    async with mcp_client(make_runtime()) as client:
        for name, args in calls.items():
            result = await client.call_tool(name, args)
            sizes[name] = len(result.content[0].text.encode())
    print("automation output bytes on the demo PR:", sizes)
    assert sizes["get_failing_tests"] <= 2048
    assert all(size <= 4096 for size in sizes.values()), sizes
