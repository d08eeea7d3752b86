"""Support for the forge benchmarks: the sandbox forge in its own process (as GitHub is),
driven through its admin API, plus a GitHub MCP runtime and MCP client pointed at it.

Running the forge out of process keeps its git subprocesses and JSON work off the
benchmarked process's GIL, so the figures measure our server, not the stand-in.
Not a benchmark itself: running it does nothing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
for _name in list(os.environ):
    if _name.startswith(("GITHUB_", "GH_")):
        del os.environ[_name]
os.environ.setdefault("FASTMCP_LOG_ENABLED", "false")
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ["GITHUB_MCP_LOG_LEVEL"] = "WARNING"

import httpx2 as httpx  # noqa: E402


class ForgeProcess:
    """`python -m sandbox_forge --port 0` in a child process."""

    def __init__(self, seed: str | None = None) -> None:
        seeding = ["--seed", seed] if seed else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sandbox_forge", "--port", "0", *seeding],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        seen: dict[str, str] = {}
        for line in self.proc.stdout:
            if m := re.search(r"listening on (\S+)", line):
                seen["url"] = m.group(1)
            elif m := re.search(r"admin token:\s+(\S+)", line):
                seen["admin"] = m.group(1)
            elif m := re.search(r"user token:\s+(\S+)", line):
                seen["token"] = m.group(1)
                break
        if set(seen) != {"url", "admin", "token"}:
            self.close()
            raise RuntimeError("the sandbox forge did not start")
        self.base_url, self.token = seen["url"], seen["token"]
        self.admin = httpx.Client(
            base_url=self.base_url + "/_sandbox",
            headers={"Authorization": f"Bearer {seen['admin']}"},
            timeout=60,
        )

    def seed_repo(self, full_name: str, files: dict[str, str], **kw: Any) -> dict[str, Any]:
        response = self.admin.post("/repos", json={"full_name": full_name, "files": files, **kw})
        response.raise_for_status()
        return response.json()

    def set_latency(self, latency_ms: int) -> None:
        self.admin.patch("/settings", json={"latency_ms": latency_ms}).raise_for_status()

    def unlimit(self) -> None:
        """Rate limits no benchmark reaches, with resets a day away (the search windows
        never refill mid-run)."""
        reset = int(time.time()) + 86400
        for resource in ("core", "search", "code_search", "graphql"):
            self.admin.post(
                "/rate_limit",
                json={"remaining": 10**9, "limit": 10**9, "reset": reset, "resource": resource},
            ).raise_for_status()

    def warm_up(self, full_name: str, path: str = "README.md") -> None:
        """One GraphQL query and one REST read of `full_name`: the forge builds its GraphQL
        schema on the first query (close to a second of CPU), a start-up GitHub does not
        have, which would otherwise land on the first calls a benchmark measures."""
        owner, name = full_name.split("/")
        headers = {"Authorization": f"Bearer {self.token}"}
        query = (
            f'query {{ repository(owner: "{owner}", name: "{name}") '
            f'{{ object(expression: "HEAD:{path}") {{ ... on Blob {{ text }} }} }} }}'
        )
        url = self.base_url
        httpx.post(url + "/graphql", json={"query": query}, headers=headers, timeout=120)
        httpx.get(f"{url}/repos/{full_name}/contents/{path}", headers=headers, timeout=60)

    def requests(self) -> list[dict[str, Any]]:
        response = self.admin.get("/requests")
        response.raise_for_status()
        return response.json()

    def clear_requests(self) -> None:
        self.admin.delete("/requests").raise_for_status()

    def close(self) -> None:
        if getattr(self, "admin", None) is not None:
            self.admin.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def __enter__(self) -> ForgeProcess:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@asynccontextmanager
async def mcp_session(forge: ForgeProcess, **overrides: Any):
    """A fresh Runtime (empty caches) and an in-memory MCP client for it."""
    from fastmcp import Client

    from github_mcp.config import Settings
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.serving.server import build_mcp

    with tempfile.TemporaryDirectory() as tmp:
        values: dict[str, Any] = {
            "github_api_url": forge.base_url,
            "github_token": forge.token,
            "audit_log": Path(tmp) / "audit.jsonl",
            "workspace_dir": Path(tmp) / "ws",
        }
        values.update(overrides)
        rt = Runtime.create(Settings(**values))
        try:
            async with Client(build_mcp(rt)) as client:
                yield rt, client
        finally:
            await rt.aclose()


def round_trips(entries: list[dict[str, Any]]) -> int:
    """Sequential round trips in a request log: requests whose [start, end] intervals
    overlap (directly or through a chain) count as one."""
    spans = sorted((e["ts"], e["ts"] + e.get("duration_ms", 0) / 1000) for e in entries)
    trips, end = 0, float("-inf")
    for start, stop in spans:
        if start > end:
            trips += 1
            end = stop
        else:
            end = max(end, stop)
    return trips


if __name__ == "__main__":
    print("support module for the forge benchmarks; nothing to run")
