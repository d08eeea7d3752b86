"""fetch_files wall time for 30 files with 50 ms of forge latency per request.

Target: 4 x 50 ms + 100 ms = 300 ms. One round trip resolves the ref, then the 30 reads go
out in parallel under the client's concurrency cap (10 by default: three waves). Each run
uses a fresh runtime, so nothing is cached; the call goes through a real MCP client (in
memory) to the sandbox forge, which runs in its own process, over loopback HTTP.

    python bench/fetch_files.py [--runs 9] [--latency-ms 50] [--files 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _forge_process import ForgeProcess, mcp_session

REPO = "bench-org/fetch"


async def one_run(
    forge: ForgeProcess, paths: list[str], **settings: object
) -> tuple[float, list[dict]]:
    async with mcp_session(forge, **settings) as (_rt, client):
        forge.clear_requests()
        started = time.perf_counter()
        result = await client.call_tool(
            "fetch_files", {"full_name": REPO, "paths": paths, "ref": "main"}
        )
        elapsed = time.perf_counter() - started
        data = result.structured_content
        assert data and data["ok"] == len(paths), data
        return elapsed, forge.requests()


async def median_of(
    runs: int, forge: ForgeProcess, paths: list[str], **settings: object
) -> tuple[float, list[float], list[dict]]:
    results = [await one_run(forge, paths, **settings) for _ in range(runs)]
    times = [t for t, _ in results]
    return statistics.median(times), times, results[-1][1]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "9")))
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--files", type=int, default=30)
    args = parser.parse_args()
    target = (4 * args.latency_ms + 100) / 1000
    paths = [f"src/module_{i:02d}.py" for i in range(args.files)]
    with ForgeProcess() as forge:
        forge.seed_repo(REPO, {p: f"# {p}\n" + "x = 1\n" * 200 for p in paths})
        forge.set_latency(args.latency_ms)
        await one_run(forge, paths)  # warm imports and connections
        median, times, log = await median_of(args.runs, forge, paths)
        wide, _, _ = await median_of(args.runs, forge, paths, github_max_concurrency=len(paths) + 1)
        forge.set_latency(0)
        floor, _, floor_log = await median_of(3, forge, paths)
    server_ms = statistics.median(e["duration_ms"] for e in floor_log)
    print(
        f"fetch_files, {args.files} files, {args.latency_ms} ms latency: median "
        f"{median * 1000:.0f} ms (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, "
        f"runs {args.runs}); {len(log)} GitHub requests per call"
    )
    if args.latency_ms:
        print(f"in latency periods: {median * 1000 / args.latency_ms:.1f} x {args.latency_ms} ms")
    print(
        f"same call with no latency: {floor * 1000:.0f} ms; the forge itself spends a median "
        f"{server_ms:.0f} ms per request, which counts as latency here"
    )
    print(f"with GITHUB_MAX_CONCURRENCY={len(paths) + 1} (one wave): {wide * 1000:.0f} ms")
    print(
        f"ratio to the {target * 1000:.0f} ms target (4 x latency + 100 ms): {median / target:.2f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
