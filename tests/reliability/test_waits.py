"""Bounded waits keep their promises: progress while waiting, and an MCP cancellation
from the client ends the wait at once (no more polls reach the forge)."""

from __future__ import annotations

import asyncio
import logging
import time

from github_mcp.services.actions import poll
from sandbox_forge.admin.collab_seeding import add_check_run, create_pull
from tests.conftest import call_tool, mcp_client
from tests.test_tools_write import new_repo


def _check_polls(forge, repo: str) -> int:
    return sum(
        1 for e in forge.requests() if e["method"] == "GET" and repo in e["path"]
        and e["path"].endswith("/check-runs")
    )  # fmt: skip


async def test_cancelled_wait_for_failing_tests_stops_at_once(make_runtime, forge, caplog):
    repo = new_repo(forge, {"README.md": "# r\n"}, prefix="waits-org")
    add_check_run(forge, repo, "feature", "unit", status="in_progress", conclusion=None)
    number = create_pull(forge, repo, "feature", "main", "Pending CI")["number"]
    progressed = asyncio.Event()

    async def on_progress(progress, total, message):
        progressed.set()

    caplog.set_level(logging.INFO, logger="github_mcp")
    async with mcp_client(make_runtime()) as client:
        waiting = asyncio.ensure_future(
            client.call_tool(
                "get_failing_tests",
                # Without the cancellation this waits a minute before its next poll.
                {"full_name": repo, "number": number, "wait": True,
                 "poll_interval_seconds": 60},
                progress_handler=on_progress,
                raise_on_error=False,
            )
        )  # fmt: skip
        await asyncio.wait_for(progressed.wait(), 30)
        polls_at_cancel = _check_polls(forge, repo)
        waiting.cancel()  # the client sends notifications/cancelled for the request
        deadline = time.monotonic() + 120
        while not any(r.getMessage() == "poll_cancelled" for r in caplog.records):
            assert time.monotonic() < deadline, "the server kept waiting after the cancel"
            await asyncio.sleep(0.01)
        polls_after = _check_polls(forge, repo)
        # The session stays usable after the cancellation.
        is_error, pr = await call_tool(
            client, "get_pr_overview", {"full_name": repo, "number": number}
        )
    assert waiting.cancelled()
    assert polls_at_cancel >= 1 and polls_after == polls_at_cancel
    assert not is_error, pr


async def test_long_waits_between_polls_keep_reporting_progress():
    loads: list[float] = []
    reports: list[tuple[int, float]] = []

    async def load() -> int:
        loads.append(time.monotonic())
        return len(loads)

    async def report(value: int, polls: int, elapsed: float) -> None:
        reports.append((polls, elapsed))

    polled = await poll(
        load, lambda _: False, timeout_s=0.6, interval_s=0.5, on_poll=report, heartbeat_s=0.05
    )
    assert not polled.done and polled.polls == len(loads) >= 2
    heartbeats = [r for r in reports if r[0] == 1]
    assert len(heartbeats) >= 3  # the first wait of 0.5 s was not silent
    elapsed = [e for _, e in reports]
    assert elapsed == sorted(elapsed)  # progress only grows
