"""Cold start over stdio (target: spawn -> first tools/list <= 0.6 s median).

Spawns `python main.py serve` fresh each run, sends initialize, initialized, tools/list and
one tools/call on stdin, and times until the tools/list answer and until the tools/call
answer (the whole server loaded) arrive on stdout. Measured:

- this tree, fast start on (the listing cache recorded by the warm-up run);
- this tree with GITHUB_MCP_FAST_START=0 (everything imported and built first);
- `--before DIR`: an older tree the same way (its main.py, its code);
- `--importtime`: `python -X importtime` of the server's imports, the heaviest modules.

    python bench/cold_start.py [--runs 7] [--before /work/baseline] [--importtime]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 0.6


def one_run(root: Path, env: dict[str, str]) -> tuple[float, float]:
    """(seconds to the tools/list answer, seconds to the tools/call answer)."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "get_server_config", "arguments": {"bogus": 1}},
        },
    ]
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "main.py", "serve"],
        cwd=root,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    proc.stdin.flush()
    listed = called = None
    for line in proc.stdout:
        message = json.loads(line)
        if message.get("id") == 2:
            listed = time.perf_counter() - started
            assert message["result"]["tools"], "empty tool list"
        elif message.get("id") == 3:
            called = time.perf_counter() - started
            break
    proc.stdin.close()
    proc.stdout.read()
    proc.wait(timeout=30)
    if listed is None or called is None:
        raise RuntimeError("no tools/list or tools/call answer")
    return listed, called


def measure(root: Path, runs: int, **extra: str) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": tmp,
            "GITHUB_MCP_AUDIT_LOG": f"{tmp}/a.jsonl",
            "GITHUB_API_URL": "http://127.0.0.1:9",
            **extra,
        }
        one_run(root, env)  # warm the page cache and bytecode (and record the listing)
        results = [one_run(root, env) for _ in range(runs)]
    return [r[0] for r in results], [r[1] for r in results]


def report(label: str, times: tuple[list[float], list[float]]) -> None:
    listed, called = times
    print(
        f"{label:<34} first tools/list median {statistics.median(listed):.3f} s "
        f"(min {min(listed):.3f}, max {max(listed):.3f}); first tools/call answered "
        f"{statistics.median(called):.3f} s"
    )


def importtime(root: Path, top: int = 15) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import main, github_mcp.serving.server"],
        cwd=root,
        env={**os.environ, "GITHUB_API_URL": "http://127.0.0.1:9"},
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line[13:]:
            continue
        parts = line[12:].split("|")
        if parts[0].strip().isdigit():
            rows.append((int(parts[1]), int(parts[0]), parts[2].rstrip()))
    total = max(r[0] for r in rows)
    print(
        f"imports of main + github_mcp.serving.server: {total / 1e6:.3f} s; heaviest (cumulative):"
    )
    for cumulative, own, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative / 1e3:8.1f} ms  (own {own / 1e3:6.1f})  {name}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "7")))
    parser.add_argument("--before", help="an older tree to measure the same way")
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()
    fast = measure(ROOT, args.runs)
    report("fast start (listing cached)", fast)
    report("fast start off", measure(ROOT, args.runs, GITHUB_MCP_FAST_START="0"))
    if args.before:
        report(f"before ({args.before})", measure(Path(args.before), args.runs))
    print(f"ratio to the {TARGET_S} s target: {statistics.median(fast[0]) / TARGET_S:.2f}")
    if args.importtime:
        importtime(ROOT)


if __name__ == "__main__":
    main()
