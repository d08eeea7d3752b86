"""Where a whole task's time goes, from the spawn: the evidence behind the whole-task
figures of bench/workflows.py.

Runs one of its scenarios (ship+triage by default) with our server spawned under
`-X importtime` and its JSON log at INFO, on a fresh sandbox forge at the given latency,
right after the tools/list answer or after a pause, as bench/workflows.py does. Prints,
per run:
- the server's CPU seconds from the spawn to the last answer (both re-executed images),
  and the reference server's for the same scenario (unless --no-reference);
- import time (each module's own, summed) before the tools/list answer, after it and
  before the first call started, and within each call, with the heaviest modules of
  each phase: what a first call right after the list pays for, and what the listing
  waits on; and each phase's import time by library (pydantic, pydantic-settings, the
  HTTP client's stack, this server's own modules, the rest);
- the forge's requests in sequential round trips (overlapping requests are one), per
  server: at 50 ms of latency each round trip costs at least 50 ms.

`-X importtime` slows imports: the import figures are for their proportions, the whole
task's time is bench/workflows.py's.

    python bench/start_profile.py [--scenario ship+triage] [--latency-ms 0] [--pause 0]
                                  [--runs 3] [--top 6] [--no-reference]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import _line_client  # noqa: E402
import workflows  # noqa: E402

from sandbox_forge import Forge  # noqa: E402
from sandbox_forge.admin.seed import seed_demo  # noqa: E402

PHASE_EVENTS = ("stdio_listed", "tool_call_start", "tool_call_success", "tool_call_error")
# Import time summed by where the module comes from: what a start pays for, by library.
LIBRARIES = {
    "pydantic": ("pydantic", "pydantic_core", "annotated_types", "typing_inspection",
                 "typing_extensions"),
    "pydantic-settings": ("pydantic_settings", "dotenv"),
    "HTTP client": ("httpx2", "httpcore2", "h11", "h2", "hpack", "hyperframe", "anyio",
                    "sniffio", "truststore", "idna", "certifi"),
    "this server": ("github_mcp",),
}  # fmt: skip


def library(module: str) -> str:
    top = module.split(".", 1)[0]
    return next((name for name, tops in LIBRARIES.items() if top in tops), "stdlib and other")


CPU_MS: list[int] = []  # the last server's CPU, noted as its client closes


def _cpu_ms(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 // os.sysconf("SC_CLK_TCK")


_close = _line_client.LineClient.close


async def _noting_close(self: _line_client.LineClient) -> None:
    CPU_MS.append(_cpu_ms(self.process.pid))
    await _close(self)


_line_client.LineClient.close = _noting_close  # type: ignore[method-assign]


PLAIN_COMMAND = workflows.our_command


def profiled_command(stderr_path: str):
    """bench/workflows.py's command for our server, under -X importtime, stderr kept."""
    plain = PLAIN_COMMAND

    def command(forge: Forge, token: str, home: str):
        argv, env, cwd = plain(forge, token, home)
        env = {**env, "PYTHONPROFILEIMPORTTIME": "1", "GITHUB_MCP_LOG_LEVEL": "INFO"}
        wrapped = ["sh", "-c", f'exec "$@" 2>"{stderr_path}"', "sh", *argv]
        return wrapped, env, cwd

    return command


def phases(stderr: str) -> list[tuple[str, float, list[tuple[float, str]]]]:
    """(phase, import ms, [(ms, module)...]) in order: a phase ends at a log event."""
    found: list[tuple[str, float, list[tuple[float, str]]]] = []
    name, total, modules = "spawn to tools/list", 0.0, []
    for line in stderr.splitlines():
        if line.startswith("import time:"):
            own, _, module = line.removeprefix("import time:").split("|")
            if own.strip().isdigit():
                total += int(own) / 1000
                modules.append((int(own) / 1000, module.strip()))
            continue
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        if event.get("event") not in PHASE_EVENTS:
            continue
        found.append((name, total, modules))
        tool = event.get("tool", "")
        name = {
            "stdio_listed": "tools/list to the next call's start",
            "tool_call_start": f"{tool}: start to outcome",
        }.get(event["event"], f"after {tool}")
        total, modules = 0.0, []
    found.append((name, total, modules))
    return [p for p in found if p[1] > 0 or p[0] == "spawn to tools/list"]


async def run_once(scenario: str, latency: int, pause: float, ours: bool) -> dict:
    forge = Forge()
    forge.start()
    try:
        seed_demo(forge)
        token = forge.create_token(login="octocat")
        forge.set_latency(latency)
        with tempfile.TemporaryDirectory() as home:
            stderr = f"{home}/stderr.txt"
            workflows.our_command = profiled_command(stderr)
            measure = await workflows.measure(forge, token, scenario, ours, home, pause)
            text = _read(stderr) if ours else ""
        return {"measure": measure, "cpu_ms": CPU_MS[-1], "stderr": text}
    finally:
        forge.stop()


def _read(path: str) -> str:
    return Path(path).read_text(errors="replace")


def report(runs: list[dict], top: int) -> None:
    first = runs[0]["measure"]
    cpu = statistics.median(r["cpu_ms"] for r in runs)
    trips = statistics.median(r["measure"].round_trips for r in runs)
    print(f"  calls {first.calls}, requests {first.requests}, round trips {trips:.0f}, "
          f"server CPU {cpu:.0f} ms, "
          f"spawn to done {statistics.median(r['measure'].from_spawn_s for r in runs) * 1000:.0f}"
          f" ms (under importtime)")  # fmt: skip
    if not runs[0]["stderr"]:
        return
    by_phase: dict[str, list[float]] = defaultdict(list)
    heaviest: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    order: list[str] = []
    for run in runs:
        for name, total, modules in phases(run["stderr"]):
            if name not in order:
                order.append(name)
            by_phase[name].append(total)
            for ms, module in modules:
                heaviest[name][module].append(ms)
    print("  import ms (own, summed; median of the runs), by phase, and its heaviest modules:")
    for name in order:
        ranked = sorted(heaviest[name].items(), key=lambda kv: -statistics.median(kv[1]))
        tops = ", ".join(f"{m} {statistics.median(v):.0f}" for m, v in ranked[:top])
        print(f"  {statistics.median(by_phase[name]):8.0f}  {name}: {tops}")
        libraries: dict[str, list[float]] = defaultdict(list)
        for run in runs:
            summed: dict[str, float] = defaultdict(float)
            for phase, _, modules in phases(run["stderr"]):
                for ms, module in modules if phase == name else ():
                    summed[library(module)] += ms
            for lib in (*LIBRARIES, "stdlib and other"):
                libraries[lib].append(summed[lib])
        shares = ", ".join(f"{lib} {statistics.median(v):.0f}" for lib, v in libraries.items())
        print(f"{'':12}by library: {shares}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", default="ship+triage", choices=tuple(workflows.SCENARIOS))
    parser.add_argument("--latency-ms", type=int, default=0)
    parser.add_argument("--pause", type=float, default=0.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--top", type=int, default=6)
    parser.add_argument("--no-reference", action="store_true")
    args = parser.parse_args()
    print(f"{args.scenario} at {args.latency_ms} ms, pause {args.pause:g} s, {args.runs} runs; "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    sides = [True] if args.no_reference else [True, False]
    for ours in sides:
        runs = [
            await run_once(args.scenario, args.latency_ms, args.pause, ours)
            for _ in range(args.runs)
        ]
        print("this server:" if ours else "reference server:")
        report(runs, args.top)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
