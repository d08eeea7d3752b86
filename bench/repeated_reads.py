"""Repeated get_file_contents on an unchanged branch: GitHub requests per call.

Expected: after the first call, 0 requests while the ref's TTL holds; with the TTL at 0,
only conditional revalidations, all answered 304 (which GitHub does not count against
the rate limit). Also prints the wall time of the first and of the repeated calls.

    python bench/repeated_reads.py [--calls 20] [--latency-ms 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _forge_process import ForgeProcess, mcp_session

REPO = "bench-org/reads"
PATH = "src/app.py"


async def measure(forge: ForgeProcess, calls: int, **settings: object) -> dict[str, object]:
    args = {"full_name": REPO, "path": PATH, "ref": "main"}
    async with mcp_session(forge, **settings) as (_rt, client):
        forge.clear_requests()
        started = time.perf_counter()
        first = await client.call_tool("get_file_contents", args)
        first_s = time.perf_counter() - started
        first_requests = len(forge.requests())
        assert first.structured_content and not first.is_error
        per_call: list[int] = []
        statuses: Counter[int] = Counter()
        times: list[float] = []
        for _ in range(calls - 1):
            forge.clear_requests()
            started = time.perf_counter()
            result = await client.call_tool("get_file_contents", args)
            times.append(time.perf_counter() - started)
            assert result.structured_content == first.structured_content
            log = forge.requests()
            per_call.append(len(log))
            statuses.update(e["status"] for e in log)
    return {
        "first_s": first_s,
        "first_requests": first_requests,
        "repeat_s": statistics.median(times),
        "requests": per_call,
        "statuses": dict(statuses),
    }


def report(label: str, data: dict) -> None:
    requests = data["requests"]
    print(
        f"{label}: first call {data['first_requests']} requests, "
        f"{data['first_s'] * 1000:.0f} ms; then median {statistics.median(requests):g} "
        f"requests per call (max {max(requests)}), statuses {data['statuses'] or '{}'}, "
        f"median {data['repeat_s'] * 1000:.1f} ms per call"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=int(os.environ.get("BENCH_RUNS", "20")))
    parser.add_argument("--latency-ms", type=int, default=50)
    args = parser.parse_args()
    with ForgeProcess() as forge:
        forge.seed_repo(REPO, {PATH: "print('hello')\n" * 500, "README.md": "# r\n"})
        forge.set_latency(args.latency_ms)
        await measure(forge, 2)  # warm imports and connections
        warm = await measure(forge, args.calls)
        ttl0 = await measure(forge, args.calls, cache_ttl_seconds=0)
    print(f"get_file_contents x {args.calls} on an unchanged branch, {args.latency_ms} ms latency")
    report("within the TTL", warm)
    report("TTL 0 (always revalidate)", ttl0)
    non_304 = sum(n for status, n in ttl0["statuses"].items() if status != 304)
    print(
        f"GitHub requests per repeated call within the TTL: "
        f"{statistics.mean(warm['requests']):.2f} (target 0)"
    )
    print(
        f"non-304 answers per repeated call with TTL 0: {non_304 / (args.calls - 1):.2f} (target 0)"
    )
    print(
        f"ratio first call / repeated call: within TTL "
        f"{warm['first_s'] / warm['repeat_s']:.0f}x, TTL 0 "
        f"{ttl0['first_s'] / ttl0['repeat_s']:.1f}x"
    )


if __name__ == "__main__":
    asyncio.run(main())
