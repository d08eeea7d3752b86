"""The demo's script: the calls an assistant makes through the MCP client, step by step,
from reading the tree to merging the pull request. The rest of the world (CI, a reviewer)
is played between two steps by whoever runs the script (`demo.py`, on the forge)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from github_mcp.cli.demo_transcript import Session, StepFailed, shorten
from github_mcp.cli.demo_world import BEARER, added_multiply, approve_on_page, tree_summary

REPO = "octo-org/demo-app"
BRANCH = "demo/multiply"
CI_JOBS = ("test-python", "test-js", "lint")


@dataclass(frozen=True)
class World:
    """What the script needs from outside the server: the seeded teammate's PR and issue,
    and the people and systems that act between two steps."""

    teammates_pr: int  # failing CI and unresolved review threads
    issue: int | None  # the issue the change closes
    ci_reports_green: Callable[[str], None]  # given the head SHA
    reviewer_approves: Callable[[int], None]  # given the PR number


async def session(world: World, s: Session, status_url: str) -> None:
    """The whole script; the first step that misbehaves raises StepFailed."""
    calc, texts = await read_the_code(s)
    head_sha = await commit_the_change(s, calc, texts, world.issue)
    number = await open_the_pull_request(s, world.issue)
    await run_the_tests(s)
    await diagnose_a_teammates_pr(s, world.teammates_pr)
    await get_it_ready(s, world, number, head_sha)
    await merge(s, number, head_sha)
    await status_page_shows_the_session(status_url)


async def read_the_code(s: Session) -> tuple[str, dict[str, str]]:
    """The tree, then calc.py and the two files a change to it touches (at the tree's
    commit): calc.py's text and the others' by path."""
    s.heading("Read the tree")
    tree = await s.call(
        "list_repository_tree",
        {"full_name": REPO},
        tree_summary,
        check=lambda p: (
            None
            if any(f["path"] == "src/demo_app/calc.py" for f in p["file_tree"])
            else "src/demo_app/calc.py is missing from the tree"
        ),
    )
    s.heading("Read a file")
    calc = await s.call(
        "get_file_contents",
        {"full_name": REPO, "path": "src/demo_app/calc.py"},
        lambda p: (
            f"{p['size']} bytes, blob {p['sha'][:10]}, truncated={p['truncated']}\n"
            + _functions(p["content"])
        ),
        check=lambda p: None if "def divide" in p["content"] else "divide() not found",
    )
    others = await s.call(
        "fetch_files",
        {
            "full_name": REPO,
            "paths": ["src/demo_app/__init__.py", "tests/test_calc.py"],
            "ref": tree["resolved_sha"],
        },
        lambda p: (
            f"{p['ok']} read, {p['failed']} failed: "
            + ", ".join(f"{f['path']} ({f.get('total_bytes')} bytes)" for f in p["files"])
        ),
        check=lambda p: (
            None
            if len(p["files"]) == 2 and all("content" in f for f in p["files"])
            else "could not read both files"
        ),
    )
    texts = {f["path"]: f["content"] for f in others["files"]}
    return calc["content"], texts


async def commit_the_change(s: Session, calc: str, texts: dict[str, str], issue: int | None) -> str:
    """Branch, then apply the patch as a verified commit; the commit's SHA."""
    s.heading("Create a branch")
    await s.call(
        "create_branch",
        {"full_name": REPO, "branch": BRANCH, "from_ref": "main"},
        lambda p: (
            f"{p.get('branch', BRANCH)} at {str(p.get('sha', ''))[:10]}"
            + ("" if p.get("created", True) else " (already existed)")
        ),
    )
    s.heading("Apply a patch as a verified commit")
    diffs = added_multiply(calc, texts["src/demo_app/__init__.py"], texts["tests/test_calc.py"])
    patch = "".join(diffs.values())
    s.say("     the patch (made against the text just read):")
    for line in patch.splitlines():
        s.say(f"       {line}")
    commit = await s.call(
        "apply_patch_and_commit",
        {
            "full_name": REPO,
            "branch": BRANCH,
            "patch": patch,
            "message": _closing("Add multiply()", issue),
        },
        lambda p: (
            f"commit {p['verification']['commit_sha'][:10]}, "
            f"verified={p['verification']['verified']}, files: "
            + ", ".join(f.get("path", "?") for f in p.get("files", []))
        ),
        check=lambda p: None if p["verification"]["verified"] else "commit not verified",
    )
    return str(commit["verification"]["commit_sha"])


async def open_the_pull_request(s: Session, issue: int | None) -> int:
    s.heading("Open a pull request")
    pr = await s.call(
        "create_pull_request",
        {
            "full_name": REPO,
            "head": BRANCH,
            "base": "main",
            "title": "Add multiply()",
            "body": _closing("Adds `multiply(a, b)` with a test.", issue),
        },
        lambda p: (
            f"#{p['number']} {p.get('url') or p.get('html_url', '')}"
            + (" (already existed)" if p.get("already_existed") else "")
        ),
    )
    return int(pr["number"])


async def run_the_tests(s: Session) -> None:
    s.heading("Run the tests in the workspace")
    await s.call(
        "run_tests",
        {
            "full_name": REPO,
            "ref": BRANCH,
            "test_command": "python -m pytest -q",
            "use_venv": False,
            "timeout_seconds": 300,
        },
        lambda p: (
            f"{p['passed']} passed, {p['failed']} failed, {p['errors']} errors, "
            f"{p['skipped']} skipped in {p['duration_s']} s (parsed from {p.get('parsed_from')})"
        ),
        check=lambda p: (
            None
            if p["failed"] == 0 and p["errors"] == 0 and p["passed"] >= 3
            else f"expected every test to pass: {shorten(p, 300)}"
        ),
    )


async def diagnose_a_teammates_pr(s: Session, red_pr: int) -> None:
    s.heading(f"Diagnose the failing CI of #{red_pr} (a teammate's PR)")
    await s.call(
        "get_failing_tests",
        {"pr": f"{REPO}#{red_pr}"},
        failing_summary,
        check=lambda p: (
            None
            if p["status"] == "failed" and p["failures"] and all(t["test"] for t in p["failures"])
            else "expected named failing tests"
        ),
    )
    s.heading(f"List the unresolved review comments of #{red_pr}")
    await s.call(
        "find_unresolved_comments",
        {"pr": f"{REPO}#{red_pr}"},
        threads_summary,
        check=lambda p: (
            None
            if p["counts"]["unresolved"] == len(p["threads"]) >= 1
            else "expected unresolved threads"
        ),
    )


async def get_it_ready(s: Session, world: World, number: int, head_sha: str) -> None:
    """Not ready with no CI and no review; ready once CI is green and bob approved."""
    pr_ref = f"{REPO}#{number}"
    s.heading(f"Check merge readiness of #{number}")
    await s.call(
        "check_merge_readiness",
        {"pr": pr_ref},
        readiness,
        check=lambda p: (
            None if p["verdict"] != "ready" else "a PR with no CI and no approval must not be ready"
        ),
    )
    s.world(f"CI runs on {head_sha[:10]}: " + ", ".join(f"{j} ✓" for j in CI_JOBS))
    world.ci_reports_green(head_sha)
    s.world("bob reviews the PR and approves it")
    world.reviewer_approves(number)
    await s.call(
        "check_merge_readiness",
        {"pr": pr_ref},
        readiness,
        check=lambda p: None if p["verdict"] == "ready" else f"not ready: {shorten(p, 300)}",
    )


async def merge(s: Session, number: int, head_sha: str) -> None:
    """Refused until the human approves on the page; then merged, and the approval revoked."""
    s.heading(f"Merge #{number}")
    merge_args = {"pr": f"{REPO}#{number}", "merge_method": "squash", "expected_head_sha": head_sha}
    refused = await s.call("merge_pull_request", merge_args, str, expect_error="write_not_allowed")
    link = refused["error"].get("approval_url")
    if not link:
        raise StepFailed(f"the refusal carries no approval page link: {shorten(refused, 300)}")
    s.world("the human opens the approval page, reads what will be written, and approves it")
    await asyncio.to_thread(approve_on_page, link)
    await s.call(
        "merge_pull_request",
        merge_args,
        lambda p: f"merged={p.get('merged')} as {str(p.get('sha', ''))[:10]}",
        check=lambda p: None if p.get("merged") else "not merged",
    )
    await s.call(
        "get_file_contents",
        {"full_name": REPO, "path": "src/demo_app/calc.py", "ref": "main"},
        lambda p: "main now has: " + _functions(p["content"]),
        check=lambda p: None if "def multiply" in p["content"] else "multiply() is not on main",
    )
    await s.call(
        "authorize_write_actions",
        {"approved": False},
        lambda p: f"approved={p['approved']}: approval revoked",
    )


async def status_page_shows_the_session(status_url: str) -> None:
    import httpx2 as httpx

    async with httpx.AsyncClient() as http:
        page = await http.get(status_url, headers={"Authorization": f"Bearer {BEARER}"})
    if page.status_code != 200 or "merge_pull_request" not in page.text:
        raise StepFailed(f"/status did not show the session (HTTP {page.status_code})")


# -- what a step's answer is summed up as ---------------------------------------------------


def failing_summary(p: dict[str, Any]) -> str:
    lines = [
        f"status {p['status']}: {p['checks']['failed']} of {p['checks']['total']} "
        f"checks failed, {p['total_failures']} failing tests"
    ]
    for t in p["failures"][:4]:
        lines.append(f"✗ {t['test']} [{t['runner']}, {t['job']}]: {shorten(t['message'], 90)}")
    lines += [f"next: {n}" for n in (p.get("next") or [])[:1]]
    return "\n".join(lines)


def threads_summary(p: dict[str, Any]) -> str:
    c = p["counts"]
    lines = [
        f"{c['unresolved']} unresolved of {c['threads']} threads "
        f"(review decision: {p.get('review_decision')})"
    ]
    for t in p["threads"]:
        lines.append(
            f"• {t['path']}:{t.get('line')} {t.get('author')}: "
            f"{shorten(t['body'], 70)} (awaiting {t['awaiting']})"
        )
    return "\n".join(lines)


def readiness(p: dict[str, Any]) -> str:
    lines = [f"verdict: {p['verdict']}"]
    lines += [f"• {b['kind']}: {b['detail']} → {b['action']}" for b in p["blocking"][:5]]
    return "\n".join(lines)


def _functions(source: str) -> str:
    return " | ".join(line for line in source.splitlines() if line.startswith("def "))


def _closing(text: str, issue: int | None) -> str:
    return text + (f"\n\nCloses #{issue}." if issue else "")
