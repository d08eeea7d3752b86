"""`make demo`: a scripted session through a real MCP client against the embedded forge.

The script starts the sandbox forge (seeded with octo-org/demo-app), serves the MCP server
over streamable HTTP on loopback with bearer authentication, and drives it with fastmcp's
Client the way an assistant would: read the tree and a file, branch, patch with a verified
commit, open a PR, run the tests in the workspace, diagnose a failing CI, list unresolved
review comments, check merge readiness, and merge. Between two steps the script also plays
the rest of the world (CI reporting green, a reviewer approving, the human approving the
merge), and says so. The calls are in `demo_script.py`; this module runs them: the forge,
the server, the client, and the world's moves on the forge.

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
from typing import TYPE_CHECKING, Any, TextIO

from github_mcp.cli.demo_script import BRANCH, CI_JOBS, REPO, World, session
from github_mcp.cli.demo_transcript import (
    DemoReport,
    Session,
    StepFailed,
    forge_changes,
    forge_refs,
    print_summary,
)
from github_mcp.cli.demo_world import BEARER, capture_status_page
from github_mcp.serving.loopback import serve_in_thread

if TYPE_CHECKING:
    from github_mcp.config import Settings


def forge_world(forge: Any) -> World:
    """The rest of the world, played on the forge: the seeded teammate's PR and issue, CI
    reporting green on a head, and bob approving a PR."""
    collab = forge.state.extensions.get("collab_demo", {})
    return World(
        teammates_pr=collab.get("pulls", {}).get("conflicting", {}).get("number", 1),
        issue=collab.get("issues", {}).get("enhancement"),
        ci_reports_green=lambda head_sha: ci_reports_green(forge, head_sha),
        reviewer_approves=lambda number: reviewer_approves(forge, number),
    )


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


def _demo_settings(forge: Any, tmp: Path) -> Settings:
    from github_mcp.config import Settings

    return Settings(
        github_api_url=forge.base_url,
        github_token=forge.create_token(login="octocat"),
        auth_tokens=BEARER,
        audit_log=tmp / "audit.jsonl",
        workspace_dir=tmp / "workspaces",
        # The demo's tests need this interpreter's pytest, which the bubblewrap sandbox
        # (the server's default) does not show; the demo is one local, trusted user.
        workspace_sandbox="none",
        # the script calls workspace and Actions tools directly, as a client that has
        # enabled them would; listing them keeps the client from warning about them
        toolsets="all",
    )


async def _drive(url: str, forge: Any, out: TextIO, report: DemoReport) -> None:
    """List the tools, then run the scripted session; a misbehaving step ends it."""
    from fastmcp import Client

    transcript = Session(None, out, report)
    async with Client(url + "/mcp", auth=BEARER, log_handler=transcript.server_says) as client:
        listing = await client.list_tools_mcp()
        report.tools = len(listing.tools)
        report.tools_list_bytes = len(
            listing.model_dump_json(by_alias=True, exclude_none=True).encode()
        )
        print(f"tools/list: {report.tools} tools, {report.tools_list_bytes:,} bytes", file=out)
        try:
            script = Session(client, out, report)
            await session(forge_world(forge), script, url + "/status")
            report.ok = True
        except StepFailed as exc:
            report.failure = str(exc)


async def run(
    out: TextIO,
    *,
    screenshot: Path | None = None,
    on_forge: Callable[[Any], None] | None = None,
    keep: bool = False,
) -> DemoReport:
    """Start the forge and the server, run the session, and return what happened."""
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
        rt = Runtime.create(_demo_settings(forge, Path(tmp)))
        try:
            with serve_in_thread(build_http_app(rt)) as url:
                where = f": forge {forge.base_url}, MCP {url}/mcp" if keep else " on loopback"
                print(f"GitHub MCP Controller demo{where}", file=out)
                before = forge_refs(forge, REPO)
                await _drive(url, forge, out, report)
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
