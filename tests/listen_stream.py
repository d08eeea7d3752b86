"""A `subscriptions/listen` stream read frame by frame over HTTP, and the forge-side helpers
of the watched-run tests: a queued run, its URI, the forge's log of its GETs, and a
condition wait whose bound only catches a hang."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx2 as httpx

from sandbox_forge.admin.seed_collab import add_workflow_run
from tests.stdio_session import modern_meta

UPDATED = "notifications/resources/updated"
HANG_S = 120  # bounds a hang only


def queued_run(forge: Any, repo: str) -> int:
    run = add_workflow_run(forge, repo, "ci.yml", status="queued", jobs=[{"name": "unit"}])
    assert run["status"] == "queued", run
    return int(run["id"])


def uri_of(repo: str, run_id: int) -> str:
    return f"repo://{repo}/actions/runs/{run_id}"


def run_gets(forge: Any, repo: str, run_id: int, since: int = 0) -> list[dict[str, Any]]:
    """The forge's log of GETs of the run (the server's polls and reads), finished ones."""
    path = f"/repos/{repo}/actions/runs/{run_id}"
    return [
        r
        for r in forge.requests()[since:]
        if r["method"] == "GET" and r["path"] == path and r.get("status") is not None
    ]


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait for `condition`; the bound only catches a hang."""
    async with asyncio.timeout(HANG_S):
        while not condition():
            await asyncio.sleep(0.05)
    assert condition(), what


def rerun(forge: Any, repo: str, run_id: int) -> None:
    """A new attempt, asked through the forge's API as a person would (queued again)."""
    token = forge.create_token(login="octocat")
    answer = httpx.post(
        f"{forge.base_url}/repos/{repo}/actions/runs/{run_id}/rerun",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text


class RawListen:
    """One `subscriptions/listen` stream over HTTP, every frame kept as sent."""

    def __init__(self, url: str, ident: int, watch: list[str], token: str | None = None) -> None:
        self.frames: list[dict[str, Any]] = []
        self.status: int | None = None
        self.ended = asyncio.Event()
        body = {
            "jsonrpc": "2.0",
            "id": ident,
            "method": "subscriptions/listen",
            "params": {
                "_meta": modern_meta("raw"),
                "notifications": {"resourceSubscriptions": watch},
            },
        }
        headers = {
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "subscriptions/listen",
        }
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        self._task = asyncio.create_task(self._read(url + "/mcp", body, headers))

    async def _read(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        try:
            async with (
                httpx.AsyncClient(timeout=None) as client,
                client.stream("POST", url, json=body, headers=headers) as response,
            ):
                self.status = response.status_code
                if not response.headers.get("content-type", "").startswith("text/event-stream"):
                    self.frames.append(json.loads(await response.aread()))
                    return
                async for line in response.aiter_lines():
                    if line.startswith("data:") and line[5:].strip():
                        self.frames.append(json.loads(line[5:]))
        finally:
            self.ended.set()

    def methods(self) -> list[str | None]:
        return [f.get("method") for f in self.frames]

    def updates(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("method") == UPDATED]

    def acknowledged(self) -> bool:
        return "notifications/subscriptions/acknowledged" in self.methods()

    def error(self) -> dict[str, Any] | None:
        return next((f["error"] for f in self.frames if "error" in f), None)

    async def close(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
