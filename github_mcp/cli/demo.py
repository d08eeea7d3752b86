"""`make demo`: a scripted session through a real MCP client against the embedded forge.

The script starts the sandbox forge (seeded with octo-org/demo-app), serves the MCP server
over streamable HTTP on loopback with bearer authentication, and drives it with fastmcp's
Client the way an assistant would: read the tree and a file, branch, patch with a verified
commit, open a PR, run the tests in the workspace, diagnose a failing CI, list unresolved
review comments, check merge readiness, and merge. Between two steps the script also plays
the rest of the world (CI reporting green, a reviewer approving, the human approving the
merge), and says so.

Each call prints the arguments, the outcome, the response size and a one-line summary of
what came back. The script stops and exits 1 at the first step that misbehaves.

    python -m github_mcp.cli.demo [--screenshot docs/status-page.png] [--json report.json] [--keep]

With --keep (`make demo KEEP=1`) the server and forge stay up after the summary, so the
/status page it names can be opened; without it no URL of the stopped server is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from github_mcp.cli.demo_transcript import (
    DemoReport,
    Session,
    StepFailed,
    forge_changes,
    forge_refs,
    print_summary,
    shorten,
)
from github_mcp.cli.demo_world import (
    BEARER,
    added_multiply,
    approve_on_page,
    capture_status_page,
    tree_summary,
)
from github_mcp.serving.loopback import serve_in_thread

REPO = "octo-org/demo-app"
BRANCH = "demo/multiply"
CI_JOBS = ("test-python", "test-js", "lint")


# -- the world outside the server -------------------------------------------------------------


def ci_reports_green(forge: Any, head_sha: str) -> None:
    from sandbox_forge.admin.seed_collab import add_workflow_run

    add_workflow_run(
        forge,
        REPO,
        "ci.yml",
        head_sha=head_sha,
        head_branch=BRANCH,
        event="pull_request",
        conclusion="success",
        jobs=[{"name": job, "conclusion": "success"} for job in CI_JOBS],
    )


def reviewer_approves(forge: Any, number: int) -> None:
    from sandbox_forge.admin.seed_collab import add_review

    add_review(forge, REPO, number, user="bob", event="APPROVE", body="Looks good, thanks!")


# -- the session --------------------------------------------------------------------------------


async def session(
    forge: Any, client: Any, out: TextIO, report: DemoReport, status_url: str
) -> None:
    s = Session(client, out, report)
    collab = forge.state.extensions.get("collab_demo", {})
    red_pr = collab.get("pulls", {}).get("conflicting", {}).get("number", 1)
    issue = collab.get("issues", {}).get("enhancement")

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
            + " | ".join(line for line in p["content"].splitlines() if line.startswith("def "))
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
    diffs = added_multiply(
        calc["content"], texts["src/demo_app/__init__.py"], texts["tests/test_calc.py"]
    )
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
            "message": "Add multiply()" + (f"\n\nCloses #{issue}." if issue else ""),
        },
        lambda p: (
            f"commit {p['verification']['commit_sha'][:10]}, "
            f"verified={p['verification']['verified']}, files: "
            + ", ".join(f.get("path", "?") for f in p.get("files", []))
        ),
        check=lambda p: None if p["verification"]["verified"] else "commit not verified",
    )
    head_sha = commit["verification"]["commit_sha"]

    s.heading("Open a pull request")
    pr = await s.call(
        "create_pull_request",
        {
            "full_name": REPO,
            "head": BRANCH,
            "base": "main",
            "title": "Add multiply()",
            "body": "Adds `multiply(a, b)` with a test."
            + (f"\n\nCloses #{issue}." if issue else ""),
        },
        lambda p: (
            f"#{p['number']} {p.get('url') or p.get('html_url', '')}"
            + (" (already existed)" if p.get("already_existed") else "")
        ),
    )
    number = pr["number"]
    pr_ref = f"{REPO}#{number}"

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

    s.heading(f"Diagnose the failing CI of #{red_pr} (a teammate's PR)")

    def failing_summary(p: dict[str, Any]) -> str:
        lines = [
            f"status {p['status']}: {p['checks']['failed']} of {p['checks']['total']} "
            f"checks failed, {p['total_failures']} failing tests"
        ]
        for t in p["failures"][:4]:
            lines.append(f"✗ {t['test']} [{t['runner']}, {t['job']}]: {shorten(t['message'], 90)}")
        lines += [f"next: {n}" for n in (p.get("next") or [])[:1]]
        return "\n".join(lines)

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

    s.heading(f"Check merge readiness of #{number}")

    def readiness(p: dict[str, Any]) -> str:
        lines = [f"verdict: {p['verdict']}"]
        lines += [f"• {b['kind']}: {b['detail']} → {b['action']}" for b in p["blocking"][:5]]
        return "\n".join(lines)

    await s.call(
        "check_merge_readiness",
        {"pr": pr_ref},
        readiness,
        check=lambda p: (
            None if p["verdict"] != "ready" else "a PR with no CI and no approval must not be ready"
        ),
    )
    s.world(f"CI runs on {head_sha[:10]}: " + ", ".join(f"{j} ✓" for j in CI_JOBS))
    ci_reports_green(forge, head_sha)
    s.world("bob reviews the PR and approves it")
    reviewer_approves(forge, number)
    await s.call(
        "check_merge_readiness",
        {"pr": pr_ref},
        readiness,
        check=lambda p: None if p["verdict"] == "ready" else f"not ready: {shorten(p, 300)}",
    )

    s.heading(f"Merge #{number}")
    merge_args = {"pr": pr_ref, "merge_method": "squash", "expected_head_sha": head_sha}
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
        lambda p: (
            "main now has: "
            + " | ".join(line for line in p["content"].splitlines() if line.startswith("def "))
        ),
        check=lambda p: None if "def multiply" in p["content"] else "multiply() is not on main",
    )
    await s.call(
        "authorize_write_actions",
        {"approved": False},
        lambda p: f"approved={p['approved']}: approval revoked",
    )

    import httpx2 as httpx

    async with httpx.AsyncClient() as http:
        page = await http.get(status_url, headers={"Authorization": f"Bearer {BEARER}"})
    if page.status_code != 200 or "merge_pull_request" not in page.text:
        raise StepFailed(f"/status did not show the session (HTTP {page.status_code})")


async def run(
    out: TextIO,
    *,
    screenshot: Path | None = None,
    on_forge: Callable[[Any], None] | None = None,
    keep: bool = False,
) -> DemoReport:
    """Start the forge and the server, run the session, and return what happened."""
    from fastmcp import Client

    from github_mcp.config import Settings
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.serving.server import build_http_app
    from github_mcp.status.page import render_status
    from sandbox_forge import Forge
    from sandbox_forge.admin.seed import seed_demo

    report = DemoReport()
    started = time.perf_counter()
    # run_tests uses `python -m pytest` from PATH: put this interpreter's environment first.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    with tempfile.TemporaryDirectory(prefix="github-mcp-demo-") as tmp, Forge() as forge:
        seed_demo(forge)
        if on_forge is not None:
            on_forge(forge)
        settings = Settings(
            github_api_url=forge.base_url,
            github_token=forge.create_token(login="octocat"),
            auth_tokens=BEARER,
            audit_log=Path(tmp) / "audit.jsonl",
            workspace_dir=Path(tmp) / "workspaces",
            # The demo's tests need this interpreter's pytest, which the bubblewrap sandbox
            # (the server's default) does not show; the demo is one local, trusted user.
            workspace_sandbox="none",
            # the script calls workspace and Actions tools directly, as a client that has
            # enabled them would; listing them keeps the client from warning about them
            toolsets="all",
        )
        rt = Runtime.create(settings)
        try:
            with serve_in_thread(build_http_app(rt)) as url:
                where = f": forge {forge.base_url}, MCP {url}/mcp" if keep else " on loopback"
                print(f"GitHub MCP Controller demo{where}", file=out)
                before = forge_refs(forge, REPO)
                transcript = Session(None, out, report)
                async with Client(
                    url + "/mcp", auth=BEARER, log_handler=transcript.server_says
                ) as client:
                    listing = await client.list_tools_mcp()
                    report.tools = len(listing.tools)
                    report.tools_list_bytes = len(
                        listing.model_dump_json(by_alias=True, exclude_none=True).encode()
                    )
                    print(
                        f"tools/list: {report.tools} tools, {report.tools_list_bytes:,} bytes",
                        file=out,
                    )
                    try:
                        await session(forge, client, out, report, url + "/status")
                        report.ok = True
                    except StepFailed as exc:
                        report.failure = str(exc)
                if screenshot is not None:
                    capture_status_page(render_status(rt), screenshot)
                report.wall_s = round(time.perf_counter() - started, 2)
                print_summary(out, report, forge_changes(forge, REPO, before))
                if keep:
                    await keep_serving(out, url)
                else:
                    print("  (make demo KEEP=1 keeps the server running for /status)", file=out)
        finally:
            await rt.aclose()
    return report


async def keep_serving(out: TextIO, url: str) -> None:
    """KEEP=1: the demo's server and forge stay up, so its /status page can be opened."""
    import signal

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(
        f"\nThe demo's server is still running: {url}/status (sign in with the token "
        f"{BEARER}). Press Ctrl-C to stop.",
        file=out,
        flush=True,
    )
    await stop.wait()


def main(argv: list[str] | None = None, on_forge: Callable[[Any], None] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m github_mcp.cli.demo",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--screenshot", type=Path, help="save the /status page as a PNG")
    parser.add_argument("--json", type=Path, help="write the call sizes and timings as JSON")
    parser.add_argument(
        "--keep", action="store_true", help="leave the server running afterwards (for /status)"
    )
    args = parser.parse_args(argv)
    import logging

    import fastmcp  # noqa: F401 - installs its log handler, which configure_logging replaces

    from github_mcp.monitoring.observability import configure_logging

    configure_logging("WARNING")  # the transcript tells the story; logs only for trouble
    for handler in logging.getLogger().handlers:
        # fastmcp logs what it sends a client, lowered to DEBUG after the level check
        handler.setLevel(logging.WARNING)
    report = asyncio.run(
        run(sys.stdout, screenshot=args.screenshot, on_forge=on_forge, keep=args.keep)
    )
    if args.json:
        args.json.write_text(json.dumps(asdict(report), indent=1))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
