"""Per-call overhead, side by side with the reference server: one read operation at a time,
over stdio, on the sandbox forge at 0 ms latency.

    list_commits   ours list_commits          reference list_commits
    get a PR       ours get_pr_overview       reference get_pull_request
    list_issues    ours list_issues           reference list_issues
    code search    ours search(kind=code)     reference search_code

Each round starts each server as a client does (ours with its defaults: JSON logs at INFO
on stderr, the audit log, metrics; the reference is bench/_reference_server.py), and calls
each operation --calls times in a row after one warm-up call; the rounds alternate between
the servers so both see the same machine load. Printed per operation and server: median
wall time per call (the client's call to its answer), the server process's
CPU per call (utime + stime from /proc, in 10 ms ticks: hence 100 calls), forge requests
per call, and the ratio ours / reference. The load average is printed with the figures.

    .venv/bin/python bench/per_call.py [--calls 100] [--rounds 3] [--tree DIR]

`--tree DIR` runs our server from another checkout (before/after).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _reference_server import node_command  # noqa: E402

from sandbox_forge import Forge  # noqa: E402
from sandbox_forge.admin.seed import seed_demo  # noqa: E402

REPO = "octo-org/demo-app"
OWNER, NAME = REPO.split("/")
REF = {"owner": OWNER, "repo": NAME}
TREE = ROOT
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# operation -> (our tool and arguments, the reference server's tool and arguments)
OPERATIONS: dict[str, tuple[tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]]] = {
    "list_commits": (
        ("list_commits", {"full_name": REPO, "ref": "main", "limit": 30}),
        ("list_commits", {**REF, "sha": "main", "perPage": 30}),
    ),
    "get a PR": (
        ("get_pr_overview", {"pr": f"{REPO}#1"}),
        ("get_pull_request", {**REF, "pull_number": 1}),
    ),
    "list_issues": (
        ("list_issues", {"full_name": REPO, "state": "open", "limit": 30}),
        ("list_issues", {**REF, "state": "open", "per_page": 30}),
    ),
    "code search": (
        ("search", {"query": "def", "kind": "code", "full_name": REPO, "limit": 30}),
        ("search_code", {"q": f"def repo:{REPO}", "per_page": 30}),
    ),
}


@dataclass
class Figures:
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    requests: list[float] = field(default_factory=list)


def process_cpu_seconds(pid: int) -> float:
    """utime + stime of one process, in seconds."""
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _server_pid(is_server: Callable[[str], bool]) -> int:
    """Our child process whose command line `is_server` recognises."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and is_server(command):
            return int(entry)
    raise RuntimeError("the server process was not found among this process's children")


def our_transport(forge: Forge, token: str, home: str) -> StdioTransport:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": home,
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_AUDIT_LOG": f"{home}/audit.jsonl",
        "GITHUB_MCP_WORKSPACE_DIR": f"{home}/ws",
    }
    command = [str(TREE / "main.py"), "serve"]
    log = Path(home) / "stderr.log"  # the JSON log lines, written as deployed
    return StdioTransport(sys.executable, command, env=env, cwd=str(TREE), log_file=log)


def reference_transport(forge: Forge, token: str, home: str) -> StdioTransport:
    command, env = node_command(forge.base_url, token)
    log = Path(home) / "stderr.log"
    return StdioTransport(command[0], command[1:], env=env, cwd=str(ROOT), log_file=log)


async def run_operation(
    client: Client, pid: int, forge: Forge, tool: str, args: dict[str, Any], calls: int
) -> tuple[float, float, float]:
    """Median wall ms per call, CPU ms per call, forge requests per call."""
    result = await client.call_tool(tool, args, raise_on_error=False)
    if result.is_error:
        raise RuntimeError(f"{tool}: {str(result.content)[:300]}")
    walls = []
    forge.clear_requests()
    cpu_before = process_cpu_seconds(pid)
    for _ in range(calls):
        started = time.perf_counter()
        await client.call_tool(tool, args, raise_on_error=False)
        walls.append((time.perf_counter() - started) * 1000)
    cpu = (process_cpu_seconds(pid) - cpu_before) * 1000 / calls
    return statistics.median(walls), cpu, len(forge.requests()) / calls


async def one_round(
    forge: Forge, token: str, ours: bool, calls: int, figures: dict[tuple[str, bool], Figures]
) -> None:
    with tempfile.TemporaryDirectory() as home:
        transport = (our_transport if ours else reference_transport)(forge, token, home)
        async with Client(transport, timeout=120) as client:
            await client.list_tools()
            pid = _server_pid((lambda c: "main.py serve" in c) if ours else (lambda c: "node" in c))
            for operation, pair in OPERATIONS.items():
                tool, args = pair[0] if ours else pair[1]
                wall, cpu, requests = await run_operation(client, pid, forge, tool, args, calls)
                mine = figures.setdefault((operation, ours), Figures())
                mine.wall_ms.append(wall)
                mine.cpu_ms.append(cpu)
                mine.requests.append(requests)


def table(figures: dict[tuple[str, bool], Figures]) -> str:
    rows = [
        "| operation | ours ms | reference ms | ours / reference | ours CPU ms | "
        "reference CPU ms | CPU ours / reference | forge requests ours / reference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for operation in OPERATIONS:
        ours, ref = figures[(operation, True)], figures[(operation, False)]
        wall, ref_wall = statistics.median(ours.wall_ms), statistics.median(ref.wall_ms)
        cpu, ref_cpu = statistics.median(ours.cpu_ms), statistics.median(ref.cpu_ms)
        requests = f"{statistics.median(ours.requests):g} / {statistics.median(ref.requests):g}"
        rows.append(
            f"| {operation} | {wall:.2f} | {ref_wall:.2f} | {wall / ref_wall:.2f}x | "
            f"{cpu:.2f} | {ref_cpu:.2f} | {cpu / ref_cpu:.2f}x | {requests} |"
        )
    return "\n".join(rows)


async def main() -> None:
    global TREE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100, help="calls per operation and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=ROOT, help="our server's checkout")
    args = parser.parse_args()
    TREE = args.tree.resolve()
    forge = Forge()
    forge.start()
    try:
        seed_demo(forge)
        token = forge.create_token(login="octocat")
        forge.set_latency(0)
        # never the bound here: a reset a day away keeps the 60 s search windows from refilling
        reset = int(time.time()) + 86400
        for resource in ("core", "search", "code_search", "graphql"):
            forge.set_rate_limit(10**9, reset=reset, resource=resource, limit=10**9)
        figures: dict[tuple[str, bool], Figures] = {}
        loads = []
        for _ in range(args.rounds):
            for ours in (True, False):
                await one_round(forge, token, ours, args.calls, figures)
                loads.append(os.getloadavg()[0])
    finally:
        forge.stop()
    print(f"our server: {TREE}; forge latency 0 ms; {args.calls} calls per operation x "
          f"{args.rounds} rounds, medians over rounds")  # fmt: skip
    print(table(figures))
    print(
        f"load average over the rounds: {statistics.median(loads):.1f} "
        f"({min(loads):.1f}-{max(loads):.1f}) on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    asyncio.run(main())
