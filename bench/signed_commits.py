"""commit_files through each GITHUB_MCP_SIGNED_COMMITS path, with forge latency: GitHub
requests, sequential round trips and wall time per commit (medians over the runs).

Rows: `never` (the Git data API, no rules read), `auto` on a branch without a signature
rule (one rules read, then the Git data API), `auto` on a branch that requires signatures
(createCommitOnBranch) and `always` (createCommitOnBranch, with its rules read).

    python bench/signed_commits.py [--runs 5] [--latency-ms 50] [--files 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _forge_process import ForgeProcess, mcp_session, round_trips

BASE = {f"src/mod_{i}.py": f"VALUE = {i}\n" * 50 for i in range(10)} | {"README.md": "# r\n"}
ROWS = [
    ("never", "never", False),
    ("auto, no signature rule", "auto", False),
    ("auto, signatures required", "auto", True),
    ("always", "always", False),
]


def require_signatures(forge: ForgeProcess, repo: str) -> None:
    ruleset = {
        "name": "signed",
        "target": "branch",
        "enforcement": "active",
        "conditions": {"ref_name": {"include": ["refs/heads/work"], "exclude": []}},
        "rules": [{"type": "required_signatures"}],
    }
    response = httpx.post(
        f"{forge.base_url}/repos/{repo}/rulesets",
        json=ruleset,
        headers={"Authorization": f"Bearer {forge.token}"},
    )
    response.raise_for_status()


async def one_row(
    forge: ForgeProcess, label: str, mode: str, required: bool, runs: int, count: int
) -> dict[str, Any]:
    repo = f"bench-org/signed-{mode}-{int(required)}"
    forge.seed_repo(repo, BASE, branches={"work": {}})
    if required:
        require_signatures(forge, repo)
    walls, requests, trips, via = [], [], [], set()
    async with mcp_session(forge, signed_commits=mode) as (_rt, client):
        for run in range(runs + 1):  # the first call warms the session; not counted
            files = [
                {"path": f"src/mod_{i}.py", "content": f"VALUE = {i + run * 100}\n" * 50}
                for i in range(count)
            ]
            forge.clear_requests()
            started = time.perf_counter()
            result = await client.call_tool(
                "commit_files",
                {"full_name": repo, "branch": "work", "message": f"run {run}", "files": files},
            )
            elapsed = time.perf_counter() - started
            data = result.structured_content
            assert data and not result.is_error and data["verification"]["verified"], data
            if run:
                log = forge.requests()
                walls.append(elapsed)
                requests.append(len(log))
                trips.append(round_trips(log))
                via.add(f"{data['signature']['via']} (verified={data['signature']['verified']})")
    return {
        "label": label,
        "wall_ms": statistics.median(walls) * 1000,
        "requests": statistics.median(requests),
        "round_trips": statistics.median(trips),
        "via": ", ".join(sorted(via)),
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--files", type=int, default=5)
    args = parser.parse_args()
    with ForgeProcess() as forge:
        forge.set_latency(args.latency_ms)
        rows = [
            await one_row(forge, label, mode, required, args.runs, args.files)
            for label, mode, required in ROWS
        ]
    print(
        f"commit_files, {args.files} files, {args.latency_ms} ms latency, "
        f"median of {args.runs} warm runs"
    )
    for row in rows:
        print(
            f"{row['label']:<28} {row['requests']:>4.0f} requests  "
            f"{row['round_trips']:>3.0f} round trips  {row['wall_ms']:>6.0f} ms  via {row['via']}"
        )


if __name__ == "__main__":
    asyncio.run(main())
