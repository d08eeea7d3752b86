"""Per-call overhead, side by side with the reference server: one read operation at a time,
over stdio, on the sandbox forge at 0 ms latency.

    list_commits   ours list_commits          reference list_commits
    get a PR       ours get_pr_overview       reference get_pull_request
    list_issues    ours list_issues           reference list_issues
    code search    ours search(kind=code)     reference search_code

The forge runs in its own process (as GitHub would: its work never shares a GIL with the
client's). Each round starts each server as a client does (ours with its defaults: JSON
logs at INFO on stderr, the audit log, metrics; the reference is bench/_reference_server.py):
initialize and tools/list, nothing more (the cold start is bench/cold_start.py's); then it
calls each operation --calls times in a row after one warm-up call; the rounds alternate
between the servers so both see the same machine load.

By default the client is bench/_line_client.py, a line-level JSON-RPC client: it writes a
request line and reads lines until the answer's, so its own share of a call is small and
alike for both servers. `--client fastmcp` uses fastmcp's Client instead, which validates
every message with the protocol's pydantic models and post-processes each result.

Printed per operation and server: median wall time per call (the request written to its
answer read), the forge's own time per call (the median duration in its request log, times
the requests per call) and the wall
time less it (what the server and the pipes add), the server process's CPU per call
(utime + stime from /proc, in 10 ms ticks: hence 100 calls), forge requests per call, and
the ratios ours / reference. The load average is printed with the figures.

    .venv/bin/python bench/per_call.py [--calls 100] [--rounds 3] [--tree DIR]
                                       [--client line|fastmcp]

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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _forge_process import ForgeProcess  # noqa: E402
from _line_client import LineClient  # noqa: E402
from _reference_server import node_command  # noqa: E402

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

Call = Callable[[str, dict[str, Any]], Awaitable[bool]]  # (tool, arguments) -> is_error


@dataclass
class Figures:
    wall_ms: list[float] = field(default_factory=list)
    forge_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    requests: list[float] = field(default_factory=list)


def process_cpu_seconds(pid: int) -> float:
    """utime + stime of one process, in seconds."""
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def server_command(
    forge: ForgeProcess, home: str, ours: bool
) -> tuple[list[str], dict[str, str], str]:
    """The command, environment and directory that serve one server over stdio."""
    if not ours:
        command, env = node_command(forge.base_url, forge.token)
        return command, env, str(ROOT)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": home,
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": forge.token,
        "GITHUB_MCP_AUDIT_LOG": f"{home}/audit.jsonl",
        "GITHUB_MCP_WORKSPACE_DIR": f"{home}/ws",
    }
    return [sys.executable, str(TREE / "main.py"), "serve"], env, str(TREE)


async def line_session(command: list[str], env: dict[str, str], cwd: str, ours: bool):
    client = await LineClient.start(command, env, cwd)

    async def call(tool: str, arguments: dict[str, Any]) -> bool:
        return bool((await client.call_tool(tool, arguments)).get("isError"))

    return client, call


async def fastmcp_session(command: list[str], env: dict[str, str], cwd: str, ours: bool, home: str):
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    log = Path(home) / "stderr.log"
    transport = StdioTransport(command[0], command[1:], env=env, cwd=cwd, log_file=log)
    client = Client(transport, timeout=120)
    await client.__aenter__()
    await client.list_tools()

    async def call(tool: str, arguments: dict[str, Any]) -> bool:
        return (await client.call_tool(tool, arguments, raise_on_error=False)).is_error

    return client, call


def _server_pid(ours: bool) -> int:
    """Our child process serving (the fastmcp client starts it on its own)."""
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
        if ppid == os.getpid() and (("main.py serve" in command) if ours else ("node" in command)):
            return int(entry)
    raise RuntimeError("the server process was not found among this process's children")


async def run_operation(
    call: Call, pid: int, forge: ForgeProcess, tool: str, args: dict[str, Any], calls: int
) -> tuple[float, float, float, float]:
    """Median wall ms per call, forge ms per call, CPU ms per call, forge requests per call."""
    if await call(tool, args):
        raise RuntimeError(f"{tool} answered an error")
    walls = []
    forge.clear_requests()
    cpu_before = process_cpu_seconds(pid)
    for _ in range(calls):
        started = time.perf_counter()
        await call(tool, args)
        walls.append((time.perf_counter() - started) * 1000)
    cpu = (process_cpu_seconds(pid) - cpu_before) * 1000 / calls
    served = forge.requests()
    per_call = len(served) / calls
    durations = [entry.get("duration_ms", 0.0) for entry in served] or [0.0]
    return statistics.median(walls), statistics.median(durations) * per_call, cpu, per_call


async def one_round(
    forge: ForgeProcess,
    ours: bool,
    calls: int,
    client: str,
    figures: dict[tuple[str, bool], Figures],
) -> None:
    with tempfile.TemporaryDirectory() as home:
        command, env, cwd = server_command(forge, home, ours)
        if client == "line":
            line_client, call = await line_session(command, env, cwd, ours)
            closer: Any = line_client
        else:
            closer, call = await fastmcp_session(command, env, cwd, ours, home)
        try:
            pid = line_client.process.pid if client == "line" else _server_pid(ours)
            for operation, pair in OPERATIONS.items():
                tool, args = pair[0] if ours else pair[1]
                measured = await run_operation(call, pid, forge, tool, args, calls)
                mine = figures.setdefault((operation, ours), Figures())
                for series, value in zip(
                    (mine.wall_ms, mine.forge_ms, mine.cpu_ms, mine.requests), measured, strict=True
                ):
                    series.append(value)
        finally:
            if client == "line":
                await closer.close()
            else:
                await closer.__aexit__(None, None, None)


def table(figures: dict[tuple[str, bool], Figures]) -> str:
    rows = [
        "| operation | ours ms | reference ms | ours / reference | forge ms ours / reference | "
        "less forge: ours ms | reference ms | ours / reference | ours CPU ms | reference CPU ms | "
        "forge requests ours / reference |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    med = statistics.median
    for operation in OPERATIONS:
        ours, ref = figures[(operation, True)], figures[(operation, False)]
        wall, ref_wall = med(ours.wall_ms), med(ref.wall_ms)
        forge, ref_forge = med(ours.forge_ms), med(ref.forge_ms)
        own, ref_own = wall - forge, ref_wall - ref_forge
        requests = f"{med(ours.requests):g} / {med(ref.requests):g}"
        rows.append(
            f"| {operation} | {wall:.2f} | {ref_wall:.2f} | {wall / ref_wall:.2f}x | "
            f"{forge:.2f} / {ref_forge:.2f} | {own:.2f} | {ref_own:.2f} | {own / ref_own:.2f}x | "
            f"{med(ours.cpu_ms):.2f} | {med(ref.cpu_ms):.2f} | {requests} |"
        )
    return "\n".join(rows)


async def main() -> None:
    global TREE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100, help="calls per operation and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=ROOT, help="our server's checkout")
    parser.add_argument("--client", choices=("line", "fastmcp"), default="line")
    args = parser.parse_args()
    TREE = args.tree.resolve()
    figures: dict[tuple[str, bool], Figures] = {}
    loads = []
    with ForgeProcess(seed="demo") as forge:
        forge.set_latency(0)
        forge.unlimit()
        for _ in range(args.rounds):
            for ours in (True, False):
                await one_round(forge, ours, args.calls, args.client, figures)
                loads.append(os.getloadavg()[0])
    print(f"our server: {TREE}; forge latency 0 ms; {args.client} client; {args.calls} calls "
          f"per operation x {args.rounds} rounds, medians over rounds")  # fmt: skip
    print(table(figures))
    print(
        f"load average over the rounds: {statistics.median(loads):.1f} "
        f"({min(loads):.1f}-{max(loads):.1f}) on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    asyncio.run(main())
