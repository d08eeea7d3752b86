"""Reads at the physical limit: wall time, GitHub requests and sequential round trips of
a first get_file_contents (at a branch and at the default branch), fetch_files of 30
files, get_pr_overview, check_merge_readiness and find_unresolved_comments, at 0 and
50 ms of forge latency, through a real MCP client against the sandbox forge in its own
process. One runtime serves every run, its caches emptied before each: a cold read on a
warm connection, as a long-running server makes it.

"Before" figures come from running the same scenarios against an older tree's controller
code (`--code /work/baseline`): its github_mcp is imported instead of this one's, against
the same forge. `--compare DIR` runs both and prints them side by side.

    python bench/read_roundtrips.py [--runs 7] [--code DIR | --compare DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _forge_process import ForgeProcess, mcp_session, round_trips

REPO = "bench-org/reads"
FILES = {f"src/module_{i:02d}.py": f"# module {i}\n" + "x = 1\n" * 200 for i in range(30)}
FILES["README.md"] = "# reads\n" + "text line\n" * 100


def seed(forge: ForgeProcess) -> int:
    """The repository and one open PR (3 changed files, a review, a commit status)."""
    forge.seed_repo(REPO, FILES)
    api = httpx.Client(
        base_url=forge.base_url,
        timeout=60,
        headers={"Authorization": f"Bearer {forge.token}", "Accept": "application/vnd.github+json"},
    )
    with api:
        base = api.get(f"/repos/{REPO}/git/ref/heads/main").json()["object"]["sha"]
        api.post(
            f"/repos/{REPO}/git/refs", json={"ref": "refs/heads/feature", "sha": base}
        ).raise_for_status()
        for i in range(3):
            path = f"src/module_{i:02d}.py"
            sha = api.get(f"/repos/{REPO}/contents/{path}", params={"ref": "feature"}).json()
            api.put(
                f"/repos/{REPO}/contents/{path}",
                json={
                    "message": f"change {i}",
                    "branch": "feature",
                    "sha": sha["sha"],
                    "content": base64.b64encode(f"# changed {i}\n".encode()).decode(),
                },
            ).raise_for_status()
        pull = api.post(
            f"/repos/{REPO}/pulls", json={"title": "Bench PR", "head": "feature", "base": "main"}
        )
        pull.raise_for_status()
        number = pull.json()["number"]
        head = pull.json()["head"]["sha"]
        api.post(
            f"/repos/{REPO}/statuses/{head}", json={"state": "success", "context": "ci/bench"}
        ).raise_for_status()
    return int(number)


def scenarios(number: int) -> dict[str, tuple[str, dict[str, Any]]]:
    pr = {"full_name": REPO, "number": number}
    return {
        "first read @branch": (
            "get_file_contents",
            {"full_name": REPO, "path": "README.md", "ref": "main"},
        ),
        "first read @default": ("get_file_contents", {"full_name": REPO, "path": "README.md"}),
        "fetch_files 30": (
            "fetch_files",
            {"full_name": REPO, "paths": sorted(FILES)[:30], "ref": "main"},
        ),
        "get_pr_overview": ("get_pr_overview", pr),
        "check_merge_readiness": ("check_merge_readiness", {**pr, "timeout_seconds": 0}),
        "find_unresolved_comments": ("find_unresolved_comments", pr),
    }


async def one(
    forge: ForgeProcess, client: Any, rt: Any, tool: str, args: dict[str, Any]
) -> tuple[float, list[dict]]:
    """One call with every cache emptied first: a first read on a warm connection, as a
    long-running server makes it."""
    rt.cache.clear()
    forge.clear_requests()
    started = time.perf_counter()
    result = await client.call_tool(tool, args, raise_on_error=False)
    elapsed = time.perf_counter() - started
    assert not result.is_error, (tool, result.structured_content)
    return elapsed, forge.requests()


async def measure(runs: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    with ForgeProcess() as forge:
        number = seed(forge)
        if not os.environ.get("BENCH_CODE"):
            points = fetch_files_points(forge)
            out["fetch_files 30: rate-limit points"] = {"graphql": points, "rest": 30}
        async with mcp_session(forge) as (rt, client):
            for latency in (0, 50):
                forge.set_latency(latency)
                for name, (tool, args) in scenarios(number).items():
                    await one(forge, client, rt, tool, args)  # warm the code paths
                    results = [await one(forge, client, rt, tool, args) for _ in range(runs)]
                    log = results[-1][1]
                    out[f"{name} @{latency}ms"] = {
                        "median_ms": round(statistics.median(t for t, _ in results) * 1000, 1),
                        "requests": len(log),
                        "round_trips": round_trips(log),
                    }
    return out


def fetch_files_points(forge: ForgeProcess) -> int:
    """GraphQL rate-limit points of fetch_files' query for 30 files, asked with
    `rateLimit { cost }` (GitHub: connections' requests over 100, at least 1)."""
    from github_mcp.github.graphql import files_query

    query = files_query(30, "ref").replace(
        "repository(owner: $owner, name: $name)",
        "rateLimit { cost } repository(owner: $owner, name: $name)",
    )
    owner, name = REPO.split("/")
    variables = {"owner": owner, "name": name, "head": "refs/heads/main", "tag": "refs/tags/main"}
    variables |= {f"p{i}": path for i, path in enumerate(sorted(FILES)[:30])}
    with httpx.Client(base_url=forge.base_url, timeout=60) as api:
        answer = api.post(
            "/graphql",
            json={"query": query, "variables": variables},
            headers={"Authorization": f"Bearer {forge.token}"},
        ).json()
    return int(answer["data"]["rateLimit"]["cost"])


def run_other(code: str, runs: int) -> dict[str, dict[str, Any]]:
    env = {**os.environ, "BENCH_CODE": code}
    done = subprocess.run(
        [sys.executable, __file__, "--runs", str(runs), "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "7")))
    parser.add_argument("--compare", help="an older tree: run it too and print both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if code := os.environ.get("BENCH_CODE"):
        sys.path.insert(0, code)  # that tree's github_mcp, against this forge
    after = asyncio.run(measure(args.runs))
    if args.json:
        print(json.dumps(after))
        return
    before = run_other(args.compare, args.runs) if args.compare else None
    print(f"{'scenario':<36} {'median ms':>10} {'requests':>9} {'trips':>6}", end="")
    print(f"   {'before: ms':>10} {'requests':>9} {'trips':>6}" if before else "")
    for name, now in after.items():
        if "median_ms" not in now:
            print(f"{name}: {now['graphql']} GraphQL point(s), against {now['rest']} REST calls")
            continue
        line = f"{name:<36} {now['median_ms']:>10} {now['requests']:>9} {now['round_trips']:>6}"
        if before and name in before:
            old = before[name]
            line += f"   {old['median_ms']:>10} {old['requests']:>9} {old['round_trips']:>6}"
        print(line)


if __name__ == "__main__":
    main()
