"""Cold start over stdio, as a user sees it (targets: spawn -> first tools/call answered
<= 0.5 s median with a token and no cache file; peak RSS of start + first call <= 80 MiB).

Each run spawns the server fresh and speaks as a client does (tests/stdio_session.py):
initialize; on its answer, initialized and tools/list; on that answer, one real read
(`get_file_contents` of a seeded repository's README; without a token `get_repository`,
a REST read) against the sandbox forge, which runs in its own process on loopback. Timed
from spawn: the initialize answer, the tools/list answer and the first tools/call answer.
Also: peak RSS of the server process over its whole life (wait4, re-execs included; the
server goes on loading the MCP framework after an early first answer), its peak RSS when
the first call was answered (VmHWM then: start plus first call), and the CPU seconds it
used until then (which grows far less with the machine's load than wall time does).

The matrix: with and without GITHUB_TOKEN, with the listing cache recorded by an earlier
start and without one (a fresh HOME every run), for this tree and `--before DIR`; and the
reference Node server (@modelcontextprotocol/server-github, bench/_reference_server.py)
doing the same read. Runs are interleaved across the matrix (the load drifts). Printed:
median, min and max of `--runs` runs, the ratio to the reference, and the load average;
then the library floor: the CPU a python spends importing the server's libraries alone,
step by step (asyncio, pydantic, pydantic-settings, httpx2, httpcore2), which bounds any
start.

    python bench/cold_start.py [--runs 11] [--before DIR [--before-token-only]]
                               [--no-reference] [--importtime]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from _forge_process import ForgeProcess  # noqa: E402
from _reference_server import node_command  # noqa: E402

from tests.stdio_session import (  # noqa: E402
    Session,
    modern_meta,
    opening,
    request,
    run,
    tool_call,
)

TARGET_CALL_S = 0.5
TARGET_RSS_MIB = 80
REPO, README = "bench-org/cold-start", "# Cold start\n\nread me first\n"
ANSWERS = (1, 2, 3)  # initialize, tools/list, the first tools/call


def _hwm_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(
    forge: ForgeProcess,
    command: list[str],
    cwd: Path,
    env: dict[str, str],
    call: dict[str, Any],
    modern: bool = False,
) -> list:
    """[s to initialize, s to tools/list, s to first call, peak RSS MiB, CPU s,
    peak RSS MiB when the first call was answered]."""
    # a full rate-limit window every run: anonymous reads get 60 an hour, as on GitHub
    forge.admin.post("/rate_limit", json={"remaining": 60}).raise_for_status()
    cpu: list[float] = []
    hwm: list[float] = []
    session: Session = run(
        command,
        [*modern_opening(), [modern_call(call)]] if modern else [*opening(), [call]],
        cwd=cwd,
        env=env,
        before_close=lambda s: (cpu.append(_cpu_s(s.pid)), hwm.append(_hwm_mib(s.pid))),
    )
    result = session.result(3)
    text = "".join(c.get("text", "") for c in result.get("content", []))
    if result.get("isError") or ("read me first" not in text and REPO not in text):
        raise RuntimeError(f"the first call failed: {text[:300]}")
    if not session.result(2)["tools"]:
        raise RuntimeError("empty tool list")
    return [*(session.arrived[i] for i in ANSWERS), session.peak_rss_kib / 1024, cpu[0], hwm[0]]


def ours(
    root: Path, forge: ForgeProcess, home: str, *, token: bool
) -> tuple[list[str], dict[str, str]]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": home,
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_MCP_AUDIT_LOG": f"{home}/audit.jsonl",
        "GITHUB_MCP_WORKSPACE_DIR": f"{home}/ws",
        "GITHUB_MCP_LOG_LEVEL": "WARNING",
    }
    if token:
        env["GITHUB_TOKEN"] = forge.token
    return [sys.executable, "main.py", "serve"], env


# The 2026 revision has no handshake: `server/discover`, then requests naming the revision.


def modern_opening() -> list[list[dict[str, Any]]]:
    return [
        [request(1, "server/discover", {"_meta": modern_meta("cold-start")})],
        [request(2, "tools/list", {"_meta": modern_meta("cold-start")})],
    ]


def modern_call(call: dict[str, Any]) -> dict[str, Any]:
    return {**call, "params": {**call["params"], "_meta": modern_meta("cold-start")}}


OUR_CALL = tool_call(3, "get_file_contents", {"full_name": REPO, "path": "README.md"})
# Without a token: a REST read (get_file_contents goes through GraphQL, which GitHub, and so
# the forge, answers only for an authenticated caller).
ANONYMOUS_CALL = tool_call(3, "get_repository", {"full_name": REPO})
OWNER, NAME = REPO.split("/")
REFERENCE_CALL = tool_call(
    3, "get_file_contents", {"owner": OWNER, "repo": NAME, "path": "README.md"}
)


@dataclass
class Case:
    """One row of the matrix: a tree, a server (ours or the reference) and its setup."""

    label: str
    root: Path
    token: bool = True
    cache: bool = True
    reference: bool = False
    modern: bool = False  # a 2026-revision client (ours only: the reference has no such era)
    rows: list[list[float]] = field(default_factory=list)

    def command(self, forge: ForgeProcess, home: str) -> tuple[list[str], dict[str, str]]:
        if self.reference:
            return node_command(forge.base_url, forge.token)
        return ours(self.root, forge, home, token=self.token)

    def call(self) -> dict[str, Any]:
        if self.reference:
            return REFERENCE_CALL
        return OUR_CALL if self.token else ANONYMOUS_CALL

    def once(self, forge: ForgeProcess, warm_home: str) -> list[float]:
        if self.cache:  # the warm-up run recorded the listing in this HOME
            command, env = self.command(forge, warm_home)
            return one_run(forge, command, self.root, env, self.call(), self.modern)
        with tempfile.TemporaryDirectory() as fresh_home:
            command, env = self.command(forge, fresh_home)
            return one_run(forge, command, self.root, env, self.call(), self.modern)


def measure(forge: ForgeProcess, cases: list[Case], runs: int) -> None:
    """Interleaved (case 1, case 2, ..., case 1, ...): a farm's load drifts over minutes,
    and blocks measured one after the other would compare different loads."""
    with contextlib.ExitStack() as stack:
        homes = [stack.enter_context(tempfile.TemporaryDirectory()) for _ in cases]
        for case, home in zip(cases, homes, strict=True):
            command, env = case.command(forge, home)
            one_run(forge, command, case.root, env, case.call())  # page cache, bytecode, listing
        for _ in range(runs):
            for case, home in zip(cases, homes, strict=True):
                case.rows.append(case.once(forge, home))


def _cell(values: list[float], fmt: str = "{:.3f}") -> str:
    med = statistics.median(values)
    return f"{fmt.format(med)} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def report(label: str, rows: list[list[float]], reference: list[list[float]] | None) -> None:
    cols = list(zip(*rows, strict=True))
    ratio = ""
    if reference:
        ref_call = statistics.median(r[2] for r in reference)
        ratio = f"  x{statistics.median(cols[2]) / ref_call:5.1f}"
    print(
        f"{label:<28} init {_cell(cols[0])}  list {_cell(cols[1])}  "
        f"call {_cell(cols[2])}{ratio}  RSS {_cell(cols[3], '{:.0f}')} MiB "
        f"(at call {statistics.median(cols[5]):.0f})  "
        f"CPU {statistics.median(cols[4]):.2f} s  load {os.getloadavg()[0]:.1f}"
    )


def importtime(root: Path, top: int = 20) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import github_mcp.cli.main, "
         "github_mcp.pipeline.runtime, github_mcp.serving.server"],
        cwd=root, env={"PATH": os.environ["PATH"]}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[0].strip().isdigit():
            rows.append((int(parts[1]), int(parts[0]), parts[2].rstrip()))
    print("heaviest imports of the serving path (cumulative, own):")
    for cumulative, own, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative / 1e3:8.1f} ms  {own / 1e3:6.1f} ms  {name}")


# What the libraries cost on their own: processes that import, step by step, what the
# server's first call needs from them (the event loop, JSON and TLS; pydantic and one
# model; pydantic-settings; the HTTP client and its asyncio backend), nothing of this server.
_MODEL = "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 1\nM()\n"
FLOOR_STEPS = (
    ("a bare python", "pass"),
    ("asyncio, json, ssl", "import asyncio, json, ssl"),
    ("+ pydantic and a model", "import asyncio, json, ssl\n" + _MODEL),
    ("+ pydantic-settings", "import asyncio, json, ssl, pydantic_settings\n" + _MODEL),
    ("+ httpx2", "import asyncio, json, ssl, pydantic_settings, httpx2\n" + _MODEL),
    (
        "+ httpcore2 and anyio's asyncio backend",
        "import asyncio, json, ssl, pydantic_settings, httpx2, httpcore2, "
        "anyio._backends._asyncio\n" + _MODEL,
    ),
)


def library_floor(runs: int = 7) -> None:
    """The CPU a python spends importing the server's libraries alone, step by step
    (median of `runs`, the steps interleaved): the part of a start no change to this
    server's own code removes."""
    env = {"PATH": os.environ["PATH"], "PYDANTIC_DISABLE_PLUGINS": "__all__"}

    def cpu_ms(code: str) -> float:
        before = os.times()
        subprocess.run([sys.executable, "-c", code], env=env, cwd=tempfile.gettempdir(), check=True)
        after = os.times()
        spent = after.children_user + after.children_system
        return (spent - before.children_user - before.children_system) * 1000

    found: dict[str, list[float]] = {label: [] for label, _ in FLOOR_STEPS}
    for _ in range(runs):
        for label, code in FLOOR_STEPS:
            found[label].append(cpu_ms(code))
    steps = ", ".join(f"{label} {statistics.median(v):.0f}" for label, v in found.items())
    print(f"library floor, CPU ms of a python that only imports (median of {runs}): {steps}; "
          f"load {os.getloadavg()[0]:.1f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "11")))
    parser.add_argument("--before", type=Path, help="an older tree to measure the same way")
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--before-token-only", action="store_true", help="skip its no-token rows")
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}; {args.runs} runs each; "
          "seconds from spawn, median (min-max)")  # fmt: skip
    with ForgeProcess() as forge:
        forge.seed_repo(REPO, {"README.md": README})
        trees = [("this tree", ROOT)] + ([("before", args.before)] if args.before else [])
        cases = [] if args.no_reference else [Case("reference server", ROOT, reference=True)]
        for name, root in trees:
            for token in (True, False):
                if not token and name == "before" and args.before_token_only:
                    continue
                for cache in (False, True):
                    label = f"{name}: {'token' if token else 'no token'}, "
                    label += "cache" if cache else "no cache"
                    cases.append(Case(label, root, token=token, cache=cache))
        cases.append(Case("this tree: 2026 client, token", ROOT, cache=False, modern=True))
        measure(forge, cases, args.runs)
    reference = cases[0].rows if not args.no_reference else None
    for case in cases:
        report(case.label, case.rows, None if case.reference else reference)
    print(f"targets: first call <= {TARGET_CALL_S} s (token, no cache), "
          f"peak RSS <= {TARGET_RSS_MIB} MiB")  # fmt: skip
    library_floor()
    if args.importtime:
        importtime(ROOT)


if __name__ == "__main__":
    main()
