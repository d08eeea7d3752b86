"""update_files_and_open_pr for 5 changed files with 50 ms forge latency:
wall time, GitHub requests, and sequential round trips (target <= 6).

Round trips come from the forge's request log: requests whose time spans overlap are
one round trip. For comparison, the reference's per-file style is implemented here with
plain httpx2: create the branch, then per file a Contents API GET (for the blob sha),
a PUT and a re-read, then open the PR.

    python bench/open_pr_roundtrips.py [--runs 7] [--latency-ms 50] [--files 5]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import sys
import time
from pathlib import Path

import httpx2 as httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _forge_process import ForgeProcess, mcp_session, round_trips

REPO = "bench-org/pr"
BASE_FILES = {f"src/mod_{i}.py": f"VALUE = {i}\n" * 50 for i in range(10)} | {"README.md": "# r\n"}


def changed_files(run: int, count: int) -> list[dict[str, str]]:
    files = [
        {"path": f"src/mod_{i}.py", "content": f"VALUE = {i + run * 100}\n" * 50}
        for i in range(count - 1)
    ]
    files.append({"path": f"docs/run_{run}.md", "content": f"# run {run}\n"})
    return files


async def ours(forge: ForgeProcess, client, run: int, count: int) -> tuple[float, list[dict]]:
    forge.clear_requests()
    started = time.perf_counter()
    result = await client.call_tool(
        "update_files_and_open_pr",
        {
            "full_name": REPO,
            "branch": f"bench/ours-{run}",
            "title": f"Run {run}",
            "message": f"run {run}",
            "files": changed_files(run, count),
        },
    )
    elapsed = time.perf_counter() - started
    data = result.structured_content
    assert data and not result.is_error and data["commit"]["verification"]["verified"], data
    assert data.get("pull_request", {}).get("number"), data
    return elapsed, forge.requests()


def reference(forge: ForgeProcess, run: int, count: int) -> tuple[float, list[dict]]:
    """The per-file Contents API style: one commit per file, each re-read to check it."""
    branch = f"bench/ref-{run}"
    repo = f"/repos/{REPO}"
    forge.clear_requests()
    started = time.perf_counter()
    with httpx.Client(
        base_url=forge.base_url,
        timeout=60,
        headers={"Authorization": f"Bearer {forge.token}", "Accept": "application/vnd.github+json"},
    ) as http:
        base = http.get(f"{repo}/git/ref/heads/main").json()["object"]["sha"]
        http.post(
            f"{repo}/git/refs", json={"ref": f"refs/heads/{branch}", "sha": base}
        ).raise_for_status()
        for f in changed_files(run, count):
            url = f"{repo}/contents/{f['path']}"
            current = http.get(url, params={"ref": branch})
            body = {
                "message": f"Update {f['path']}",
                "branch": branch,
                "content": base64.b64encode(f["content"].encode()).decode(),
            }
            if current.status_code == 200:
                body["sha"] = current.json()["sha"]
            http.put(url, json=body).raise_for_status()
            check = http.get(url, params={"ref": branch})
            assert base64.b64decode(check.json()["content"]).decode() == f["content"]
        http.post(
            f"{repo}/pulls", json={"head": branch, "base": "main", "title": f"Ref run {run}"}
        ).raise_for_status()
    return time.perf_counter() - started, forge.requests()


def summary(label: str, runs: list[tuple[float, list[dict]]]) -> tuple[float, int, int]:
    wall = statistics.median(t for t, _ in runs)
    requests = int(statistics.median(len(log) for _, log in runs))
    trips = int(statistics.median(round_trips(log) for _, log in runs))
    print(f"{label}: median {wall * 1000:.0f} ms, {requests} requests, {trips} round trips")
    return wall, requests, trips


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "7")))
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--files", type=int, default=5)
    args = parser.parse_args()
    with ForgeProcess() as forge:
        forge.seed_repo(REPO, BASE_FILES)
        forge.set_latency(args.latency_ms)
        async with mcp_session(forge) as (_rt, client):
            cold = await ours(forge, client, 0, args.files)
            mine = [await ours(forge, client, run, args.files) for run in range(1, args.runs + 1)]
        refs = [reference(forge, run, args.files) for run in range(1, args.runs + 1)]
    print(
        f"update_files_and_open_pr, {args.files} files, {args.latency_ms} ms latency, "
        f"{args.runs} runs"
    )
    print(
        f"first call of a session: {cold[0] * 1000:.0f} ms, {len(cold[1])} requests, "
        f"{round_trips(cold[1])} round trips (includes the default-branch lookup)"
    )
    wall, requests, trips = summary("ours (warm session)", mine)
    print(
        "  sequence:",
        " | ".join(
            ", ".join(f"{e['method']} {e['path'].split(REPO, 1)[-1] or '/'}" for e in group)
            for group in _groups(mine[-1][1])
        ),
    )
    ref_wall, ref_requests, ref_trips = summary("reference per-file style", refs)
    print(f"round trips: {trips} (target <= 6)")
    print(
        f"ratios reference / ours: wall {ref_wall / wall:.1f}x, requests "
        f"{ref_requests / requests:.1f}x, round trips {ref_trips / trips:.1f}x"
    )


def _groups(entries: list[dict]) -> list[list[dict]]:
    groups: list[list[dict]] = []
    end = float("-inf")
    for e in sorted(entries, key=lambda e: e["ts"]):
        stop = e["ts"] + e.get("duration_ms", 0) / 1000
        if e["ts"] > end:
            groups.append([e])
            end = stop
        else:
            groups[-1].append(e)
            end = max(end, stop)
    return groups


if __name__ == "__main__":
    asyncio.run(main())
